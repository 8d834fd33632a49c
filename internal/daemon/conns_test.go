package daemon

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// The client keeps idle connections as long as the longest schedule waits between polls
// (plus a margin), and sizes its TLS session cache to the hosts polled.
func TestClientOptionsFromSchedules(t *testing.T) {
	cfg, err := config.Parse([]byte(`listen: ""
http:
  concurrency: 8
  post_quantum: true
sources:
  - name: a
    url: https://a.example.com
    kind: statuspage
    schedule: "@every 1m"
  - name: b
    url: https://b.example.com
    kind: statuspage
    schedule: "*/5 * * * *"
  - name: b2
    url: https://b.example.com/other
    kind: statuspage
  - name: c
    url: https://c.example.com
    kind: statuspage
    schedule: "0 * * * *"
    paused: true
`), filepath.Join(t.TempDir(), "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o := ClientOptions(cfg)
	if want := 5*time.Minute + idleMargin; o.IdleTimeout != want {
		t.Errorf("idle timeout %v, want %v (the longest unpaused interval plus the margin)", o.IdleTimeout, want)
	}
	if o.Sessions != 3 || o.MaxIdle != 16 {
		t.Errorf("%d sessions, %d idle connections; want 3 (one per host) and 16 (2 × concurrency)", o.Sessions, o.MaxIdle)
	}
	if !o.PostQuantum {
		t.Error("http.post_quantum not passed on to the client")
	}
}

// A poll waits for one of the http.concurrency slots before it fetches anything: the
// cold polls of a round cannot all hold their bodies and snapshots at once.
func TestPollsWaitForASlot(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	srv := httptest.NewServer(page)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	d, _ := newDaemonWith(t, "listen: \"\"\nhttp:\n  concurrency: 2\nsources:\n  - name: acme\n    url: "+srv.URL+"\n    kind: statuspage\n", clk)
	if cap(d.slots) != 2 {
		t.Fatalf("%d slots, want 2 (http.concurrency)", cap(d.slots))
	}
	d.slots <- struct{}{}
	d.slots <- struct{}{} // every slot taken
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := d.pollSource(ctx, d.sources["acme"]); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("poll with every slot taken: %v, want it to wait until its context ends", err)
	}
	if n := len(page.Requests()); n != 0 {
		t.Errorf("the page got %d requests while every slot was taken, want 0", n)
	}
	<-d.slots
	if _, err := d.pollSource(t.Context(), d.sources["acme"]); err != nil {
		t.Fatal(err)
	}
	if n := len(page.Requests()); n == 0 || len(d.slots) != 1 {
		t.Errorf("with a slot free: %d requests, %d slots taken after; want some, and the slot given back", n, len(d.slots))
	}
}
