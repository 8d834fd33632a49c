package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest/fakehttp"
	"github.com/statuswatch/statuswatch/internal/model"
)

func TestGetConditional(t *testing.T) {
	page := fakehttp.NewFakePage()
	body := []byte(`{"incidents":[]}`)
	const lm = "Tue, 03 Mar 2026 14:02:00 GMT"
	page.Set("/x.json", fakehttp.Route{Body: body, ETag: `"v1"`, LastModified: lm})
	srv := fakehttp.NewServer(t, page)
	c := mustClient(t, ClientOptions{})

	r1, err := c.Get(context.Background(), srv.URL+"/x.json", model.EndpointState{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	want := model.EndpointState{ETag: `"v1"`, LastModified: lm, Hash: hex.EncodeToString(sum[:])}
	if r1.NotModified || r1.Unchanged || string(r1.Body) != string(body) || !r1.State.Equal(want) {
		t.Fatalf("first get: got %+v, want body %s and state %+v", r1, body, want)
	}
	if !strings.HasPrefix(r1.ContentType, "application/json") || r1.FinalURL != srv.URL+"/x.json" {
		t.Errorf("got content type %q, final url %q", r1.ContentType, r1.FinalURL)
	}
	if got := page.Requests()[0]; got.IfNoneMatch != "" || got.IfModifiedSince != "" {
		t.Errorf("first request carried validators: %+v", got)
	}

	r2, err := c.Get(context.Background(), srv.URL+"/x.json", r1.State, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := page.Requests()[0]
	if got.IfNoneMatch != `"v1"` || got.IfModifiedSince != lm {
		t.Errorf("second request: got If-None-Match %q, If-Modified-Since %q, want %q, %q", got.IfNoneMatch, got.IfModifiedSince, `"v1"`, lm)
	}
	if !r2.NotModified || r2.Body != nil || !r2.State.Equal(want) {
		t.Errorf("304: got NotModified %v, body %q, state %+v; want true, nil, %+v", r2.NotModified, r2.Body, r2.State, want)
	}
}

func TestGetUnchangedByHash(t *testing.T) {
	page := fakehttp.NewFakePage()
	page.Set("/x.json", fakehttp.Route{Body: []byte(`{"incidents":[]}`)}) // no validators at all
	srv := fakehttp.NewServer(t, page)
	c := mustClient(t, ClientOptions{})

	r1, err := c.Get(context.Background(), srv.URL+"/x.json", model.EndpointState{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Unchanged {
		t.Fatal("first get: got Unchanged with no previous hash")
	}
	r2, err := c.Get(context.Background(), srv.URL+"/x.json", r1.State, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Unchanged || r2.NotModified || r2.Body != nil || !r2.State.Equal(r1.State) {
		t.Errorf("got Unchanged %v NotModified %v state %+v, want true false %+v", r2.Unchanged, r2.NotModified, r2.State, r1.State)
	}
	page.Set("/x.json", fakehttp.Route{Body: []byte(`{"incidents":[{"id":"a"}]}`)})
	r3, err := c.Get(context.Background(), srv.URL+"/x.json", r1.State, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r3.Unchanged || r3.State.Hash == r1.State.Hash {
		t.Errorf("changed body: got Unchanged %v, hash %s", r3.Unchanged, r3.State.Hash)
	}
}

func TestGetUserAgentAndHeaders(t *testing.T) {
	page := fakehttp.NewFakePage()
	page.Set("/x", fakehttp.Route{Body: []byte("{}")})
	srv := fakehttp.NewServer(t, page)

	for _, tc := range []struct{ name, ua, want string }{
		{"default", "", DefaultUserAgent},
		{"configured", "statuswatch/1.2.3 (+https://example.com)", "statuswatch/1.2.3 (+https://example.com)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustClient(t, ClientOptions{UserAgent: tc.ua})
			if _, err := c.Get(context.Background(), srv.URL+"/x", model.EndpointState{}, map[string]string{"X-Api-Key": "k"}); err != nil {
				t.Fatal(err)
			}
			got := page.Requests()[0]
			if got.UserAgent != tc.want {
				t.Errorf("got User-Agent %q, want %q", got.UserAgent, tc.want)
			}
			if got.Header.Get("X-Api-Key") != "k" {
				t.Errorf("got X-Api-Key %q, want the source header", got.Header.Get("X-Api-Key"))
			}
		})
	}
}

// TestGetGzip checks that Accept-Encoding is left to the transport: it asks for gzip,
// decompresses transparently, and MaxBody caps the decompressed size (a gzip bomb fails).
func TestGetGzip(t *testing.T) {
	plain := []byte(`{"incidents":[]}` + strings.Repeat(" ", 5000))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	var acceptEncoding string
	srv := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding = r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz.Bytes())
	}))
	r, err := mustClient(t, ClientOptions{}).Get(context.Background(), srv.URL, model.EndpointState{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(plain)
	if acceptEncoding != "gzip" || !bytes.Equal(r.Body, plain) || r.State.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("got Accept-Encoding %q, %d bytes, hash %s; want gzip, the %d plain bytes and their hash", acceptEncoding, len(r.Body), r.State.Hash, len(plain))
	}
	if gz.Len() >= 1000 {
		t.Fatalf("test bug: compressed body is %d bytes", gz.Len())
	}
	_, err = mustClient(t, ClientOptions{MaxBody: 1000}).Get(context.Background(), srv.URL, model.EndpointState{}, nil)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("decompressed past MaxBody: got %v, want ErrTooLarge", err)
	}
}

func TestGetTooLarge(t *testing.T) {
	big := []byte(strings.Repeat("x", 11))
	c := mustClient(t, ClientOptions{MaxBody: 10})
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"content-length", func(w http.ResponseWriter, r *http.Request) { w.Write(big) }},
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Write(big[:5])
			w.(http.Flusher).Flush() // no Content-Length: the cap has to count
			w.Write(big[5:])
		}},
		{"content-length-first", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100000")
			w.Write(make([]byte, 100000))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakehttp.NewServer(t, tc.handler)
			_, err := c.Get(context.Background(), srv.URL+"/big", model.EndpointState{}, nil)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(fmt.Sprint(err), "response exceeds 10 bytes") {
				t.Fatalf("got %v, want ErrTooLarge saying %q", err, "response exceeds 10 bytes")
			}
			if !strings.Contains(err.Error(), srv.URL+"/big") {
				t.Errorf("error %q does not name the URL", err)
			}
		})
	}
	// Exactly MaxBody bytes is fine.
	srv := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(big[:10]) }))
	if _, err := c.Get(context.Background(), srv.URL, model.EndpointState{}, nil); err != nil {
		t.Errorf("body of exactly MaxBody: got %v", err)
	}
}

func TestGetStatusErrors(t *testing.T) {
	now := time.Date(2026, 3, 3, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		code       int
		retryAfter string
		want       time.Duration
	}{
		{"404", 404, "", 0},
		{"500 ignores retry-after", 500, "120", 0},
		{"429 seconds", 429, "120", 2 * time.Minute},
		{"503 seconds", 503, "7", 7 * time.Second},
		{"503 date", 503, now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"429 date in the past", 429, now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"429 capped at 6h", 429, "99999999999", 6 * time.Hour},
		{"503 date capped at 6h", 503, now.Add(48 * time.Hour).Format(http.TimeFormat), 6 * time.Hour},
		{"429 garbage", 429, "soon", 0},
		{"429 negative", 429, "-5", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := fakehttp.NewFakePage()
			page.Set("/x", fakehttp.Route{Status: tc.code, Body: []byte("busy"), RetryAfter: tc.retryAfter})
			srv := fakehttp.NewServer(t, page)
			c := mustClient(t, ClientOptions{})
			c.now = func() time.Time { return now }

			_, err := c.Get(context.Background(), srv.URL+"/x", model.EndpointState{}, nil)
			var se *StatusError
			if !errors.As(err, &se) || se.Code != tc.code {
				t.Fatalf("got %v, want a *StatusError with code %d", err, tc.code)
			}
			if se.RetryAfter != tc.want {
				t.Errorf("got RetryAfter %v, want %v", se.RetryAfter, tc.want)
			}
			d, ok := RetryAfter(err)
			if d != tc.want || ok != (tc.want > 0) {
				t.Errorf("RetryAfter(err): got %v, %v; want %v, %v", d, ok, tc.want, tc.want > 0)
			}
			if !strings.Contains(err.Error(), srv.URL+"/x") || !strings.Contains(err.Error(), fmt.Sprint(tc.code)) {
				t.Errorf("error %q should name the URL and the status", err)
			}
		})
	}
	if _, ok := RetryAfter(errors.New("plain")); ok {
		t.Error("RetryAfter of a plain error: got ok")
	}
}

func TestGetErrorsNeverShowHeaders(t *testing.T) {
	const secret = "s3cr3t-t0ken"
	headers := map[string]string{"Authorization": "Bearer " + secret, "X-Api-Key": secret}
	page := fakehttp.NewFakePage()
	page.Set("/500", fakehttp.Route{Status: 500, Body: []byte(secret)})
	srv := fakehttp.NewServer(t, page)
	loop := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c := mustClient(t, ClientOptions{MaxBody: 3})

	for _, u := range []string{srv.URL + "/500", loop.URL + "/", dead.URL + "/x", "ftp://example.com/x"} {
		_, err := c.Get(context.Background(), u, model.EndpointState{ETag: secret}, headers)
		if err == nil {
			t.Fatalf("%s: got no error", u)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: error shows a header value: %v", u, err)
		}
	}
}

func TestGetRedirects(t *testing.T) {
	var hops atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			w.Write([]byte("{}"))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	srv := fakehttp.NewServer(t, mux)
	c := mustClient(t, ClientOptions{})

	r, err := c.Get(context.Background(), srv.URL+"/hop/5", model.EndpointState{}, nil)
	if err != nil {
		t.Fatalf("5 redirects: %v", err)
	}
	if r.FinalURL != srv.URL+"/hop/0" {
		t.Errorf("got FinalURL %q, want %q", r.FinalURL, srv.URL+"/hop/0")
	}
	if _, err := c.Get(context.Background(), srv.URL+"/hop/6", model.EndpointState{}, nil); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("6 redirects: got %v, want a redirect error", err)
	}
}

func TestGetRedirectToAnotherHostDropsHeaders(t *testing.T) {
	other := fakehttp.NewFakePage()
	other.Set("/x", fakehttp.Route{Body: []byte("{}")})
	otherSrv := fakehttp.NewServer(t, other)
	// 127.0.0.1 and localhost are different hosts to net/http.
	otherURL := strings.Replace(otherSrv.URL, "127.0.0.1", "localhost", 1)
	first := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+"/x", http.StatusFound)
	}))
	c := mustClient(t, ClientOptions{UserAgent: "ua-test"})
	if _, err := c.Get(context.Background(), first.URL, model.EndpointState{}, map[string]string{"X-Api-Key": "secret"}); err != nil {
		t.Fatal(err)
	}
	got := other.Requests()[0]
	if got.Header.Get("X-Api-Key") != "" || got.UserAgent != "ua-test" {
		t.Errorf("cross-host redirect: got X-Api-Key %q, User-Agent %q; want none, ua-test", got.Header.Get("X-Api-Key"), got.UserAgent)
	}
}

// TestGetClosesEveryBody checks that every response body is closed, whatever the outcome.
func TestGetClosesEveryBody(t *testing.T) {
	page := fakehttp.NewFakePage()
	page.Set("/ok", fakehttp.Route{Body: []byte(`{"a":1}`), ETag: `"e"`})
	page.Set("/404", fakehttp.Route{Status: 404, Body: []byte("nope")})
	page.Set("/429", fakehttp.Route{Status: 429, Body: []byte("slow down"), RetryAfter: "1"})
	page.Set("/big", fakehttp.Route{Body: []byte(strings.Repeat("x", 1000))})
	srv := fakehttp.NewServer(t, page)
	cc := &fakehttp.CloseCounter{RT: http.DefaultTransport}
	c := mustClient(t, ClientOptions{MaxBody: 100, Transport: cc})

	calls := []struct {
		path string
		prev model.EndpointState
	}{
		{"/ok", model.EndpointState{}},
		{"/ok", model.EndpointState{ETag: `"e"`}}, // 304
		{"/404", model.EndpointState{}},
		{"/429", model.EndpointState{}},
		{"/big", model.EndpointState{}},
	}
	for _, call := range calls {
		c.Get(context.Background(), srv.URL+call.path, call.prev, nil)
	}
	if o, cl := cc.Opened.Load(), cc.Closed.Load(); o != int64(len(calls)) || cl != o {
		t.Errorf("got %d bodies opened, %d closed; want %d and %d", o, cl, len(calls), len(calls))
	}
}

func TestGetTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer close(release)
	c := mustClient(t, ClientOptions{Timeout: 50 * time.Millisecond})
	_, err := c.Get(context.Background(), srv.URL, model.EndpointState{}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want a deadline error", err)
	}
}

// TestConcurrencyCaps holds requests inside the handler and checks that no more than the
// caps ever get there. The pause before releasing only gives a broken cap the chance to
// show; nothing is asserted about time.
func TestConcurrencyCaps(t *testing.T) {
	type counter struct{ now, max atomic.Int64 }
	var global counter
	perServer := map[string]*counter{}
	release := make(chan struct{})
	handler := func(name string) http.Handler {
		perServer[name] = &counter{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, ct := range []*counter{&global, perServer[name]} {
				n := ct.now.Add(1)
				for m := ct.max.Load(); n > m && !ct.max.CompareAndSwap(m, n); m = ct.max.Load() {
				}
			}
			<-release
			global.now.Add(-1)
			perServer[name].now.Add(-1)
			w.Write([]byte("{}"))
		})
	}
	a := fakehttp.NewServer(t, handler("a"))
	b := fakehttp.NewServer(t, handler("b"))
	cc := fakehttp.NewServer(t, handler("c"))
	c := mustClient(t, ClientOptions{Concurrency: 2, PerHost: 1})

	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		for _, s := range []*httptest.Server{a, b, cc} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Get(context.Background(), s.URL, model.EndpointState{}, nil); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	for global.now.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if got := global.max.Load(); got != 2 {
		t.Errorf("got %d requests in flight at most, want 2 (Concurrency)", got)
	}
	for name, ct := range perServer {
		if got := ct.max.Load(); got != 1 {
			t.Errorf("server %s: got %d requests in flight at most, want 1 (PerHost)", name, got)
		}
	}
}

func TestAcquireRespectsContext(t *testing.T) {
	c := mustClient(t, ClientOptions{Concurrency: 1, PerHost: 1})
	release, err := c.acquire(context.Background(), "h:80")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.acquire(ctx, "h:80"); !errors.Is(err, context.Canceled) {
		t.Errorf("busy host: got %v, want context.Canceled", err)
	}
	if _, err := c.acquire(ctx, "other:80"); !errors.Is(err, context.Canceled) {
		t.Errorf("global cap full: got %v, want context.Canceled", err)
	}
	release()
	c.mu.Lock()
	n := len(c.hosts)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("got %d host slots left after release, want 0", n)
	}
}

func TestNewClientCAFile(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusting client's handshake error is expected
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	good := filepath.Join(dir, "ca.pem")
	os.WriteFile(good, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	junk := filepath.Join(dir, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)

	if _, err := NewClient(ClientOptions{CAFile: filepath.Join(dir, "missing.pem")}); err == nil {
		t.Error("missing CA file: got no error")
	}
	if _, err := NewClient(ClientOptions{CAFile: junk}); err == nil {
		t.Error("CA file without a certificate: got no error")
	}
	// Without the bundle the test server's certificate is unknown; with it, trusted.
	plain := mustClient(t, ClientOptions{})
	if _, err := plain.Get(context.Background(), srv.URL, model.EndpointState{}, nil); err == nil {
		t.Error("no CA file: got no certificate error")
	}
	c := mustClient(t, ClientOptions{CAFile: good})
	if _, err := c.Get(context.Background(), srv.URL, model.EndpointState{}, nil); err != nil {
		t.Errorf("with CA file: %v", err)
	}
}

func TestBackoff(t *testing.T) {
	const m = time.Minute
	for _, tc := range []struct {
		interval time.Duration
		failures int
		base     time.Duration // before jitter
	}{
		{2 * m, 0, 0},
		{2 * m, 1, 2 * m},
		{2 * m, 2, 4 * m},
		{2 * m, 3, 8 * m},
		{2 * m, 4, 16 * m},
		{2 * m, 5, 30 * m}, // 32m capped
		{2 * m, 1000, 30 * m},
		{time.Hour, 1, 30 * m},
		{0, 3, 0},
	} {
		name := fmt.Sprintf("%v×%d", tc.interval, tc.failures)
		t.Run(name, func(t *testing.T) {
			lo := Backoff(tc.interval, tc.failures, func() float64 { return 0 })
			mid := Backoff(tc.interval, tc.failures, func() float64 { return 0.5 })
			hi := Backoff(tc.interval, tc.failures, func() float64 { return 0.999999 })
			if want := time.Duration(float64(tc.base) * 0.8); lo != want {
				t.Errorf("lowest jitter: got %v, want %v", lo, want)
			}
			if mid != tc.base {
				t.Errorf("middle jitter: got %v, want %v", mid, tc.base)
			}
			if limit := time.Duration(float64(tc.base) * 1.2); hi > limit || (tc.base > 0 && hi <= mid) {
				t.Errorf("highest jitter: got %v, want in (%v, %v]", hi, mid, limit)
			}
			for i := 0; i < 200; i++ {
				d := Backoff(tc.interval, tc.failures, nil)
				if d < lo || d > time.Duration(float64(tc.base)*1.2) {
					t.Fatalf("random jitter: got %v, want within ±20%% of %v", d, tc.base)
				}
			}
		})
	}
}

func TestHostPort(t *testing.T) {
	for in, want := range map[string]string{
		"http://Example.com/x":      "example.com:80",
		"https://example.com/x":     "example.com:443",
		"http://127.0.0.1:8080/":    "127.0.0.1:8080",
		"https://[::1]/status":      "[::1]:443",
		"https://status.example.io": "status.example.io:443",
	} {
		u, _ := url.Parse(in)
		if got := hostPort(u); got != want {
			t.Errorf("hostPort(%s): got %q, want %q", in, got, want)
		}
	}
}

// TestWeakLastModifiedIsNotAValidator: a Last-Modified within a second of the Date could
// hide a change made later in the same second, so it is not sent back as If-Modified-Since.
func TestWeakLastModifiedIsNotAValidator(t *testing.T) {
	date := time.Date(2026, 11, 20, 12, 0, 1, 0, time.UTC)
	tests := []struct {
		name     string
		lm, etag string
		wantIMS  bool
	}{
		{"same second as Date", date.Format(http.TimeFormat), "", false},
		{"same second, with an ETag", date.Format(http.TimeFormat), `"e1"`, false},
		{"a second before Date", date.Add(-time.Second).Format(http.TimeFormat), "", true},
		{"an hour before Date", date.Add(-time.Hour).Format(http.TimeFormat), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var ims []string
			srv := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				ims = append(ims, r.Header.Get("If-Modified-Since"))
				mu.Unlock()
				w.Header().Set("Date", date.Format(http.TimeFormat))
				w.Header().Set("Last-Modified", tt.lm)
				if tt.etag != "" {
					w.Header().Set("ETag", tt.etag)
				}
				w.Write([]byte(`{"a":1}`))
			}))
			c := mustClient(t, ClientOptions{})
			r1, err := c.Get(context.Background(), srv.URL, model.EndpointState{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r1.State.ETag != tt.etag {
				t.Errorf("got ETag %q remembered, want %q", r1.State.ETag, tt.etag)
			}
			if _, err := c.Get(context.Background(), srv.URL, r1.State, nil); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			want := ""
			if tt.wantIMS {
				want = tt.lm
			}
			if ims[1] != want {
				t.Errorf("second request: got If-Modified-Since %q, want %q", ims[1], want)
			}
		})
	}
}

// TestGetPastTheBuffers sends a request and gets an answer each larger than the
// transport's HTTP/1 buffers: a 6 KB header line each way (a vendor's
// Content-Security-Policy, a long ETag sent back) and a 300 KB body.
func TestGetPastTheBuffers(t *testing.T) {
	long := strings.Repeat("policy-", 900)
	body := []byte(`{"incidents":[],"pad":"` + strings.Repeat("x", 300<<10) + `"}`)
	var gotETag atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotETag.Store(r.Header.Get("If-None-Match"))
		w.Header().Set("Content-Security-Policy", long)
		w.Header().Set("ETag", `"`+long+`"`)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c := mustClient(t, ClientOptions{})
	r, err := c.Get(context.Background(), srv.URL+"/x.json", model.EndpointState{ETag: `"` + long + `"`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Body, body) || r.State.ETag != `"`+long+`"` {
		t.Errorf("got a body of %d bytes and an ETag of %d, want %d and %d", len(r.Body), len(r.State.ETag), len(body), len(long)+2)
	}
	if got, _ := gotETag.Load().(string); got != `"`+long+`"` {
		t.Errorf("the server got If-None-Match of %d bytes, want %d", len(got), len(long)+2)
	}
}
