package snapshot

import (
	"errors"
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
