package archive

import (
	"testing"

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
