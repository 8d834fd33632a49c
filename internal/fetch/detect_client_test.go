package fetch

// Detection's requests go through the Client's request path: its User-Agent, its slots,
// its timeout (the body cap is TestDetectBodyCap's), and each one counts against the
// detection's budget. Every test here fails when detection makes its requests some other
// way.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest/fakehttp"
	"github.com/statuswatch/statuswatch/internal/model"
)

var detectHTML = []byte(`<!DOCTYPE html><html><head><title>Acme Status</title></head><body></body></html>`)

func noRules(string) (string, bool) { return "", false }

// TestDetectSendsClientUserAgentAndHeaders: every request of a detection carries the
// client's User-Agent and the source's headers, and none is conditional.
func TestDetectSendsClientUserAgentAndHeaders(t *testing.T) {
	var mu sync.Mutex
	var bad []string
	n := 0
	srv := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		if ua, key := r.Header.Get("User-Agent"), r.Header.Get("X-Api-Key"); ua != "ua-detect/1" || key != "k-1" {
			bad = append(bad, fmt.Sprintf("%s (User-Agent %q, X-Api-Key %q)", r.URL.Path, ua, key))
		}
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			bad = append(bad, r.URL.Path+" is conditional")
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write(detectHTML)
	}))
	c := mustClient(t, ClientOptions{UserAgent: "ua-detect/1"})
	d := &Detector{Client: c, HostRules: noRules, Headers: map[string]string{"X-Api-Key": "k-1"}}
	if _, err := d.Detect(context.Background(), srv.URL+"/"); !errors.Is(err, ErrNotDetected) {
		t.Fatalf("got %v, want ErrNotDetected", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n < 2 {
		t.Errorf("%d requests, want the page and its probes", n)
	}
	for _, b := range bad {
		t.Errorf("request %s", b)
	}
}

// TestDetectWaitsForTheClientSlots: a detection waits for the per-host and the global
// slots like a poll does; with them all held, it makes no request before its context ends.
// (The per-host cap is the transport's MaxConnsPerHost too, so only the global case tells
// a detection that skips the slots but keeps the client's transport.)
func TestDetectWaitsForTheClientSlots(t *testing.T) {
	for _, tc := range []struct {
		name      string
		o         ClientOptions
		otherHost bool // the detection reads another host than the held request
	}{
		{"per host", ClientOptions{PerHost: 1}, false},
		{"over all hosts", ClientOptions{Concurrency: 1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entered := make(chan struct{}, 1)
			held := make(chan struct{})
			var hits atomic.Int64
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/held" {
					entered <- struct{}{}
					<-held
					return
				}
				hits.Add(1)
				w.Write(detectHTML)
			})
			srv := fakehttp.NewServer(t, h)
			target := srv
			if tc.otherHost {
				target = fakehttp.NewServer(t, h)
			}
			release := sync.OnceFunc(func() { close(held) })
			t.Cleanup(release) // before the servers close, which waits for the handler

			c := mustClient(t, tc.o)
			done := make(chan error, 1)
			go func() {
				_, err := c.Get(context.Background(), srv.URL+"/held", model.EndpointState{}, nil)
				done <- err
			}()
			<-entered

			d := &Detector{Client: c, HostRules: noRules}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			_, err := d.Detect(ctx, target.URL+"/")
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("with the slot held: got %v, want the context's deadline", err)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("with the slot held: %d requests reached the server, want 0", n)
			}

			release()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if _, err := d.Detect(context.Background(), target.URL+"/"); !errors.Is(err, ErrNotDetected) {
				t.Errorf("with the slot free: got %v, want ErrNotDetected", err)
			}
			if hits.Load() == 0 {
				t.Error("with the slot free: no request reached the server")
			}
		})
	}
}

// TestDetectTimeout: a page that sends its headers and then stalls is cut off by the
// client's timeout, which bounds the whole exchange, body included.
func TestDetectTimeout(t *testing.T) {
	srv := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!DOCTYPE html>"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}))
	d := &Detector{Client: mustClient(t, ClientOptions{Timeout: 200 * time.Millisecond}), HostRules: noRules}
	start := time.Now()
	_, err := d.Detect(context.Background(), srv.URL+"/")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s, want the 200ms timeout to cut the page off", took)
	}
	if err == nil || errors.Is(err, ErrNotDetected) || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("got %v, want the page's read to time out", err)
	}
}

// TestDetectBudget: each request counts against the detection's budget, and the probes
// stop when it is spent.
func TestDetectBudget(t *testing.T) {
	const kind = "budget-test"
	p := Platform{Kind: kind, Poll: func(*Poll, context.Context) (*model.Snapshot, error) { return nil, nil }} // detection never polls
	for i := range 2 * maxDetectRequests {
		p.Probes = append(p.Probes, Probe{Order: 1000 + i, Rel: fmt.Sprintf("budget-%d.json", i), Check: func(string, []byte) (string, string, string) {
			return "", "", ""
		}})
	}
	registry[kind] = p
	t.Cleanup(func() { delete(registry, kind) })

	var hits atomic.Int64
	srv := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(detectHTML)
	}))
	d := &Detector{Client: mustClient(t, ClientOptions{}), HostRules: noRules}
	_, err := d.Detect(context.Background(), srv.URL+"/")
	if want := fmt.Sprintf("stopped after %d requests", maxDetectRequests); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want it to say %q", err, want)
	}
	if n := hits.Load(); n != maxDetectRequests {
		t.Errorf("%d requests, want the budget's %d", n, maxDetectRequests)
	}
}
