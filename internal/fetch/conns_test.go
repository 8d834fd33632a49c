package fetch

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/cputime"
	"github.com/statuswatch/statuswatch/internal/model"
)

// connCounter is a vendor's view of a client's connections: new connections (ConnState),
// requests by protocol and TLS handshakes that resumed a session.
type connCounter struct {
	mu       sync.Mutex
	conns    int
	resumed  int
	requests int
	protos   map[string]int
}

func (c *connCounter) snapshot() (conns, resumed, requests int, protos map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := make(map[string]int, len(c.protos))
	for k, v := range c.protos {
		p[k] = v
	}
	return c.conns, c.resumed, c.requests, p
}

// etagServer answers GET with a small body and ETag "v1", and 304 to If-None-Match
// "v1", counting what it sees. With TLS it offers HTTP/2; closeIdle makes it close every
// connection after its answer, as servers with short idle timeouts do.
func etagServer(tb testing.TB, useTLS, closeIdle bool) (*httptest.Server, *connCounter) {
	tb.Helper()
	return etagServerWith(tb, useTLS, closeIdle, []byte(`{"incidents":[]}`))
}

// etagServerWith is etagServer answering GET with body.
func etagServerWith(tb testing.TB, useTLS, closeIdle bool, body []byte) (*httptest.Server, *connCounter) {
	tb.Helper()
	cc := &connCounter{protos: map[string]int{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cc.mu.Lock()
		cc.requests++
		cc.protos[r.Proto]++
		if r.TLS != nil && r.TLS.DidResume {
			cc.resumed++
		}
		cc.mu.Unlock()
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(body)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cc.mu.Lock()
			cc.conns++
			cc.mu.Unlock()
		}
	}
	if closeIdle {
		srv.Config.SetKeepAlivesEnabled(false)
	}
	if useTLS {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	tb.Cleanup(srv.Close)
	return srv, cc
}

// caFile writes srv's certificate as a PEM bundle, for ClientOptions.CAFile.
func caFile(tb testing.TB, srv *httptest.Server) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// warmPolls polls srv n times with validators, as a warm source is polled.
func warmPolls(tb testing.TB, c *Client, url string, n int) {
	tb.Helper()
	prev := model.EndpointState{}
	for range n {
		r, err := c.Get(context.Background(), url, prev, nil)
		if err != nil {
			tb.Fatal(err)
		}
		prev = r.State
	}
}

// Warm HTTPS polls do not pay a full handshake each: a server that keeps connections
// sees one connection (HTTP/2, offered) for every poll; one that closes them sees a new
// connection per poll, every one after the first a resumed TLS session.
func TestWarmHTTPSPollsReuseOrResume(t *testing.T) {
	const polls = 5
	for _, tc := range []struct {
		name                  string
		closeIdle             bool
		wantConns, wantResume int
		wantProto             string
	}{
		{name: "server keeps connections", wantConns: 1, wantResume: 0, wantProto: "HTTP/2.0"},
		{name: "server closes connections", closeIdle: true, wantConns: polls, wantResume: polls - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, cc := etagServer(t, true, tc.closeIdle)
			c := mustClient(t, ClientOptions{CAFile: caFile(t, srv), Sessions: 4})
			warmPolls(t, c, srv.URL, polls)
			conns, resumed, requests, protos := cc.snapshot()
			if requests != polls || conns != tc.wantConns || resumed != tc.wantResume {
				t.Errorf("%d requests over %d connections, %d resumed; want %d over %d, %d resumed", requests, conns, resumed, polls, tc.wantConns, tc.wantResume)
			}
			if tc.wantProto != "" && protos[tc.wantProto] != polls {
				t.Errorf("protocols %v, want %d × %s", protos, polls, tc.wantProto)
			}
		})
	}
}

// The idle timeout and the idle bound reach the transport; zero takes the defaults and a
// long one is capped.
func TestTransportIdleOptions(t *testing.T) {
	for _, tc := range []struct {
		o                 ClientOptions
		wantIdle          int
		wantTimeoutAtMost bool
		want              string
	}{
		{o: ClientOptions{}, wantIdle: 2 * DefaultConcurrency},
		{o: ClientOptions{IdleTimeout: 3 * MaxIdleTimeout, MaxIdle: 7}, wantIdle: 7},
	} {
		c := mustClient(t, tc.o)
		tr := c.hc.Transport.(*http.Transport)
		wantTimeout := DefaultIdleTimeout
		if tc.o.IdleTimeout > 0 {
			wantTimeout = min(tc.o.IdleTimeout, MaxIdleTimeout)
		}
		if tr.IdleConnTimeout != wantTimeout || c.conns.max != tc.wantIdle {
			t.Errorf("%+v: idle timeout %v, max idle %d; want %v, %d", tc.o, tr.IdleConnTimeout, c.conns.max, wantTimeout, tc.wantIdle)
		}
		if tr.TLSClientConfig == nil || tr.TLSClientConfig.ClientSessionCache == nil || !tr.ForceAttemptHTTP2 {
			t.Errorf("%+v: no session cache or no HTTP/2", tc.o)
		}
	}
}

// BenchmarkWarmPoll is a warm poll answered 304 (client and server both in this
// process): over plain HTTP on a kept connection, over HTTPS on a kept connection (HTTP/2
// and HTTP/1.1), and over HTTPS from a server that closes every connection, with the
// session cache (a resumed handshake) and without it (a full one). The budget of
// docs/design.md §8: a warm HTTPS poll costs at most 2× a warm plain-HTTP one.
//
//	go test -run '^$' -bench WarmPoll -benchtime 2000x -count 5 ./internal/fetch/
func BenchmarkWarmPoll(b *testing.B) {
	for _, bc := range []struct {
		name           string
		tls, closeIdle bool
		h1, noSessions bool
	}{
		{name: "plain"},
		{name: "https-h2-kept", tls: true},
		{name: "https-h1-kept", tls: true, h1: true},
		{name: "https-resumed", tls: true, closeIdle: true},
		{name: "https-h1-resumed", tls: true, closeIdle: true, h1: true}, // the daemon's connections it does not keep
		{name: "https-full-handshake", tls: true, closeIdle: true, noSessions: true},
		{name: "plain-closed", closeIdle: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv, cc := etagServer(b, bc.tls, bc.closeIdle)
			o := ClientOptions{}
			if bc.tls {
				o.CAFile = caFile(b, srv)
			}
			c := mustClient(b, o)
			tr := c.hc.Transport.(*http.Transport)
			if bc.h1 {
				// The client runs the TLS handshake itself (connPool.tlsDial) and offers
				// only HTTP/1.1 to a host whose server closed its kept connection.
				c.conns.closers[srv.Listener.Addr().String()] = struct{}{}
			}
			if bc.noSessions {
				tr.TLSClientConfig.ClientSessionCache = nil
			}
			warmPolls(b, c, srv.URL, 2) // the cold poll, and the first connection
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Process()
			warmPolls(b, c, srv.URL, b.N)
			b.StopTimer()
			// CPU rather than wall time: on a loaded machine a poll waits for the CPU.
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
			conns, resumed, requests, _ := cc.snapshot()
			b.ReportMetric(float64(conns)/float64(requests), "conns/op")
			b.ReportMetric(float64(resumed)/float64(requests), "resumed/op")
		})
	}
}

// HTTP/2 connections count against MaxIdle too, and the pool keeps the first ones it has
// room for: a client visiting more hosts than MaxIdle in turn, as a daemon does once an
// interval, reuses the kept hosts' connections at every visit; each other host's
// connection is closed once idle (here at once) and its next visit opens a new one, over
// HTTP/1.1: HTTP/2 is offered only while the pool has room to keep the connection.
// Evicting the least recently used instead would close each connection just before its
// host's next visit: no reuse at all. (The new connections would resume their TLS
// session, but these servers share the name 127.0.0.1, the session cache's key: each
// host's ticket replaces the last. TestBigBodyDropsTLSConnection shows the resumption.)
func TestIdleConnectionsBounded(t *testing.T) {
	var srvs []*httptest.Server
	var counts []*connCounter
	pool := x509.NewCertPool()
	for range 4 {
		srv, cc := etagServer(t, true, false)
		srvs, counts = append(srvs, srv), append(counts, cc)
		pool.AddCert(srv.Certificate())
	}
	c := mustClient(t, ClientOptions{MaxIdle: 2, Sessions: 8})
	c.conns.visit = 0 // close the others at once
	c.hc.Transport.(*http.Transport).TLSClientConfig.RootCAs = pool
	const visits = 3
	for range visits {
		for _, srv := range srvs {
			warmPolls(t, c, srv.URL, 1)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			open, kept := c.conns.open()
			if kept != 2 {
				t.Fatalf("after a visit of 4 hosts: %d kept; want 2 (MaxIdle)", kept)
			}
			if open == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after a visit of 4 hosts: %d connections still open; want 2 (MaxIdle)", open)
			}
		}
	}
	for i, cc := range counts {
		conns, _, _, protos := cc.snapshot()
		want, proto := visits, "HTTP/1.1" // a new connection at every visit, not offered HTTP/2
		if i < 2 {
			want, proto = 1, "HTTP/2.0" // kept
		}
		if conns != want || protos[proto] != visits {
			t.Errorf("host %d: %d connections, %v; want %d, %s only", i, conns, protos, want, proto)
		}
	}
}

// A TLS connection that carried a big body is closed once it has stayed idle for the
// linger (its grown buffers are not kept), not before: the rest of the poll still uses it.
// A connection that carried only small answers is kept.
func TestBigBodyDropsTLSConnection(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2*bigBody)
	srv, cc := etagServerWith(t, true, false, big)
	c := mustClient(t, ClientOptions{CAFile: caFile(t, srv)})
	c.conns.linger = time.Hour // the timer never fires here: the test closes by hand
	r, err := c.Get(context.Background(), srv.URL, model.EndpointState{}, nil)
	if err != nil || len(r.Body) != len(big) {
		t.Fatalf("big GET: %v, %d bytes", err, len(r.Body))
	}
	if r, err = c.Get(context.Background(), srv.URL, r.State, nil); err != nil || !r.NotModified {
		t.Fatalf("conditional GET: %v, %+v", err, r)
	}
	if open, _ := c.conns.open(); open != 1 {
		t.Fatalf("within the linger: %d connections open, want 1 (the same, reused)", open)
	}
	// The linger's end, as its timer would see it: nothing used the connection since.
	c.conns.mu.Lock()
	var pc *pooledConn
	for _, v := range c.conns.conns {
		pc = v
	}
	uses := pc.uses
	c.conns.mu.Unlock()
	c.conns.closeIfIdle(pc, uses)
	if open, _ := c.conns.open(); open != 0 {
		t.Errorf("after the linger: %d connections open, want 0", open)
	}
	for range 2 {
		if r, err = c.Get(context.Background(), srv.URL, r.State, nil); err != nil || !r.NotModified {
			t.Fatalf("conditional GET: %v, %+v", err, r)
		}
	}
	if open, _ := c.conns.open(); open != 1 {
		t.Errorf("after 304s: %d connections open, want 1 (kept: no big body on it)", open)
	}
	// Two connections: the first for the big body and a 304, the second (resumed) for
	// the 304s after the linger.
	if conns, resumed, requests, _ := cc.snapshot(); conns != 2 || resumed != 2 || requests != 4 {
		t.Errorf("%d requests over %d connections, %d over a resumed session; want 4 over 2, 2", requests, conns, resumed)
	}
}

// A server that closes the connection kept for it while it is idle is not offered HTTP/2
// again: its connections carry one poll each, and go over HTTP/1.1 (tlsDial).
func TestServerClosingIdleConnectionsGetsHTTP1(t *testing.T) {
	var mu sync.Mutex
	var protos []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protos = append(protos, r.Proto)
		mu.Unlock()
		w.Write([]byte("{}"))
	}))
	srv.Config.IdleTimeout = 50 * time.Millisecond
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	c := mustClient(t, ClientOptions{CAFile: caFile(t, srv), Sessions: 4})
	for i := range 3 {
		if _, err := c.Get(context.Background(), srv.URL, model.EndpointState{}, nil); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if open, _ := c.conns.open(); open == 0 {
				break // the server closed it
			}
			if time.Now().After(deadline) {
				t.Fatalf("poll %d: the server's idle timeout did not close the connection", i+1)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"HTTP/2.0", "HTTP/1.1", "HTTP/1.1"}; !slices.Equal(protos, want) {
		t.Errorf("protocols %v, want %v", protos, want)
	}
}
