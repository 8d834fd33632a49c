package fetch

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// mustClient builds a Client for tests, failing the test on error.
func mustClient(tb testing.TB, o ClientOptions) *Client {
	tb.Helper()
	c, err := NewClient(o)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// seen is one request as a test server received it.
type seen struct {
	Path            string
	IfNoneMatch     string
	IfModifiedSince string
	UserAgent       string
	Header          http.Header
}

// route is what a fakePage answers on one path.
type route struct {
	Status       int
	Body         []byte
	ContentType  string // default application/json
	ETag         string // sent with 200; a matching If-None-Match gets a 304
	LastModified string
	RetryAfter   string
}

// fakePage is a programmable status page: a route per path, a log of every
// request. Unknown paths answer 404.
type fakePage struct {
	mu     sync.Mutex
	routes map[string]route
	log    []seen
}

func newFakeStatuspage() *fakePage {
	return &fakePage{routes: map[string]route{}}
}

func (f *fakePage) set(path string, r route) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[path] = r
}

// requests returns the requests so far and forgets them.
func (f *fakePage) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.log
	f.log = nil
	return out
}

func (f *fakePage) paths() []string {
	var p []string
	for _, s := range f.requests() {
		p = append(p, s.Path)
	}
	return p
}

func (f *fakePage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.log = append(f.log, seen{
		Path:            r.URL.Path,
		IfNoneMatch:     r.Header.Get("If-None-Match"),
		IfModifiedSince: r.Header.Get("If-Modified-Since"),
		UserAgent:       r.UserAgent(),
		Header:          r.Header.Clone(),
	})
	rt, ok := f.routes[r.URL.Path]
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if rt.RetryAfter != "" {
		w.Header().Set("Retry-After", rt.RetryAfter)
	}
	if rt.ETag != "" {
		w.Header().Set("ETag", rt.ETag)
	}
	if rt.LastModified != "" {
		w.Header().Set("Last-Modified", rt.LastModified)
	}
	if rt.ETag != "" && r.Header.Get("If-None-Match") == rt.ETag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	ct := rt.ContentType
	if ct == "" {
		ct = "application/json; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	if rt.Status != 0 {
		w.WriteHeader(rt.Status)
	}
	w.Write(rt.Body)
}

// closeCounter is a transport wrapper that counts response bodies handed out and closed,
// so a test can check that every path closes what it opened.
type closeCounter struct {
	rt             http.RoundTripper
	opened, closed atomic.Int64
}

func (c *closeCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	resp.Body = &countedBody{ReadCloser: resp.Body, n: &c.closed}
	return resp, nil
}

type countedBody struct {
	io.ReadCloser
	n    *atomic.Int64
	once sync.Once
}

func (b *countedBody) Close() error {
	b.once.Do(func() { b.n.Add(1) })
	return b.ReadCloser.Close()
}

// newServer starts an httptest server for h, closed at the end of the test.
func newServer(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	s := httptest.NewServer(h)
	tb.Cleanup(s.Close)
	return s
}
