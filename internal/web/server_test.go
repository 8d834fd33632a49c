package web

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHealthz(t *testing.T) {
	e := newEnv(t)
	r := e.get("/healthz", http.StatusOK)
	if string(r.body) != "ok" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Errorf("got %q (%s), want ok as text", r.body, r.header.Get("Content-Type"))
	}
	e.daemon.HealthFn = func() error { return errors.New("scheduler stalled: last tick 42s ago") }
	r = e.get("/healthz", http.StatusServiceUnavailable)
	if want := "unhealthy: scheduler stalled: last tick 42s ago\n"; string(r.body) != want {
		t.Errorf("got %q, want %q", r.body, want)
	}
	if r := e.do(http.MethodHead, "/healthz", nil); r.status != http.StatusServiceUnavailable {
		t.Errorf("HEAD: got %d, want 503", r.status)
	}
}

func TestUnrouted(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, method, path string
		want               int
		wantAllow          string
	}{
		{"unknown API path", "GET", "/api/v1/nope", http.StatusNotFound, ""},
		{"unknown API version", "GET", "/api/v2/incidents", http.StatusNotFound, ""},
		{"trailing segment", "GET", "/api/v1/incidents/acme/inc-a/versions/1/more", http.StatusNotFound, ""},
		{"wrong method on a list", "DELETE", "/api/v1/sources", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"wrong method on the backup", "POST", "/api/v1/backup", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"no metrics handler", "GET", "/metrics", http.StatusNotFound, ""},
		{"unknown path outside the API, not from a browser", "GET", "/nope", http.StatusNotFound, ""},
		{"wrong method on a page, not from a browser", "POST", "/search", http.StatusMethodNotAllowed, "GET, HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.method, tt.path, nil)
			if r.status != tt.want || r.header.Get("Allow") != tt.wantAllow {
				t.Errorf("got %d Allow %q, want %d Allow %q", r.status, r.header.Get("Allow"), tt.want, tt.wantAllow)
			}
			if r.header.Get("Content-Type") != contentTypeJSON {
				t.Errorf("Content-Type: got %q", r.header.Get("Content-Type"))
			}
			errorOf(t, r)
		})
	}
}

func TestArchiveFailure(t *testing.T) {
	e := newEnv(t).seed()
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/incidents", "/api/v1/sources", "/api/v1/incidents/acme/inc-a"} {
		r := e.get(path, http.StatusInternalServerError)
		if got := errorOf(t, r); strings.Contains(got, e.store.Path()) || strings.Contains(got, "database not open") {
			t.Errorf("%s: the error tells internals: %q", path, got)
		}
	}
	if logs := e.logs.String(); !strings.Contains(logs, "database not open") {
		t.Errorf("the cause was not logged: %s", logs)
	}
}

func TestServe(t *testing.T) {
	e := newEnv(t).seed()
	ln, cancel, done := e.serve()

	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Errorf("healthz: got %d %q", resp.StatusCode, body)
	}
	resp, err = http.Get("http://" + ln.Addr().String() + "/api/v1/backup")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n == 0 {
		t.Errorf("backup over a real server: %d bytes, %v", n, err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: got %v, want nil after shutdown", err)
		}
	case <-time.After(shutdownTimeout + 5*time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Errorf("still serving after shutdown")
	}
}

// serve runs the server's Serve on a loopback listener; cancel ends it, and done gives
// what it returned.
func (e *env) serve() (ln net.Listener, cancel context.CancelFunc, done <-chan error) {
	e.tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() { ch <- e.srv.Serve(ctx, ln) }()
	return ln, cancel, ch
}

func TestServeListenerFailure(t *testing.T) {
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := e.srv.Serve(context.Background(), ln); err == nil {
		t.Errorf("Serve on a closed listener: got nil, want an error")
	}
}
