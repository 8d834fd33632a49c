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
)

// TestTitleIsThePageName: a source without a configured title is shown by the page's own
// name once a poll has read it, after a restart too; a configured title wins.
func TestTitleIsThePageName(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Emma"}
	srv := httptest.NewServer(page)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	dir := t.TempDir()
	store, err := archive.Open(filepath.Join(dir, "watcher.db"), archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	newDaemon := func(title string) *Daemon {
		t.Helper()
		yaml := "listen: \"\"\nsources:\n  - name: emma\n    url: " + srv.URL + "\n    kind: statuspage\n"
		if title != "" {
			yaml += "    title: " + title + "\n"
		}
		cfg, err := config.Parse([]byte(yaml), filepath.Join(dir, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := New(Options{Config: cfg, Store: store, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		d.pollCtx = context.Background()
		return d
	}
	check := func(when string, d *Daemon, want string) {
		t.Helper()
		if got := d.title("emma"); got != want {
			t.Errorf("%s: got title %q, want %q", when, got, want)
		}
		if got := d.Sources()[0].Title; got != want {
			t.Errorf("%s: got status title %q, want %q", when, got, want)
		}
	}

	d := newDaemon("")
	check("before any poll", d, "emma")
	d.job("emma")()
	check("after a poll", d, "Emma")
	clk.Add(2 * time.Minute)
	d.job("emma")() // unchanged: the name is not read again, and stays
	check("after an unchanged poll", d, "Emma")

	check("after a restart", newDaemon(""), "Emma")
	check("with a configured title", newDaemon("Emma Cloud"), "Emma Cloud")
}
