package components

import (
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout/layouttest"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func set(statuses ...model.ComponentStatus) *model.Components {
	cs := &model.Components{}
	for i, s := range statuses {
		cs.List = append(cs.List, model.Component{Name: string(rune('a' + i)), Status: s})
	}
	return cs
}

// TestVersions writes three versions through Open and Put, then reads them back by
// number, by time and by header, with the meta summarising the latest.
func TestVersions(t *testing.T) {
	db := layouttest.Open(t, t0, "acme")
	sets := []*model.Components{
		set(model.ComponentOperational, model.ComponentOperational),
		set(model.ComponentDegraded, model.ComponentOperational),
		set(model.ComponentMajorOutage, model.ComponentOperational),
	}
	for i, cs := range sets {
		err := db.Update(func(tx *bolt.Tx) error {
			src := layout.Source(tx, "acme")
			s, err := Open(src.Bucket(layout.BucketState), src)
			if err != nil {
				return err
			}
			at := t0.Add(time.Duration(i) * time.Hour)
			cur, down := Spells(s.Prev, s.PrevDown, cs, at)
			v := model.ComponentVersion{N: int(s.Meta.Latest) + 1, ObservedAt: at, Components: *cur}
			return s.Put(&v, down, codec.ComponentFingerprint(cs), 0)
		})
		if err != nil {
			t.Fatalf("version %d: %v", i+1, err)
		}
	}
	err := db.View(func(tx *bolt.Tx) error {
		m, err := Meta(tx, "acme")
		if err != nil {
			return err
		}
		if m.Latest != 3 || m.Count != 2 || m.NotOperational != 1 || m.Worst != model.ComponentMajorOutage {
			t.Errorf("meta: %+v", m)
		}
		v, down, err := Load(Bucket(tx, "acme"), 3)
		if err != nil {
			return err
		}
		// a went bad at version 2 and stayed bad: its spell began then, its status at 3.
		if a := v.Components.List[0]; !a.Since.Equal(t0.Add(2*time.Hour)) || !down[a.Key()].Equal(t0.Add(time.Hour)) {
			t.Errorf("a: since %s, down %s", a.Since, down[a.Key()])
		}
		if b := v.Components.List[1]; !b.Since.Equal(t0) {
			t.Errorf("b: since %s", b.Since)
		}
		for _, c := range []struct {
			at   time.Time
			want int
		}{{t0.Add(-time.Second), 0}, {t0, 1}, {t0.Add(90 * time.Minute), 2}, {t0.Add(5 * time.Hour), 3}} {
			v, err := At(tx, "acme", c.at)
			if err != nil {
				return err
			}
			if got := 0; v != nil {
				got = v.N
				if got != c.want {
					t.Errorf("At(%s): version %d, want %d", c.at, got, c.want)
				}
			} else if c.want != 0 {
				t.Errorf("At(%s): none, want %d", c.at, c.want)
			}
		}
		var ns []int
		err = HeadersFrom(tx, "acme", t0.Add(time.Minute), func(h codec.ComponentHeader) bool {
			ns = append(ns, h.N)
			return true
		})
		if len(ns) != 2 || ns[0] != 2 {
			t.Errorf("HeadersFrom: %v", ns)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
