package snapshot

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout/layouttest"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// TestPutAtFind stores three snapshots, reads the one in force at a time, and prunes
// all but the one in force at the cutoff, with the body only the pruned one used.
func TestPutAtFind(t *testing.T) {
	db := layouttest.Open(t, t0, "acme")
	c, err := codec.NewBodies()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bodies := [][]model.Body{
		{{Endpoint: "b", Data: []byte("one")}, {Endpoint: "a", Data: []byte("a")}},
		{{Endpoint: "b", Data: []byte("two")}, {Endpoint: "a", Hash: ""}},
		{{Endpoint: "b", Data: []byte("two")}},
	}
	err = db.Update(func(tx *bolt.Tx) error {
		src := layout.Source(tx, "acme")
		for i, bs := range bodies {
			if err := Put(tx, src.Bucket(layout.BucketSnapshots), t0.Add(time.Duration(i)*time.Hour), bs, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if _, _, err := At(tx, "acme", layout.TimeKey(t0.Add(-time.Second))); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("At before any: %v", err)
		}
		idx, compressed, err := At(tx, "acme", layout.TimeKey(t0.Add(30*time.Minute)))
		if err != nil {
			return err
		}
		if !idx.FetchedAt.Equal(t0) || len(idx.Bodies) != 2 || idx.Bodies[0].Endpoint != "a" || len(compressed) != 2 {
			t.Errorf("At: %+v, %d bodies", idx, len(compressed))
		}
		if data, err := c.Decompress(compressed[1]); err != nil || string(data) != "one" {
			t.Errorf("At: body b %q, %v", data, err)
		}
		released := 0
		p, err := Find(tx, t0.Add(90*time.Minute), func() error { released++; return nil })
		if err != nil {
			return err
		}
		// The first snapshot goes (the second is in force at the cutoff), and with it
		// "one" and "a", which no later snapshot references.
		if len(p.Snapshots) != 1 || len(p.Bodies) != 2 || released != 0 {
			t.Errorf("Find: %d snapshots, %d bodies, %d releases", len(p.Snapshots), len(p.Bodies), released)
		}
		return p.Delete(tx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFindReleasesAsItWalksBodies: the walk over every body's key lets go of the pages it
// mapped every releaseBodiesEvery bodies (each large body is a leaf of its own), and
// finds the same bodies as before.
func TestFindReleasesAsItWalksBodies(t *testing.T) {
	db := layouttest.Open(t, t0, "acme")
	c, err := codec.NewBodies()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 600
	err = db.Update(func(tx *bolt.Tx) error {
		src := layout.Source(tx, "acme")
		for i := range n {
			bs := []model.Body{{Endpoint: "b", Data: fmt.Appendf(nil, "body %d", i)}}
			if err := Put(tx, src.Bucket(layout.BucketSnapshots), t0.Add(time.Duration(i)*time.Minute), bs, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		released := 0
		// The cutoff lets every snapshot but the last two go, and their bodies with them.
		p, err := Find(tx, t0.Add((n-1)*time.Minute), func() error { released++; return nil })
		if err != nil {
			return err
		}
		if len(p.Snapshots) != n-2 || len(p.Bodies) != n-2 {
			t.Errorf("Find: %d snapshots, %d bodies; want %d of each", len(p.Snapshots), len(p.Bodies), n-2)
		}
		if want := n / releaseBodiesEvery; released != want {
			t.Errorf("Find over %d bodies released the pages %d times, want %d", n, released, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
