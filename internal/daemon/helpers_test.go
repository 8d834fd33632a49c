package daemon

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
)

// http429 answers every request 429 with the given Retry-After, counting them.
func http429(calls *atomic.Int32, retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", retryAfter)
		http.Error(w, "slow down", http.StatusTooManyRequests)
	}
}

// newDaemonWith builds a daemon of cfgText over a new archive, on clk, with no HTTP;
// its polls run under the test's context.
func newDaemonWith(t testing.TB, cfgText string, clk *clock) (*Daemon, *archive.Store) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := config.Parse([]byte(cfgText), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := archive.Open(filepath.Join(dir, "watcher.db"), archive.Options{NoSync: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	d, err := New(Options{Config: cfg, Store: store, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	d.pollCtx = t.Context()
	return d, store
}

// job is a tick of name's schedule, as cron runs it.
func (d *Daemon) job(name string) func() { return sourceJob{d, name}.Run }

// manySources is a config of head then n sources, s0 to s(n-1), at https://sI.test, all
// of kind on schedule.
func manySources(head string, n int, kind, schedule string) string {
	var cfg strings.Builder
	cfg.WriteString(head + "sources:\n")
	for i := range n {
		fmt.Fprintf(&cfg, "  - name: s%d\n    url: https://s%d.test\n    kind: %s\n    schedule: %q\n", i, i, kind, schedule)
	}
	return cfg.String()
}
