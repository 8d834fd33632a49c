package archive

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/testbin"
	bolt "go.etcd.io/bbolt"
)

// rssFile is this process's resident file-backed memory, in KiB.
func rssFile(t *testing.T) int {
	t.Helper()
	return int(testbin.ProcStatus(t, os.Getpid(), "RssFile") >> 10)
}

// TestReleasePages reads a 20 MB archive through its mapping, releases the pages while
// other goroutines keep reading, and checks the mapping left the RSS and every read still
// sees the right data.
func TestReleasePages(t *testing.T) {
	testbin.RequireMappedRssFile(t, t.TempDir())
	ts := MustOpen(t)
	// Random letters: versions are stored S2-compressed, and repetitive bodies (400 of
	// "wordN " repeated) shrank to some 600 KiB of archive, too little mapped for the test
	// to run. No word breaks, so each body gives the search index one term, not thousands.
	const n, size = 400, 50_000
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rnd := rand.New(rand.NewPCG(5, 6))
	bodies := make([]string, n)
	var incs []model.Incident
	for i := range bodies {
		b := make([]byte, size)
		for j := range b {
			b[j] = letters[rnd.IntN(len(letters))]
		}
		bodies[i] = string(b)
		incs = append(incs, inc(fmt.Sprintf("i%03d", i), func(in *model.Incident) { in.Updates[0].Body = bodies[i] }))
	}
	ts.record(snap(t0, incs...), all, nil)
	// Recording maps pages too; start from none so that what reading maps is measured.
	if err := ts.ReleasePages(); err != nil {
		t.Fatal(err)
	}

	read := func() error {
		for i := range n {
			v, err := ts.Version("acme", fmt.Sprintf("i%03d", i), 1)
			if err != nil {
				return err
			}
			if got := v.Incident.Updates[0].Body; got != bodies[i] {
				return fmt.Errorf("i%03d: body of %d bytes is not the one recorded (%d bytes)", i, len(got), len(bodies[i]))
			}
		}
		return nil
	}
	before := rssFile(t)
	if err := read(); err != nil {
		t.Fatal(err)
	}
	mapped := rssFile(t) - before
	if mapped < 10<<10 {
		t.Fatalf("reading the archive mapped only %d KiB: the release before it left the pages mapped, or the archive is smaller than its 20 MB", mapped)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); {
				if err := read(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 20 {
		if err := ts.ReleasePages(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("read while releasing: %v", err)
	}

	if err := ts.ReleasePages(); err != nil {
		t.Fatal(err)
	}
	left := rssFile(t) - before
	t.Logf("reading mapped %d KiB of the archive; %d KiB left after ReleasePages", mapped, left)
	if left > mapped/4 {
		t.Errorf("after ReleasePages %d KiB of the %d KiB mapped by reading are still resident", left, mapped)
	}
	if err := read(); err != nil {
		t.Fatalf("read after release: %v", err)
	}
}

// TestPollStatesReleasePages: the walk over every source's poll state (the daemon's start
// reads every source's page name through it) lets go of the pages it mapped as it goes,
// and reads the same states as a walk that keeps them.
func TestPollStatesReleasePages(t *testing.T) {
	testbin.RequireMappedRssFile(t, t.TempDir())
	ts := MustOpen(t)
	const n = 600
	names := recordSourcesApart(t, ts, n, rand.New(rand.NewPCG(1, 2)), func(i int) (model.FetchState, []model.Incident) {
		state := model.FetchState{"incidents": {ETag: fmt.Sprintf(`"etag-%d"`, i)}}
		state.SetPageTitle(fmt.Sprintf("Vendor %d", i))
		return state, []model.Incident{inc("i1")}
	})
	if err := ts.ReleasePages(); err != nil {
		t.Fatal(err)
	}

	before := rssFile(t)
	want := map[string]PollState{}
	if err := ts.view(func(tx *bolt.Tx) error {
		for _, name := range names {
			ps, err := readPollState(tx, name)
			if err != nil {
				return err
			}
			want[name] = ps
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	kept := rssFile(t) - before
	if kept < 2<<10 {
		t.Fatalf("a walk over %d sources' states mapped only %d KiB: the release before it left their pages mapped?", n, kept)
	}
	if err := ts.ReleasePages(); err != nil {
		t.Fatal(err)
	}

	before = rssFile(t)
	got, err := ts.PollStates(names)
	if err != nil {
		t.Fatal(err)
	}
	if left := rssFile(t) - before; left > kept/2 {
		t.Errorf("PollStates over %d sources left %d KiB of the archive mapped; a walk that keeps its pages maps %d KiB", n, left, kept)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PollStates read other states than one read transaction without releases")
	}
	if got["s0599"].Fetch.PageTitle() != "Vendor 599" {
		t.Errorf("s0599's page title: %q", got["s0599"].Fetch.PageTitle())
	}
}

// TestCachedIncidentHeadsReleasePages: a walk of CachedIncidentHeads whose every source is
// cached still opens each source's bucket to read its write count; it lets go of those
// pages as it goes, as a walk that decodes them does.
func TestCachedIncidentHeadsReleasePages(t *testing.T) {
	testbin.RequireMappedRssFile(t, t.TempDir())
	ts := MustOpen(t)
	const n = 600
	names := recordSourcesApart(t, ts, n, rand.New(rand.NewPCG(3, 4)), func(int) (model.FetchState, []model.Incident) {
		return nil, []model.Incident{inc("i1"), inc("i2")}
	})
	var cache HeadCache
	want, err := ts.CachedIncidentHeads(&cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.ReleasePages(); err != nil {
		t.Fatal(err)
	}

	// What the cached walk reads, in one transaction without releases.
	before := rssFile(t)
	if err := ts.view(func(tx *bolt.Tx) error {
		for _, name := range names {
			incident.Writes(layout.Sub(layout.Source(tx, name), layout.BucketIncidents))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	kept := rssFile(t) - before
	if kept < 2<<10 {
		t.Fatalf("reading %d sources' write counts mapped only %d KiB: the release before it left their pages mapped?", n, kept)
	}
	if err := ts.ReleasePages(); err != nil {
		t.Fatal(err)
	}

	before = rssFile(t)
	got, err := ts.CachedIncidentHeads(&cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if left := rssFile(t) - before; left > kept/2 {
		t.Errorf("CachedIncidentHeads, every source cached, left %d KiB of the archive mapped; a walk that keeps its pages maps %d KiB", left, kept)
	}
	if !reflect.DeepEqual(got, want) || len(got) != 2*n {
		t.Errorf("the cached walk gave %d heads, want the %d of the first", len(got), len(want))
	}
}

// recordSourcesApart records n sources, s0000 on, each a first poll of the state and
// incidents page(i) gives with a raw body that does not compress, so that the sources'
// pages lie apart in the file and a walk over them maps pages all over it.
func recordSourcesApart(t *testing.T, ts *testStore, n int, rnd *rand.Rand, page func(i int) (model.FetchState, []model.Incident)) []string {
	t.Helper()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("s%04d", i)
		state, incs := page(i)
		s := snap(t0, incs...)
		s.Source = names[i]
		raw := make([]byte, 16<<10)
		for j := range raw {
			raw[j] = byte(rnd.Uint32())
		}
		if _, err := ts.Record(names[i], s, state, []model.Body{body("incidents", raw)}, all); err != nil {
			t.Fatal(err)
		}
	}
	return names
}
