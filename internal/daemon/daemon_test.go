package daemon

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// clock is a settable clock for the daemon.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestDaemon(t *testing.T, pageURL string, clk *clock) (*Daemon, *archive.Store) {
	t.Helper()
	return newDaemonWith(t, "listen: \"\"\nsources:\n  - name: acme\n    url: "+pageURL+"\n    kind: statuspage\n    schedule: \"*/2 * * * *\"\n", clk)
}

func TestBackoffSkipsTicks(t *testing.T) {
	page := &fakepage.Statuspage{}
	srv := httptest.NewServer(page)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, _ := newTestDaemon(t, srv.URL, clk)
	job := d.job("acme")

	page.FailNext(1000)
	job() // fails: next allowed after min(30m, 2m×2^0) ±20%
	if n := len(page.Requests()); n != 1 {
		t.Fatalf("first tick: %d requests, want 1", n)
	}
	clk.Add(90 * time.Second) // inside the 1m36s–2m24s wait
	job()
	if n := len(page.Requests()); n != 0 {
		t.Errorf("tick inside the backoff wait made %d requests, want 0", n)
	}
	if got := counterValue(t, d.metrics.reg, "watcher_polls_skipped_total", map[string]string{"source": "acme"}); got != 1 {
		t.Errorf("watcher_polls_skipped_total: got %v, want 1", got)
	}
	clk.Add(60 * time.Second) // past the wait
	job()
	if n := len(page.Requests()); n != 1 {
		t.Errorf("tick after the wait: %d requests, want 1", n)
	}
	// Second failure: the wait doubles to 4m ±20%.
	clk.Add(3 * time.Minute)
	job()
	if n := len(page.Requests()); n != 0 {
		t.Errorf("tick 3m after the second failure made %d requests, want 0 (wait ≥ 3m12s)", n)
	}
	page.FailNext(0)
	clk.Add(2 * time.Minute)
	job()
	st := d.Sources()[0]
	if st.ConsecutiveFailures != 0 || st.LastSuccessAt.IsZero() {
		t.Errorf("after recovery: %+v, want 0 failures and a last success", st)
	}
}

func TestRetryAfterSetsTheWait(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http429(&calls, "3600"))
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, _ := newTestDaemon(t, srv.URL, clk)
	job := d.job("acme")
	job()
	clk.Add(59 * time.Minute)
	job()
	if calls.Load() != 1 {
		t.Errorf("within Retry-After 3600: %d requests, want 1", calls.Load())
	}
	clk.Add(2 * time.Minute)
	job()
	if calls.Load() != 2 {
		t.Errorf("after Retry-After: %d requests, want 2", calls.Load())
	}
}

// TestRetryAfterIsCapped: a day's Retry-After waits 6 h, the cap the fetch client puts on
// every Retry-After, and no more.
func TestRetryAfterIsCapped(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http429(&calls, "86400"))
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, _ := newTestDaemon(t, srv.URL, clk)
	job := d.job("acme")
	for _, step := range []struct {
		after time.Duration
		want  int32
	}{
		{0, 1},
		{6*time.Hour - time.Minute, 1},
		{2 * time.Minute, 2},
	} {
		clk.Add(step.after)
		job()
		if got := calls.Load(); got != step.want {
			t.Errorf("after another %s: got %d requests, want %d", step.after, got, step.want)
		}
	}
}

func TestPausedSourceIsNotPolled(t *testing.T) {
	page := &fakepage.Statuspage{}
	srv := httptest.NewServer(page)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, _ := newTestDaemon(t, srv.URL, clk)
	cfg, err := config.Parse([]byte("listen: \"\"\nsources:\n  - name: acme\n    url: "+srv.URL+"\n    paused: true\n"), filepath.Join(t.TempDir(), "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.apply(cfg); err != nil {
		t.Fatal(err)
	}
	d.job("acme")()
	if n := len(page.Requests()); n != 0 {
		t.Errorf("paused source: %d requests, want 0", n)
	}
	if !d.Sources()[0].Paused {
		t.Errorf("paused source not reported paused")
	}
}

func TestHealthFollowsTheScheduler(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, _ := newTestDaemon(t, "http://127.0.0.1:1", clk)
	live := &clock{t: clk.Now()}
	d.liveClock = live.Now
	d.tick()
	if err := d.Health(); err != nil {
		t.Errorf("right after a tick: %v", err)
	}
	// The injected clock (the demo's replay) jumping ahead is no stall.
	clk.Add(3 * time.Hour)
	if err := d.Health(); err != nil {
		t.Errorf("after the poll clock jumped 3h: got %v, want healthy", err)
	}
	live.Add(5 * time.Minute)
	if err := d.Health(); err == nil || !strings.Contains(err.Error(), "scheduler stalled") {
		t.Errorf("5m without a tick: got %v, want scheduler stalled", err)
	}
}

// TestArchiveFailureIsNotTheVendors: a poll that fails because the archive does (here a
// closed archive: no transaction can start) is not counted against the source: no
// last_error, no failure, no backoff; the metric says archive_error.
func TestArchiveFailureIsNotTheVendors(t *testing.T) {
	page := &fakepage.Statuspage{}
	srv := httptest.NewServer(page)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, store := newTestDaemon(t, srv.URL, clk)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	job := d.job("acme")
	job()
	job()
	st := d.Sources()[0]
	if st.LastError != "" || st.ConsecutiveFailures != 0 {
		t.Errorf("after archive failures: last_error %q, %d failures; want none", st.LastError, st.ConsecutiveFailures)
	}
	if got := counterValue(t, d.metrics.reg, "watcher_polls_skipped_total", map[string]string{"source": "acme"}); got != 0 {
		t.Errorf("polls skipped in backoff: got %v, want 0", got)
	}
	if got := counterValue(t, d.metrics.reg, "watcher_polls_total", map[string]string{"source": "acme", "result": "archive_error"}); got != 2 {
		t.Errorf(`watcher_polls_total{result="archive_error"}: got %v, want 2`, got)
	}
}
