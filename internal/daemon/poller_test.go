package daemon

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

type benchEnv struct {
	page   *fakepage.Statuspage
	poller *Poller
	src    *config.Source
	store  *archive.Store
	path   string
}

// newBenchEnv archives a 50-incident page once. With inMemory the client reaches the page
// without a socket, so a benchmark measures our side of the poll only.
func newBenchEnv(tb testing.TB, etags, inMemory bool) *benchEnv {
	tb.Helper()
	page := &fakepage.Statuspage{Name: "Bench", NoETag: !etags}
	srv := httptest.NewServer(page)
	tb.Cleanup(srv.Close)
	var transport http.RoundTripper
	if inMemory {
		transport = page.Transport()
	}
	path := filepath.Join(tb.TempDir(), "watcher.db")
	store, err := archive.Open(path, archive.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	client, err := fetch.NewClient(fetch.ClientOptions{UserAgent: "statuswatch/bench", MaxBody: 32 << 20, Timeout: 10 * time.Second, Concurrency: 4, PerHost: 4, Transport: transport})
	if err != nil {
		tb.Fatal(err)
	}
	page.Set(fakepage.FiftyIncidents(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)), nil)
	src := &config.Source{Name: "bench", URL: srv.URL, Kind: "statuspage", Maintenance: false, FailureThreshold: 3, Timeout: 10 * time.Second}
	p := &Poller{Store: store, Client: client, OnFirstPoll: "open"}
	if _, err := p.Poll(context.Background(), src); err != nil {
		tb.Fatal(err)
	}
	return &benchEnv{page, p, src, store, path}
}

func fileSize(tb testing.TB, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

func TestPollerUnchangedPollsWriteNothing(t *testing.T) {
	for _, etags := range []bool{true, false} {
		t.Run(fmt.Sprintf("etags=%v", etags), func(t *testing.T) {
			e := newBenchEnv(t, etags, false)
			size := fileSize(t, e.path)
			e.page.Requests()
			for range 3 {
				out, err := e.poller.Poll(context.Background(), e.src)
				if err != nil || out.Changes != 0 {
					t.Fatalf("unchanged poll: changes %d, err %v; want 0, nil", out.Changes, err)
				}
			}
			if got := fileSize(t, e.path); got != size {
				t.Errorf("archive grew from %d to %d bytes over unchanged polls", size, got)
			}
			for _, r := range e.page.Requests() {
				want := 200
				if etags {
					want = 304
				}
				if r.Path == "/api/v2/incidents.json" && r.Status != want {
					t.Errorf("%s answered %d, want %d", r.Path, r.Status, want)
				}
			}
		})
	}
}

func TestPollerNewBytesSameMeaning(t *testing.T) {
	e := newBenchEnv(t, true, false)
	e.page.SetName("Bench renamed") // new bytes in every body, same incidents
	out, err := e.poller.Poll(context.Background(), e.src)
	if err != nil || out.Changes != 0 {
		t.Fatalf("poll: changes %d, err %v; want 0, nil", out.Changes, err)
	}
	versions, err := e.store.Versions("bench", "inc0000")
	if err != nil || len(versions) != 1 {
		t.Errorf("inc0000 has %d versions (err %v), want 1", len(versions), err)
	}
}

func TestFilter(t *testing.T) {
	inc := func(kind model.Kind, impact model.Impact, comps ...string) *model.Incident {
		return &model.Incident{Kind: kind, Impact: impact, Components: comps}
	}
	tests := []struct {
		name string
		src  config.Source
		inc  *model.Incident
		want bool
	}{
		{"no filters", config.Source{Maintenance: true}, inc(model.KindIncident, model.ImpactMinor, "API"), true},
		{"paused", config.Source{Paused: true, Maintenance: true}, inc(model.KindIncident, model.ImpactMajor), false},
		{"below min impact", config.Source{MinImpact: model.ImpactMajor, Maintenance: true}, inc(model.KindIncident, model.ImpactMinor), false},
		{"unknown passes min impact", config.Source{MinImpact: model.ImpactCritical, Maintenance: true}, inc(model.KindIncident, model.ImpactUnknown), true},
		{"maintenance off", config.Source{Maintenance: false}, inc(model.KindMaintenance, model.ImpactMaintenance), false},
		{"component matches", config.Source{Components: []string{"API"}, Maintenance: true}, inc(model.KindIncident, model.ImpactMinor, "Web", "API"), true},
		{"component misses", config.Source{Components: []string{"API"}, Maintenance: true}, inc(model.KindIncident, model.ImpactMinor, "Web"), false},
		{"no components passes", config.Source{Components: []string{"API"}, Maintenance: true}, inc(model.KindIncident, model.ImpactMinor), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Filter(&tt.src)(tt.inc); got != tt.want {
				t.Errorf("Filter: got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWatchComponent(t *testing.T) {
	api := model.Component{Name: "API", Group: "Core"}
	tests := []struct {
		name string
		src  config.Source
		c    model.Component
		want bool
	}{
		{"no list watches all", config.Source{}, api, true},
		{"named", config.Source{Components: []string{"Web", "API"}}, api, true},
		{"its group named", config.Source{Components: []string{"Core"}}, api, true},
		{"not named", config.Source{Components: []string{"Web"}}, api, false},
		{"paused", config.Source{Paused: true}, api, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WatchComponent(&tt.src)(tt.c); got != tt.want {
				t.Errorf("WatchComponent: got %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkPollByteIdentical is a poll whose body is byte-identical to the last and comes
// without an ETag: one GET over loopback, a hash, no parse, nothing written (docs/design.md §8).
func BenchmarkPollByteIdentical(b *testing.B) {
	e := newBenchEnv(b, false, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.poller.Poll(ctx, e.src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPollNotModified is the same poll answered 304.
func BenchmarkPollNotModified(b *testing.B) {
	e := newBenchEnv(b, true, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.poller.Poll(ctx, e.src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPollNewBytesSameMeaning is a 50-incident body whose bytes change on every poll
// (the page name alternates) but whose incidents do not: fetch, parse, normalise, compare,
// and save the new validators.
func BenchmarkPollNewBytesSameMeaning(b *testing.B) {
	e := newBenchEnv(b, true, true)
	ctx := context.Background()
	names := []string{"Bench A", "Bench B"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		e.page.SetName(names[i%2])
		i++
		b.StartTimer()
		out, err := e.poller.Poll(ctx, e.src)
		if err != nil || out.Changes != 0 {
			b.Fatalf("changes %d, err %v", out.Changes, err)
		}
	}
}

// TestPollerRemembersStateOfUnchangedPolls checks the poll-state cache: kept after a poll
// that wrote nothing, dropped by any write, so a change, new validators and a failure
// all reach the next poll.
func TestPollerRemembersStateOfUnchangedPolls(t *testing.T) {
	e := newBenchEnv(t, true, false)
	ctx := context.Background()
	cached := func() bool { return e.poller.states.has("bench") }
	if cached() {
		t.Fatal("state cached after the first poll, which wrote versions")
	}
	poll := func(want int) {
		t.Helper()
		e.page.Requests()
		out, err := e.poller.Poll(ctx, e.src)
		if err != nil || out.Changes != want {
			t.Fatalf("poll: changes %d, err %v; want %d, nil", out.Changes, err, want)
		}
	}
	status := func() int {
		t.Helper()
		for _, r := range e.page.Requests() {
			if r.Path == "/api/v2/incidents.json" {
				return r.Status
			}
		}
		t.Fatal("incidents.json not requested")
		return 0
	}

	poll(0)
	if !cached() || status() != 304 {
		t.Fatal("unchanged poll: want a 304 and the state kept")
	}
	poll(0)
	if status() != 304 {
		t.Error("poll from the cached state: want a 304")
	}

	incs := fakepage.FiftyIncidents(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	incs[0].Name += " (updated)"
	e.page.Set(incs, nil)
	poll(1)
	if status() != 200 || cached() {
		t.Fatal("changed page: want a 200, a new version and the state dropped")
	}
	poll(0) // the new validators were saved, and are read from the archive
	if status() != 304 || !cached() {
		t.Fatal("after the change: want a 304 from the new ETag and the state kept")
	}

	e.page.FailNext(1)
	if _, err := e.poller.Poll(ctx, e.src); err == nil {
		t.Fatal("want the 500 to fail the poll")
	}
	if cached() {
		t.Error("state kept after a failure was recorded")
	}
	poll(0)
	infos, err := e.store.Sources()
	if err != nil || len(infos) != 1 || infos[0].Failures != 0 {
		t.Fatalf("after recovering: sources %+v, err %v; want 0 failures", infos, err)
	}
	if cached() {
		t.Error("state kept by the poll that wrote the recovery")
	}
	poll(0)
	if !cached() {
		t.Error("state not kept after a healthy unchanged poll")
	}
}
