package incident

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

// TestStorage writes incidents' versions and metas, reads them back, counts the open
// ones by impact and freezes them.
func TestStorage(t *testing.T) {
	db := layouttest.Open(t, t0, "acme")
	err := db.Update(func(tx *bolt.Tx) error {
		src := layout.Source(tx, "acme")
		incidents, versions := src.Bucket(layout.BucketIncidents), src.Bucket(layout.BucketVersions)
		for _, c := range []struct {
			id     string
			n      int
			impact model.Impact
			open   bool
		}{{"a", 2, model.ImpactMajor, true}, {"a-b", 1, "", true}, {"c", 1, model.ImpactMinor, false}} {
			for n := 1; n <= c.n; n++ {
				v := model.Version{N: n, ObservedAt: t0, Incident: model.Incident{ID: c.id, Title: c.id, Impact: model.ImpactMinor}}
				if err := Put(versions, c.id, &v); err != nil {
					return err
				}
			}
			if err := PutMeta(incidents, c.id, &codec.Meta{Latest: uint32(c.n), Impact: c.impact, Open: c.open}); err != nil {
				return err
			}
		}
		m, ok, err := LoadMeta(incidents, "a")
		if err != nil || !ok || m.Latest != 2 {
			t.Errorf("LoadMeta a: %+v, %v, %v", m, ok, err)
		}
		if _, ok, err := LoadMeta(incidents, "zz"); ok || err != nil {
			t.Errorf("LoadMeta of an unknown incident: %v, %v", ok, err)
		}
		if _, err := Load(versions, "a", 3); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("Load of a version past the latest: %v", err)
		}
		// "a" must not run into "a-b".
		n := 0
		if err := Each(tx, "acme", "a", func([]byte) error { n++; return nil }); err != nil || n != 2 {
			t.Errorf("Each a: %d versions, %v", n, err)
		}
		if err := Each(tx, "acme", "zz", func([]byte) error { return nil }); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("Each of an unknown incident: %v", err)
		}
		counts := map[model.Impact]int{}
		if err := CountOpen(src, counts); err != nil || counts[model.ImpactMajor] != 1 || counts[model.ImpactMinor] != 1 {
			t.Errorf("CountOpen: %v, %v", counts, err)
		}
		if n, err := Freeze(incidents, t0); err != nil || n != 3 {
			t.Errorf("Freeze: %d, %v", n, err)
		}
		if n, err := Freeze(incidents, t0); err != nil || n != 0 {
			t.Errorf("Freeze again: %d, %v", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
