package daemon

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// runsWithin counts the runs of s in (from, from+span].
func runsWithin(s cron.Schedule, from time.Time, span time.Duration) int {
	n := 0
	for t := s.Next(from); !t.After(from.Add(span)); t = s.Next(t) {
		n++
	}
	return n
}

// While an incident is open a source's schedule runs at least every open_interval, on
// whole seconds; otherwise its own schedule alone; 0 turns the follow-ups off.
func TestFollowUpsSchedule(t *testing.T) {
	s, err := config.ParseSchedule("@every 5m")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 2, 10, 0, 7, 0, time.UTC)
	own := jitter(s, "acme", 5*time.Minute)
	var open atomic.Bool
	f := withFollowUps(own, "acme", 30*time.Second, &open)
	if got, want := runsWithin(f, t0, time.Hour), runsWithin(own, t0, time.Hour); got != want || want != 12 {
		t.Errorf("nothing open: %d runs in an hour, want the schedule's %d (12)", got, want)
	}
	open.Store(true)
	prev := t0
	for range 200 {
		next := f.Next(prev)
		if gap := next.Sub(prev); gap <= 0 || gap > 30*time.Second || next.Nanosecond() != 0 {
			t.Fatalf("open: next run after %v is %v (%v later); want within 30s, on a whole second", prev, next, gap)
		}
		prev = next
	}
	// The schedule's own runs still happen (no follow-up replaces them).
	for r := own.Next(t0); r.Before(prev); r = own.Next(r) {
		if f.Next(r.Add(-time.Nanosecond)) != r {
			t.Errorf("open: the schedule's run at %v was dropped", r)
		}
	}
	if g := withFollowUps(own, "acme", 0, &open); g != own {
		t.Errorf("open_interval 0: got %T, want the schedule itself", g)
	}
}

// A poll that finds an open incident makes the source due every open_interval; the poll
// that finds it resolved returns it to its schedule; a Retry-After wait still wins.
func TestOpenIncidentPolledEveryOpenInterval(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	var limited atomic.Bool
	var limitedCalls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if limited.Load() {
			http429(&limitedCalls, "600")(w, r)
			return
		}
		page.ServeHTTP(w, r)
	}))
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	d, _ := newDaemonWith(t, "listen: \"\"\ndefaults:\n  open_interval: 30s\nsources:\n  - name: acme\n    url: "+srv.URL+"\n    kind: statuspage\n    schedule: \"@every 5m\"\n", clk)
	st := d.sources["acme"]
	runs := func() int {
		t.Helper()
		d.mu.RLock()
		defer d.mu.RUnlock()
		return runsWithin(d.cron.Entry(st.entry).Schedule, clk.Now(), 5*time.Minute)
	}
	if n := runs(); n != 1 {
		t.Fatalf("before any poll: %d runs in 5 minutes, want 1", n)
	}

	at := clk.Now().Add(-time.Hour)
	inc := fakepage.Incident{
		ID: "inc1", Name: "API errors", Status: "investigating", Impact: "major",
		CreatedAt: at, UpdatedAt: at, StartedAt: at,
		Updates: []fakepage.Update{{ID: "u1", Status: "investigating", Body: "We are looking into errors.", CreatedAt: at, UpdatedAt: at, DisplayAt: at}},
	}
	page.Set([]fakepage.Incident{inc}, nil)
	if _, err := d.pollSource(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	if n := runs(); n < 10 {
		t.Errorf("incident open: %d runs in 5 minutes, want at least 10 (every 30s)", n)
	}

	// Retry-After wins over the follow-ups: the ticks inside its wait poll nothing.
	limited.Store(true)
	clk.Add(30 * time.Second)
	d.job("acme")()
	if limitedCalls.Load() != 1 {
		t.Fatalf("%d requests answered 429, want 1", limitedCalls.Load())
	}
	for range 4 {
		clk.Add(30 * time.Second)
		d.job("acme")()
	}
	if n := limitedCalls.Load(); n != 1 {
		t.Errorf("follow-up ticks inside a 10-minute Retry-After made %d requests, want none", n-1)
	}
	if got := counterValue(t, d.metrics.reg, "watcher_polls_skipped_total", map[string]string{"source": "acme"}); got != 4 {
		t.Errorf("skipped ticks: %v, want 4", got)
	}
	limited.Store(false)
	clk.Add(10 * time.Minute)

	resolvedAt := clk.Now()
	inc.Status, inc.ResolvedAt, inc.UpdatedAt = "resolved", &resolvedAt, resolvedAt
	inc.Updates = append([]fakepage.Update{{ID: "u2", Status: "resolved", Body: "Fixed.", CreatedAt: resolvedAt, UpdatedAt: resolvedAt, DisplayAt: resolvedAt}}, inc.Updates...)
	page.Set([]fakepage.Incident{inc}, nil)
	if _, err := d.pollSource(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	if st.open.Load() {
		t.Fatal("the incident resolved, the source still counts as open")
	}
	if n := runs(); n != 1 {
		t.Errorf("resolved: %d runs in 5 minutes, want 1 (the schedule's)", n)
	}
}
