package archive

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
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
