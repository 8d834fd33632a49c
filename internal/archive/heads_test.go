package archive

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// TestGenerationAndHeads: Generation changes with each committed write and only then;
// IncidentHeads lists what the incident records say, without a version decoded.
func TestGenerationAndHeads(t *testing.T) {
	ts := MustOpen(t)
	gen := func() uint64 {
		t.Helper()
		g, err := ts.Generation()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g0 := gen()
	ts.record(snap(at(1), inc("a"), inc("b")), Policy{}, nil)
	g1 := gen()
	if g1 == g0 {
		t.Fatal("a Record left the generation as it was")
	}
	if _, err := ts.Incidents(""); err != nil {
		t.Fatal(err)
	}
	if gen() != g1 {
		t.Error("a read changed the generation")
	}
	ts.record(snap(at(1), inc("a"), inc("b")), Policy{}, nil) // unchanged: writes nothing
	if gen() != g1 {
		t.Error("a Record that wrote nothing changed the generation")
	}
	ts.record(snap(at(2), inc("a", status(model.StatusResolved)), inc("b")), Policy{}, nil)
	if gen() == g1 {
		t.Error("a second Record left the generation as it was")
	}

	heads, err := ts.IncidentHeads(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 2 {
		t.Fatalf("got %d heads, want 2: %+v", len(heads), heads)
	}
	a, b := heads[0], heads[1]
	if a.Source != "acme" || a.ID != "a" || a.Versions != 2 || !a.FirstSeen.Equal(at(1)) || !a.LastChanged.Equal(at(2)) || a.Removed {
		t.Errorf("head of a %+v", a)
	}
	if b.ID != "b" || b.Versions != 1 || !b.LastChanged.Equal(at(1)) {
		t.Errorf("head of b %+v", b)
	}
}

// TestCachedIncidentHeads: a cache gives the heads of a source not written since as they
// were, chosen again by keep, and reads again a source whose incidents were written (a new
// version, an incident marked removed); a later call without the cache agrees.
func TestCachedIncidentHeads(t *testing.T) {
	ts := MustOpen(t)
	other := func(when time.Time, incs ...model.Incident) {
		t.Helper()
		s := snap(when, incs...)
		s.Source = "globex"
		if _, err := ts.Record("globex", s, nil, nil, Policy{}); err != nil {
			t.Fatal(err)
		}
	}
	ts.record(snap(at(1), inc("a"), inc("b")), Policy{}, nil)
	other(at(1), inc("x"))

	var cache HeadCache
	heads := func(keep func(*IncidentHead) bool) []string {
		t.Helper()
		got, err := ts.CachedIncidentHeads(&cache, keep)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := ts.IncidentHeads(keep)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range got {
			out = append(out, fmt.Sprintf("%s/%s v%d open=%v removed=%v", h.Source, h.ID, h.Versions, h.Open, h.Removed))
		}
		if !reflect.DeepEqual(got, plain) {
			t.Errorf("through the cache %+v, without %+v", got, plain)
		}
		return out
	}
	want := func(got []string, want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("heads %q, want %q", got, want)
		}
	}
	want(heads(nil), "acme/a v1 open=true removed=false", "acme/b v1 open=true removed=false", "globex/x v1 open=true removed=false")
	if w := cache.sources["acme"].writes; w == 0 {
		t.Errorf("acme's incidents bucket counts %d writes", w)
	}

	// globex changes; acme is given from the cache. Were it read again, a head the
	// cache holds changed by hand would come back as archived.
	other(at(2), inc("x", status(model.StatusResolved)))
	cache.sources["acme"].heads[0].Versions = 99
	if got, err := ts.CachedIncidentHeads(&cache, nil); err != nil || got[0].Versions != 99 || got[2].Versions != 2 {
		t.Fatalf("acme's heads were read again, or globex's not: %+v, %v", got, err)
	}
	cache.sources["acme"].heads[0].Versions = 1
	want(heads(nil), "acme/a v1 open=true removed=false", "acme/b v1 open=true removed=false", "globex/x v2 open=false removed=false")

	// keep is asked again of cached heads: the open ones only.
	open := func(h *IncidentHead) bool { return h.Open }
	want(heads(open), "acme/a v1 open=true removed=false", "acme/b v1 open=true removed=false")

	// acme's b is resolved: acme is read again, the cache's entry for it too.
	ts.record(snap(at(3), inc("a"), inc("b", status(model.StatusResolved))), Policy{}, nil)
	want(heads(open), "acme/a v1 open=true removed=false")
	if got := len(cache.sources["acme"].heads); got != 1 {
		t.Errorf("the cache holds %d heads of acme, want the 1 kept", got)
	}
}

// TestHeadsFromWriteNotes: after a write, a cache is brought up to date by reading the
// sources its transaction noted, without a walk over every source, for each path that
// writes incident records (Record, Migrate, a miss confirmed); a write of a record that
// was not noted, or notes dropped, make it walk; every answer is the one without a cache.
func TestHeadsFromWriteNotes(t *testing.T) {
	ts := MustOpen(t)
	recordAs := func(source string, when time.Time, incs ...model.Incident) {
		t.Helper()
		s := snap(when, incs...)
		s.Source = source
		if _, err := ts.Record(source, s, nil, nil, Policy{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"acme", "globex", "initech"} {
		recordAs(name, at(1), inc("a"), inc("b"))
	}
	var cache HeadCache
	check := func(walks int, what string) {
		t.Helper()
		got, err := ts.CachedIncidentHeads(&cache, nil)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := ts.IncidentHeads(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, plain) {
			t.Errorf("%s: through the cache %+v, without %+v", what, got, plain)
		}
		if cache.walks != walks {
			t.Errorf("%s: the cache walked every source %d times, want %d", what, cache.walks, walks)
		}
	}
	check(1, "the first call")
	check(1, "nothing written")
	recordAs("globex", at(2), inc("a", status(model.StatusResolved)), inc("b"))
	check(1, "a Record")
	recordAs("aaa", at(2), inc("z")) // a new source, listed first
	check(1, "a new source")
	if err := ts.SetThread("globex", "a", "C1", "1.2"); err != nil {
		t.Fatal(err)
	}
	check(1, "a write of no incident record")
	if _, err := ts.Migrate("initech", "incidentio", at(3)); err != nil {
		t.Fatal(err)
	}
	check(1, "a migration")

	// A miss confirmed: acme's b missing twice in a row is marked removed.
	recordAs("acme", at(4), inc("a"))
	check(1, "a miss")
	if _, err := ts.ConfirmMisses("acme", at(5), nil, Policy{}); err != nil {
		t.Fatal(err)
	}
	check(1, "a miss confirmed")
	if h, _ := ts.IncidentHeads(nil); !slices.ContainsFunc(h, func(h IncidentHead) bool { return h.Source == "acme" && h.ID == "b" && h.Removed }) {
		t.Errorf("acme's b not removed after its second miss: %+v", h)
	}

	// An incident record written without a note: the count of all writes tells.
	if err := ts.update(func(tx *bolt.Tx) error {
		incidents := layout.Sub(layout.Source(tx, "globex"), layout.BucketIncidents)
		m, _, err := incident.LoadMeta(incidents, "b")
		if err != nil {
			return err
		}
		m.Latest = 7
		return incident.PutMeta(incidents, "b", &m)
	}); err != nil {
		t.Fatal(err)
	}
	check(2, "a write not noted")

	// More notes than are kept: the oldest are dropped, and a cache older than them walks.
	if err := ts.update(func(tx *bolt.Tx) error {
		for i := range maxWriteNotes + 1 {
			ts.notes.note(tx, fmt.Sprint("s", i))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check(3, "notes dropped")
}

// BenchmarkHeadsAfterAWrite is the notifier's "Also affected" at 2,000 sources: a source
// written, then the heads kept through a cache, brought up to date from the write notes
// ("notes") or by a walk over every source ("walk", how it was done before the notes).
func BenchmarkHeadsAfterAWrite(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "watcher.db"), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const sources = 2000
	for i := range sources {
		name := fmt.Sprintf("src%04d", i)
		sn := snap(at(1), inc("a"), inc("b"), inc("c"))
		sn.Source = name
		if _, err := s.Record(name, sn, nil, nil, Policy{FirstPoll: FirstPollNone}); err != nil {
			b.Fatal(err)
		}
	}
	// As the notifier's horizon does, keep few: here the incidents changed since.
	changed := func(h *IncidentHead) bool { return h.Versions > 1 }
	for _, mode := range []string{"notes", "walk"} {
		b.Run(mode, func(b *testing.B) {
			var cache HeadCache
			if _, err := s.CachedIncidentHeads(&cache, changed); err != nil {
				b.Fatal(err)
			}
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				st := model.StatusIdentified
				if i%2 == 1 {
					st = model.StatusInvestigating
				}
				sn := snap(at(2+i), inc("a", status(st)), inc("b"), inc("c"))
				sn.Source = "src0042"
				if _, err := s.Record("src0042", sn, nil, nil, Policy{}); err != nil {
					b.Fatal(err)
				}
				if mode == "walk" {
					cache.store = nil
				}
				b.StartTimer()
				heads, err := s.CachedIncidentHeads(&cache, changed)
				if err != nil || len(heads) != 1 {
					b.Fatalf("%d heads, %v", len(heads), err)
				}
			}
		})
	}
}
