package components

// Writing a new version of a source's component set: the version before it, the spells
// carried over, and the meta that makes the new one the latest.

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Set is a source's component set open for writing in a write transaction: its meta
// and its latest version as they were before.
type Set struct {
	state, versions *bolt.Bucket
	Meta            codec.ComponentMeta
	Prev            *model.ComponentVersion // the latest version; nil when there is none
	// PrevDown is, by key, when each component not operational in Prev left operational.
	PrevDown map[string]time.Time
}

// Open opens the component set of the source whose bucket is src and whose state
// bucket is state, creating its bucket of versions.
func Open(state, src *bolt.Bucket) (*Set, error) {
	m, err := codec.UnmarshalComponentMeta(state.Get(layout.KeyComponents))
	if err != nil {
		return nil, err
	}
	versions, err := src.CreateBucketIfNotExists(layout.BucketComponents)
	if err != nil {
		return nil, err
	}
	s := &Set{state: state, versions: versions, Meta: m}
	if m.Latest > 0 {
		if s.Prev, s.PrevDown, err = Load(versions, m.Latest); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Remember keeps fp as the latest version's fingerprint, for a set that made no new
// version although its fingerprint differed (a new hash of the same fields): the next
// poll takes the fast path again.
func (s *Set) Remember(fp [32]byte) error {
	s.Meta.Fingerprint = fp
	return s.state.Put(layout.KeyComponents, s.Meta.Marshal())
}

// Put writes v, the next version, with its spells down (Spells), and the meta that
// makes it the latest: fp is its set's fingerprint, open the root version of the open
// component thread (0 for none).
func (s *Set) Put(v *model.ComponentVersion, down map[string]time.Time, fp [32]byte, open uint32) error {
	data, err := codec.EncodeComponentVersion(v, down)
	if err != nil {
		return err
	}
	if err := s.versions.Put(layout.ComponentKey(uint32(v.N)), data); err != nil {
		return err
	}
	cur := &v.Components
	m := codec.ComponentMeta{Latest: uint32(v.N), Fingerprint: fp, Open: open, ObservedAt: v.ObservedAt,
		Count: uint32(len(cur.List)), Worst: model.ComponentOperational,
		PageStatus: cur.PageStatus, PageDescription: cur.PageDescription}
	for _, c := range cur.List {
		if c.Status != model.ComponentOperational {
			m.NotOperational++
		}
		if c.Status.Worse(m.Worst) {
			m.Worst = c.Status
		}
	}
	if err := s.state.Put(layout.KeyComponents, m.Marshal()); err != nil {
		return err
	}
	s.Meta = m
	return nil
}

// Quiet has the next set read into the source's state bucket state taken in as a first
// set, archived without a message (the page moved to another platform, whose components
// have other keys). It writes only when there is a set and it is not quiet already.
func Quiet(state *bolt.Bucket) error {
	m, err := codec.UnmarshalComponentMeta(state.Get(layout.KeyComponents))
	if err != nil || m.Latest == 0 || m.Quiet {
		return err
	}
	m.Quiet = true
	return state.Put(layout.KeyComponents, m.Marshal())
}

// Spells is cur with each component's Since — when it entered its status — and, by
// key, when each component not operational left operational: carried over from prev
// for a component whose status stayed, at for one that changed (or is new), and for one
// that went from one bad status to another, its earlier leaving.
func Spells(prev *model.ComponentVersion, prevDown map[string]time.Time, cur *model.Components, at time.Time) (*model.Components, map[string]time.Time) {
	out := *cur
	out.List = make([]model.Component, len(cur.List))
	down := map[string]time.Time{}
	before := map[string]model.Component{}
	if prev != nil {
		for _, b := range prev.Components.List {
			before[b.Key()] = b
		}
	}
	for i, c := range cur.List {
		b, ok := before[c.Key()]
		c.Since = at
		if ok && b.Status == c.Status {
			c.Since = b.Since
		}
		if c.Status != model.ComponentOperational {
			switch d := prevDown[c.Key()]; {
			case ok && b.Status != model.ComponentOperational && !d.IsZero():
				down[c.Key()] = d
			case ok && b.Status == c.Status:
				down[c.Key()] = b.Since
			default:
				down[c.Key()] = at
			}
		}
		out.List[i] = c
	}
	return &out, down
}
