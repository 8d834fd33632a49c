// Package fetch reads vendor status pages: a polite HTTP client (conditional GET, capped
// and always-drained bodies, concurrency caps, Retry-After) and the provider adapters that
// turn what it reads into a normalised model.Snapshot.
package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/retryafter"
)

// DefaultUserAgent is sent when ClientOptions.UserAgent is empty. The config package
// normally supplies "statuswatch/<version> (+<project URL>)"; this is the fallback for
// tests and tools that build a client by hand.
const DefaultUserAgent = "statuswatch/dev (+https://github.com/statuswatch/statuswatch)"

// Defaults for the zero ClientOptions fields, matching the config's defaults.
const (
	DefaultMaxBody     = 32 << 20
	DefaultTimeout     = 20 * time.Second
	DefaultConcurrency = 32
	DefaultPerHost     = 4
)

// Transport timeouts. The per-request overall timeout (ClientOptions.Timeout) bounds the
// whole exchange; these catch the phases that would otherwise hang inside it.
const (
	dialTimeout           = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 30 * time.Second

	// DefaultIdleTimeout is how long an idle connection is kept when ClientOptions.IdleTimeout
	// is zero; MaxIdleTimeout caps a longer one (servers close idle connections long before
	// that, and a kept connection costs memory on both sides).
	DefaultIdleTimeout = 90 * time.Second
	MaxIdleTimeout     = 15 * time.Minute
	// defaultSessions is the TLS session cache's size when ClientOptions.Sessions is zero.
	defaultSessions = 64
	// maxSessions caps the session cache: an entry holds the session ticket, its
	// secret and the peer's certificate chain, encoded (~1–5 KB; sessionCache).
	maxSessions = 100_000

	// maxRedirects: a status page that bounces more than this is misconfigured.
	maxRedirects = 5
	// drainLimit bounds how much of an unwanted body we read so the connection can be
	// reused; beyond it, closing (and losing the connection) is cheaper than reading.
	drainLimit = 64 << 10
)

// ErrTooLarge is matched (errors.Is) by the error of a response body longer than
// ClientOptions.MaxBody; its text reads "response exceeds N bytes".
var ErrTooLarge = errors.New("response too large")

// tooLargeError carries the limit into the message while still matching ErrTooLarge.
type tooLargeError struct{ max int64 }

func (e *tooLargeError) Error() string { return fmt.Sprintf("response exceeds %d bytes", e.max) }

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// StatusError is the error of a response whose status is neither 2xx nor 304.
// RetryAfter is the server's Retry-After on 429 and 503 (capped at 6 h), else zero.
type StatusError struct {
	Code       int
	RetryAfter time.Duration
}

// Error says the status, and the wait the server asked for when it did.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Code, http.StatusText(e.Code))
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// RetryAfter returns the wait a server asked for with Retry-After, when err carries one.
func RetryAfter(err error) (time.Duration, bool) {
	var se *StatusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		return se.RetryAfter, true
	}
	return 0, false
}

// Backoff is how long a source that failed `failures` polls in a row waits before its next
// poll: min(30m, interval × 2^(failures-1)), then ±20% jitter so sources that failed
// together do not retry together. rnd returns a number in [0, 1); nil uses
// math/rand/v2. Zero failures means no wait.
func Backoff(interval time.Duration, failures int, rnd func() float64) time.Duration {
	const ceiling = 30 * time.Minute
	if failures <= 0 || interval <= 0 {
		return 0
	}
	d := interval
	// Double step by step rather than shifting, so a large failure count cannot overflow.
	for i := 1; i < failures && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	if rnd == nil {
		rnd = rand.Float64
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rnd()))
}

// ClientOptions configure a Client. Zero fields take the Default* values.
type ClientOptions struct {
	UserAgent   string
	MaxBody     int64         // bytes; a longer body is an error
	Timeout     time.Duration // per request, overall: connect, headers and body
	Concurrency int           // requests in flight at once, over all hosts
	PerHost     int           // requests (and connections) in flight per host:port
	CAFile      string        // extra PEM CA bundle, added to the system roots
	// IdleTimeout is how long a connection is kept idle between polls; zero:
	// DefaultIdleTimeout, capped at MaxIdleTimeout. A poller sets it from its sources'
	// schedules, so a warm poll finds the connection the last one left where the server
	// allows it (no new handshake at all).
	IdleTimeout time.Duration
	// MaxIdle bounds the connections kept between polls over all hosts, HTTP/1 and HTTP/2:
	// the first ones the client had room for, while they last; any other is closed once
	// idle for a moment. Zero: Concurrency × 2. Each costs memory on both sides.
	MaxIdle int
	// Sessions is the size of the TLS client session cache (one entry per host; LRU):
	// where a connection was not kept, the next handshake resumes the session instead
	// of a full one (no certificate chain sent and verified). Zero: 64.
	Sessions int
	// PostQuantum offers the hybrid post-quantum key exchanges (X25519MLKEM768 and
	// the others of Go's defaults). Off, the client offers the classic ones alone
	// (crypto/tls picks among what is offered in an order of its own, always a hybrid
	// first), so an ML-KEM key is not made, sent and decapsulated at every handshake,
	// a resumed one too: at 10,000 HTTPS sources that was 15% of the daemon's CPU
	// profile, and turning it off took the daemon from 24.0% of a core to 21.1%.
	PostQuantum bool
	// Transport replaces the built-in transport (tests). The concurrency caps still apply.
	Transport http.RoundTripper

	// dial replaces the built-in transport's dialer (tests of the redirect guard).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Client is the polite HTTP client every provider fetches through.
// It is safe for concurrent use.
type Client struct {
	hc      *http.Client
	ua      string
	maxBody int64
	timeout time.Duration
	perHost int
	global  chan struct{}
	now     func() time.Time // for Retry-After dates; a field so tests can pin it
	resolve resolver         // for redirect checks; a field so tests can answer for any name
	conns   *connPool        // the connections kept between polls, bounded

	mu    sync.Mutex
	hosts map[string]*hostSlot
}

// hostSlot is the semaphore of one host:port, dropped once nobody uses it so the map
// does not grow with every host ever polled.
type hostSlot struct {
	sem  chan struct{}
	refs int
}

// NewClient builds a Client. It fails only when CAFile cannot be read or holds no
// certificate.
func NewClient(o ClientOptions) (*Client, error) {
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.PerHost <= 0 {
		o.PerHost = DefaultPerHost
	}
	if o.MaxIdle <= 0 {
		o.MaxIdle = o.Concurrency * 2
	}
	pool := newConnPool(o.MaxIdle)
	rt := o.Transport
	if rt == nil {
		tr, err := newTransport(o, pool)
		if err != nil {
			return nil, err
		}
		rt = tr
	}
	c := &Client{
		ua:      o.UserAgent,
		maxBody: o.MaxBody,
		timeout: o.Timeout,
		perHost: o.PerHost,
		global:  make(chan struct{}, o.Concurrency),
		now:     time.Now,
		resolve: systemResolver,
		hosts:   make(map[string]*hostSlot),
		conns:   pool,
	}
	c.hc = &http.Client{Transport: rt, CheckRedirect: c.checkRedirect}
	return c, nil
}

// classicKeyExchanges is what is offered without PostQuantum.
var classicKeyExchanges = []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384}

func newTransport(o ClientOptions, pool *connPool) (*http.Transport, error) {
	// No DNS cache of our own: every dial resolves through the system resolver, so a
	// vendor moving its page is followed as soon as the TTL allows.
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	dial := d.DialContext
	if o.dial != nil {
		dial = o.dial
	}
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	sessions := o.Sessions
	if sessions <= 0 {
		sessions = defaultSessions
	}
	tracked := pool.trackDial(guardDial(dial))
	tr := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: tracked,
		// Through a proxy the transport runs TLS itself, over the tunnel, with
		// TLSClientConfig; a direct HTTPS connection goes through DialTLSContext
		// (connPool.tlsDial), set below once that config is complete.
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: min(responseHeaderTimeout, o.Timeout),
		IdleConnTimeout:       min(idle, MaxIdleTimeout),
		ExpectContinueTimeout: time.Second,
		// No bound of the transport's own: its least recently used HTTP/1 connection would
		// be the pool's kept one (connPool), which bounds them all.
		MaxIdleConns: 0,
		// One idle connection per host is all a poller reuses: a source's endpoints are
		// read one after the other.
		MaxIdleConnsPerHost: min(o.PerHost, 2),
		MaxConnsPerHost:     o.PerHost,
		// A custom DialContext turns HTTP/2 off unless asked for: ask. The redirect guard
		// still sees every dial, since the transport dials (guardDial) and then runs the
		// TLS handshake itself for both protocols.
		ForceAttemptHTTP2: true,
		// An HTTP/1 connection's buffers, made anew for each: a poll's request is a few
		// hundred bytes and its answer's headers a kilobyte or two, and net/http's 4 KB
		// each were 8 KB of the ~50 KB a reconnecting poll allocates (at 10,000 sources
		// nearly every poll reconnects). A longer header line still reads (textproto
		// joins the pieces), a longer request is written in pieces, and a body read in
		// large pieces bypasses the buffer.
		ReadBufferSize:  2 << 10,
		WriteBufferSize: 1 << 10,
		// HTTP/2's defaults let a server send up to 1 GiB per connection and 4 MiB per
		// stream before we read: bound what a connection may buffer to a body's worth
		// of a status page.
		HTTP2: &http.HTTP2Config{
			MaxReceiveBufferPerConnection: 1 << 20,
			MaxReceiveBufferPerStream:     1 << 20,
			MaxDecoderHeaderTableSize:     4 << 10,
			MaxEncoderHeaderTableSize:     4 << 10,
		},
		// Accept-Encoding is left to the transport: it asks for gzip and decompresses
		// transparently, and MaxBody then caps the decompressed size, which is what
		// protects our memory.
		TLSClientConfig: &tls.Config{
			MinVersion:         tls.VersionTLS12,
			ClientSessionCache: newSessionCache(min(sessions, maxSessions)),
		},
	}
	if !o.PostQuantum {
		tr.TLSClientConfig.CurvePreferences = classicKeyExchanges
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ca_file: %w", err)
		}
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file %s: no PEM certificate found", o.CAFile)
		}
		tr.TLSClientConfig.RootCAs = roots
	}
	tr.DialTLSContext = pool.tlsDial(tracked, tr.TLSClientConfig, tlsHandshakeTimeout)
	return tr, nil
}

// checkRedirect stops after maxRedirects, refuses a redirect into an internal network
// (checkRedirectTarget) and strips every header but the User-Agent when a redirect leaves
// the original host or downgrades https to http: source headers are secrets (tokens, API
// keys), and net/http strips only Authorization and cookies by itself, and only on a
// change of host.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0].URL
	if err := c.checkRedirectTarget(req.Context(), first, req.URL); err != nil {
		return err
	}
	if g := guardOf(req.Context()); g != nil {
		g.redirected(hostPort(req.URL))
	}
	if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
		ua := req.Header.Get("User-Agent")
		req.Header = http.Header{}
		req.Header.Set("User-Agent", ua)
	}
	return nil
}

// Response is the outcome of a successful Get.
type Response struct {
	// NotModified: the server answered 304; Body is nil.
	NotModified bool
	// Unchanged: a 200 whose body hashes to prev.Hash, recognised before any parsing;
	// Body is nil then too, since nobody will read it.
	Unchanged bool
	Body      []byte
	// State holds the validators and body hash to remember for the next Get: on 304 the
	// previous ones, refreshed by whatever validators the 304 carried.
	State       model.EndpointState
	ContentType string
	FinalURL    string // after redirects
}

// Get fetches rawURL conditionally: prev's ETag and Last-Modified become If-None-Match and
// If-Modified-Since. headers are added to the request; they are secrets and never appear
// in an error. Statuses other than 2xx and 304 are a *StatusError; a body longer than
// MaxBody is an error matching ErrTooLarge. The body is always drained and closed.
func (c *Client) Get(ctx context.Context, rawURL string, prev model.EndpointState, headers map[string]string) (*Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("fetch: bad url: %w", err)
	}
	// name is the URL as errors show it: userinfo passwords redacted.
	name := u.Redacted()
	r, err := c.do(ctx, call{raw: rawURL, u: u, headers: headers, prev: prev})
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", name, err)
	}
	if err := c.checkStatus(r.status, r.header); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", name, err)
	}
	out := &Response{ContentType: r.header.Get("Content-Type"), FinalURL: r.final.String()}
	if r.status == http.StatusNotModified {
		out.NotModified = true
		out.State = prev
		if v := r.header.Get("ETag"); v != "" {
			out.State.ETag = v
		}
		if v := strongLastModified(r.header); v != "" {
			out.State.LastModified = v
		}
		return out, nil
	}

	defer putBuffer(r.body)
	sum := sha256.Sum256(r.body.Bytes())
	out.State = model.EndpointState{
		ETag:         r.header.Get("ETag"),
		LastModified: strongLastModified(r.header),
		Hash:         hex.EncodeToString(sum[:]),
	}
	out.Unchanged = prev.Hash != "" && out.State.Hash == prev.Hash
	if !out.Unchanged {
		// Only a body that will be parsed leaves the pool; an unchanged poll allocates
		// nothing the size of the body.
		out.Body = bytes.Clone(r.body.Bytes())
		if out.Body == nil {
			out.Body = []byte{}
		}
	}
	return out, nil
}

// call is one GET on the client's request path: what it sends beyond the User-Agent.
type call struct {
	raw     string              // the URL as asked for
	u       *url.URL            // raw, parsed
	headers map[string]string   // the source's: secrets, never in an error
	prev    model.EndpointState // its ETag and Last-Modified make the request conditional
}

// reply is the answer to a call: its status and headers and, for a 2xx only, its body in
// a pooled buffer the caller gives back with putBuffer.
type reply struct {
	status int
	header http.Header
	final  *url.URL // after redirects
	body   *bytes.Buffer
}

// do is the client's one request path, for polls (Get) and detection alike: it takes the
// host's slot and a global one, bounds the whole exchange by the timeout, sends the
// User-Agent, the call's headers and validators under the redirect guard, reads a 2xx
// body under the cap, and drains and closes every body. Any status is an answer here,
// not an error. Its errors do not name the URL (the callers do) and never hold header
// values.
func (c *Client) do(ctx context.Context, cl call) (reply, error) {
	if cl.u.Scheme != "http" && cl.u.Scheme != "https" {
		return reply{}, fmt.Errorf("unsupported scheme %q", cl.u.Scheme)
	}
	release, err := c.acquire(ctx, hostPort(cl.u))
	if err != nil {
		return reply{}, err
	}
	defer release()

	// The timeout starts once we hold the slots: time spent queued behind other polls is
	// bounded by the caller's ctx, not charged to this vendor.
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	ctx = withGuard(ctx, c, cl.u)
	// The connections the exchange uses (one per hop) go back to the pool once its body
	// is closed (the deferred drainClose below runs first).
	var used []net.Conn
	big, reused := false, false
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		c.conns.acquire(i.Conn)
		used = append(used, i.Conn)
		reused = reused || i.Reused
	}})
	defer func() { c.conns.release(used, big) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cl.raw, nil)
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("User-Agent", c.ua)
	for k, v := range cl.headers {
		req.Header.Set(k, v)
	}
	if cl.prev.ETag != "" {
		req.Header.Set("If-None-Match", cl.prev.ETag)
	}
	if cl.prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", cl.prev.LastModified)
	}

	resp, err := c.hc.Do(req)
	if err != nil && reused && errors.Is(err, net.ErrClosed) && ctx.Err() == nil {
		// The pool closed a kept connection (connPool) just as the transport handed it to
		// this request, before the transport's read loop saw the close: a GET that got no
		// answer is sent once more, on a new connection.
		resp, err = c.hc.Do(req.Clone(ctx))
	}
	if err != nil {
		// *url.Error names the URL of the last hop; the caller names the one it asked
		// for. The cause never holds header values.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return reply{}, err
	}
	defer drainClose(resp.Body)

	r := reply{status: resp.StatusCode, header: resp.Header, final: resp.Request.URL}
	if r.status < 200 || r.status >= 300 {
		return r, nil
	}
	if r.body, err = c.readBody(resp); err != nil {
		return reply{}, err
	}
	big = r.body.Len() > bigBody
	return r, nil
}

// strongLastModified returns a response's Last-Modified when it can serve as a validator
// on its own, else "". A Last-Modified within a second of the response's Date is weak
// (RFC 9110 §8.8.2.2): with one-second resolution, a change made later in that same
// second would carry the same date, and If-Modified-Since would hide it behind a 304. Not
// remembering it means the next poll reads the body and compares its hash instead; the
// ETag, when there is one, still makes the request conditional.
func strongLastModified(h http.Header) string {
	v := h.Get("Last-Modified")
	if v == "" {
		return ""
	}
	lm, err := http.ParseTime(v)
	if err != nil {
		return v // not ours to judge: the server compares it as it wrote it
	}
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return v // no Date to judge by: trust it, as every cache does
	}
	if d := date.Sub(lm); d < time.Second && d > -time.Second {
		return ""
	}
	return v
}

// checkStatus is the one place HTTP statuses become errors.
func (c *Client) checkStatus(code int, h http.Header) error {
	if code == http.StatusNotModified || (code >= 200 && code < 300) {
		return nil
	}
	e := &StatusError{Code: code}
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		e.RetryAfter = retryafter.Parse(h.Get("Retry-After"), c.now())
	}
	return e
}

// readBody reads at most maxBody bytes into a pooled buffer; one byte more means the
// body is too large. The caller returns the buffer with putBuffer.
func (c *Client) readBody(resp *http.Response) (*bytes.Buffer, error) {
	if resp.ContentLength > c.maxBody {
		return nil, &tooLargeError{c.maxBody}
	}
	buf := bufferPool.Get().(*bytes.Buffer)
	buf.Reset()
	b := buf.AvailableBuffer() // the pooled storage, empty
	if int64(cap(b)) > c.maxBody {
		b = b[:0:c.maxBody]
	}
	// Size the buffer from Content-Length when the server sent one (it does not when the
	// transport decompresses gzip), so a large body is read without regrowing.
	if n := resp.ContentLength; n > 0 && int(n) > cap(b) {
		b = make([]byte, 0, n)
	}
	// Read by hand rather than with bytes.Buffer.ReadFrom: that doubles the buffer before
	// every read that finds it full, so a body at the cap would briefly hold 3× max_body.
	// Here the capacity never passes max_body, and one byte more is probed separately.
	for {
		if len(b) == cap(b) {
			if int64(len(b)) >= c.maxBody {
				var one [1]byte
				if n, _ := io.ReadFull(resp.Body, one[:]); n > 0 {
					putBuffer(buf)
					return nil, &tooLargeError{c.maxBody}
				}
				break
			}
			grown := make([]byte, len(b), min(max(2*cap(b), 64<<10), int(c.maxBody)))
			copy(grown, b)
			b = grown
		}
		n, err := resp.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			putBuffer(buf)
			return nil, fmt.Errorf("read body: %w", err)
		}
	}
	*buf = *bytes.NewBuffer(b)
	return buf, nil
}

// bufferPool recycles body buffers: most polls read a body the size of the last one and
// throw it away unparsed, so reusing the memory saves both the allocation and the zeroing.
var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled keeps the odd multi-megabyte body (GCP's whole history) from pinning memory.
const maxPooled = 4 << 20

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		bufferPool.Put(b)
	}
}

// drainClose reads what is left of a body, up to drainLimit, so the connection can be
// reused, then closes it. Every response goes through it, whatever the outcome.
func drainClose(b io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, b, drainLimit)
	_ = b.Close()
}

// acquire takes a per-host slot, then a global one, and returns the function that gives
// both back. The host slot comes first so a request waiting for a busy host does not sit
// on a global slot that a request to an idle host could use.
func (c *Client) acquire(ctx context.Context, host string) (func(), error) {
	c.mu.Lock()
	s := c.hosts[host]
	if s == nil {
		s = &hostSlot{sem: make(chan struct{}, c.perHost)}
		c.hosts[host] = s
	}
	s.refs++
	c.mu.Unlock()

	unref := func() {
		c.mu.Lock()
		if s.refs--; s.refs == 0 {
			delete(c.hosts, host)
		}
		c.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		unref()
		return nil, ctx.Err()
	}
	select {
	case c.global <- struct{}{}:
	case <-ctx.Done():
		<-s.sem
		unref()
		return nil, ctx.Err()
	}
	return func() {
		<-c.global
		<-s.sem
		unref()
	}, nil
}

// hostPort is the key of the per-host cap: host:port with the scheme's default port.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return strings.ToLower(u.Host)
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
