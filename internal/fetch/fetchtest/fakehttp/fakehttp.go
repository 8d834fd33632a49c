// Package fakehttp is the HTTP side of the fetch tests: a programmable status page that
// logs every request, a test server, and a transport that counts closed bodies. It
// imports nothing of ours, so the fetch package's own tests use it too (fetchtest, which
// builds on fetch, they cannot import).
package fakehttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// NewServer starts an httptest server for h, closed at the end of the test.
func NewServer(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	s := httptest.NewServer(h)
	tb.Cleanup(s.Close)
	return s
}

// Seen is one request as a test server received it.
type Seen struct {
	Path            string
	IfNoneMatch     string
	IfModifiedSince string
	UserAgent       string
	Header          http.Header
}

// Route is what a FakePage answers on one path.
type Route struct {
	Status       int
	Body         []byte
	ContentType  string // default application/json
	ETag         string // sent with 200; a matching If-None-Match gets a 304
	LastModified string
	RetryAfter   string
}

// FakePage is a programmable status page: a Route per path, a log of every
// request. Unknown paths answer 404.
type FakePage struct {
	mu     sync.Mutex
	routes map[string]Route
	log    []Seen
}

// NewFakePage returns a FakePage with no route.
func NewFakePage() *FakePage {
	return &FakePage{routes: map[string]Route{}}
}

// Set makes the page answer r on path.
func (f *FakePage) Set(path string, r Route) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[path] = r
}

// Requests returns the requests so far and forgets them.
func (f *FakePage) Requests() []Seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.log
	f.log = nil
	return out
}

// Paths returns the paths requested so far and forgets the requests.
func (f *FakePage) Paths() []string {
	var p []string
	for _, s := range f.Requests() {
		p = append(p, s.Path)
	}
	return p
}

// ServeHTTP answers the route of the path, else 404.
func (f *FakePage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.log = append(f.log, Seen{
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

// CloseCounter is a transport wrapper that counts response bodies handed out and closed,
// so a test can check that every path closes what it opened.
type CloseCounter struct {
	RT             http.RoundTripper
	Opened, Closed atomic.Int64
}

// RoundTrip counts the response body it hands out and wraps it to count its Close.
func (c *CloseCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.RT.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	c.Opened.Add(1)
	resp.Body = &countedBody{ReadCloser: resp.Body, n: &c.Closed}
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
