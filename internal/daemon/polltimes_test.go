package daemon

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fetch"
)

// TestPollTimesSurviveARestart: the last poll times are saved at a clean shutdown and at
// the end of a `watcher poll` round that wrote anyway, and shown after a restart, marked
// as from before it, until the first poll of the new process.
func TestPollTimesSurviveARestart(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set([]fakepage.Incident{{ID: "i1", Name: "API errors", Status: "investigating", Impact: "major",
		CreatedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	dir := t.TempDir()
	cfg, err := config.Parse([]byte("listen: \"\"\nsources:\n  - name: acme\n    url: "+srv.URL+"\n    kind: statuspage\n    schedule: \"@every 1h\"\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := archive.Open(filepath.Join(dir, "watcher.db"), archive.Options{NoSync: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })

	// start runs a daemon, lets do act on it, and stops it cleanly.
	start := func(do func(d *Daemon)) *Daemon {
		t.Helper()
		d, err := New(Options{Config: cfg, Store: store, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- d.Run(ctx) }()
		do(d)
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return d
	}
	status := func(d *Daemon) (polled, succeeded time.Time, before bool) {
		st := d.Sources()[0]
		return st.LastPollAt, st.LastSuccessAt, st.LastSuccessBeforeRestart
	}
	round := func() {
		client, err := fetch.NewClient(ClientOptions(cfg))
		if err != nil {
			t.Fatal(err)
		}
		p := &Poller{Store: store, Client: client, OnFirstPoll: cfg.OnFirstPoll, Now: clk.Now}
		for _, r := range p.Round(t.Context(), []*config.Source{&cfg.Sources[0]}, 1) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}

	t10 := clk.Now()
	start(func(d *Daemon) {
		if _, err := d.PollNow(t.Context(), "acme"); err != nil {
			t.Fatal(err)
		}
	})
	clk.Add(time.Hour)
	start(func(d *Daemon) {
		polled, succeeded, before := status(d)
		if !polled.Equal(t10) || !succeeded.Equal(t10) || !before {
			t.Errorf("after a restart: got last poll %v, last success %v, before restart %v; want %v, %v, true", polled, succeeded, before, t10, t10)
		}
		clk.Add(time.Minute)
		d.PollNow(t.Context(), "acme") // unchanged: writes nothing
		polled, succeeded, before = status(d)
		if want := t10.Add(61 * time.Minute); !polled.Equal(want) || !succeeded.Equal(want) || before {
			t.Errorf("after a poll of the new process: got %v, %v, before restart %v; want %v, %v, false", polled, succeeded, before, want, want)
		}
	})

	// `watcher poll` rounds: one that changes nothing writes nothing, one that wrote saves
	// its times.
	clk.Add(time.Hour)
	round() // unchanged
	start(func(d *Daemon) {
		if polled, _, _ := status(d); !polled.Equal(t10.Add(61 * time.Minute)) {
			t.Errorf("after an unchanged round: last poll %v, want the daemon's %v", polled, t10.Add(61*time.Minute))
		}
	})
	clk.Add(time.Hour)
	resolved := clk.Now()
	page.Set([]fakepage.Incident{{ID: "i1", Name: "API errors", Status: "resolved", Impact: "major",
		CreatedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), UpdatedAt: resolved, ResolvedAt: &resolved}}, nil) // the round writes
	t13 := clk.Now()
	round()
	start(func(d *Daemon) {
		if polled, succeeded, before := status(d); !polled.Equal(t13) || !succeeded.Equal(t13) || !before {
			t.Errorf("after a round that wrote: got %v, %v, before restart %v; want %v, %v, true", polled, succeeded, before, t13, t13)
		}
	})
}
