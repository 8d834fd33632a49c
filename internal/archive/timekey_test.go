package archive

import (
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// TestPruneRetentions prunes one source's snapshots with the cutoffs of three
// retentions, the longest putting the cutoff before 1970: each keeps what it must.
func TestPruneRetentions(t *testing.T) {
	now := t0.Add(time.Hour)
	fetched := []time.Time{t0.Add(-72 * time.Hour), t0.Add(-48 * time.Hour), t0.Add(-time.Hour), t0}
	tests := []struct {
		name      string
		keep      time.Duration
		wantSnaps int // pruned
		wantLeft  []time.Time
	}{
		{"0", 0, 3, fetched[3:]},
		{"1d", 24 * time.Hour, 1, fetched[1:]},
		{"100 years", 100 * 365 * 24 * time.Hour, 0, fetched},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := MustOpen(t)
			for i, f := range fetched {
				ts.record(snap(f, inc("a1", update(string(rune('a'+i))))), Policy{}, nil,
					body("incidents", []byte{byte('A' + i)}))
			}
			snaps, _, err := ts.PruneSnapshots(now.Add(-tt.keep))
			if err != nil || snaps != tt.wantSnaps {
				t.Errorf("PruneSnapshots(now-%s): got %d snapshots, %v; want %d", tt.name, snaps, err, tt.wantSnaps)
			}
			for i, f := range fetched {
				got, _, err := ts.SnapshotAt("acme", f)
				kept := !f.Before(tt.wantLeft[0])
				switch {
				case kept && (err != nil || !got.Equal(f)):
					t.Errorf("SnapshotAt(snapshot %d): got %v, %v; want it kept", i, got, err)
				case !kept && !errors.Is(err, ErrNotFound):
					t.Errorf("SnapshotAt(snapshot %d): got %v, %v; want ErrNotFound (pruned)", i, got, err)
				}
			}
		})
	}
}

// TestSnapshotAtBefore1970: a time before the first snapshot, however far back, has no
// snapshot in force; a time far ahead has the latest.
func TestSnapshotAtBefore1970(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(at(1), inc("a1")), Policy{}, nil, body("incidents", []byte("A")))
	ts.record(snap(at(2), inc("a1", update("x"))), Policy{}, nil, body("incidents", []byte("B")))
	for _, q := range []time.Time{time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), {}, time.Unix(0, math.MinInt64).Add(-time.Hour)} {
		if got, _, err := ts.SnapshotAt("acme", q); !errors.Is(err, ErrNotFound) {
			t.Errorf("SnapshotAt(%v): got %v, %v; want ErrNotFound", q, got, err)
		}
	}
	if got, _, err := ts.SnapshotAt("acme", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil || !got.Equal(at(2)) {
		t.Errorf("SnapshotAt(3000): got %v, %v; want %v", got, err, at(2))
	}
}

// TestLayout1ReadOnly: a read-only open of a layout 1 archive, whose snapshot keys are
// still layout 1's, finds its snapshots and none before 1970.
func TestLayout1ReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "watcher.db")
	copyFile(t, layout1, path)
	s := mustOpenPath(t, path, Options{ReadOnly: true})
	if fetched, bodies, err := s.SnapshotAt("acme", at(2).Add(time.Second)); err != nil || !fetched.Equal(at(2)) ||
		len(bodies) != 1 || string(bodies[0].Data) != `{"page":2}` {
		t.Errorf("SnapshotAt: got %v, %+v, %v", fetched, bodies, err)
	}
	if got, _, err := s.SnapshotAt("acme", time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)); !errors.Is(err, ErrNotFound) {
		t.Errorf("SnapshotAt(1960): got %v, %v; want ErrNotFound", got, err)
	}
}
