package archive

// A source's component set, versioned like an incident inside Record's transaction, and
// its messages (docs/design.md §9). The rules are internal/archive/policy's.

import (
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/archive/policy"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// The values of a source's component_changes key (see policy.ComponentChangesNotify).
const (
	ComponentChangesNotify  = policy.ComponentChangesNotify
	ComponentChangesArchive = policy.ComponentChangesArchive
)

// componentsChanged reports whether the recording's component set makes a new version:
// it differs from the latest version's by its fingerprint, or is the first. It only
// reads the component meta, so an unchanged set costs one key and a hash.
//
// A set without a single component after one with some is taken as not read: pages
// have served empty lists during their own outages (as policy.Vanished says of
// incidents), and taking it would tell every alerted component gone, then back.
func (r *recording) componentsChanged(state *bolt.Bucket) (bool, error) {
	if r.comps == nil {
		return false, nil
	}
	m, err := codec.UnmarshalComponentMeta(layout.Get(state, layout.KeyComponents))
	if err != nil {
		return false, fmt.Errorf("archive: record %s: %w", r.source, err)
	}
	if len(r.comps.List) == 0 && m.Count > 0 {
		return false, nil
	}
	return m.Latest == 0 || m.Fingerprint != r.compsFP, nil
}

// components writes the new version of the source's component set, and the messages it
// calls for, after the incidents: the open incidents it reads are those of this poll.
func (w *writer) components(src *bolt.Bucket) error {
	r := w.r
	m, err := codec.UnmarshalComponentMeta(w.state.Get(layout.KeyComponents))
	if err != nil {
		return err
	}
	bucket, err := src.CreateBucketIfNotExists(layout.BucketComponents)
	if err != nil {
		return err
	}
	var prev *model.ComponentVersion
	var prevDown map[string]time.Time
	if m.Latest > 0 {
		if prev, prevDown, err = loadComponentVersion(bucket, m.Latest); err != nil {
			return err
		}
	}
	var prevSet *model.Components
	if prev != nil {
		prevSet = &prev.Components
	}
	var changes []model.ComponentChange // none for version 1, as for an incident's
	if prev != nil {
		changes = policy.ComponentChanges(prevSet, r.comps)
	}
	if !policy.NewComponentVersion(prevSet, r.comps, changes) {
		// The fingerprint said otherwise (a new hash of the same fields): remember it,
		// so the next poll takes the fast path again.
		m.Fingerprint = r.compsFP
		return w.state.Put(layout.KeyComponents, m.Marshal())
	}
	cur, down := spells(prev, prevDown, r.comps, r.at)
	for i := range changes {
		if c := &changes[i]; c.Recovered() {
			c.DownSince = prevDown[c.Key]
		}
	}
	in := policy.ComponentVersionIn{N: int(m.Latest) + 1, At: r.at, First: m.Latest == 0 || m.Quiet,
		Cur: cur, Changes: changes, Thread: int(m.Open)}
	if prev != nil {
		in.Alerts = prev.Alerts
	}
	if len(changes) > 0 && !in.First && r.rules.ComponentChanges != ComponentChangesArchive {
		if in.Open, err = w.openIncidents(); err != nil {
			return err
		}
	}
	out := r.rules.ComponentMessages(in)
	v := model.ComponentVersion{N: in.N, ObservedAt: r.at, Components: *cur, Changes: out.Changes,
		Thread: out.Thread, Alerts: out.Alerts}
	data, err := codec.EncodeComponentVersion(&v, down)
	if err != nil {
		return err
	}
	if err := bucket.Put(layout.ComponentKey(uint32(v.N)), data); err != nil {
		return err
	}
	m = codec.ComponentMeta{Latest: uint32(v.N), Fingerprint: r.compsFP, Open: uint32(out.Open), ObservedAt: r.at,
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
	if err := w.state.Put(layout.KeyComponents, m.Marshal()); err != nil {
		return err
	}
	w.res.Components = v.N
	w.evidence = true
	for _, msg := range out.Messages {
		if _, err := outbox.Put(w.tx, model.Message{Source: r.source, IncidentID: msg.IncidentID, Version: v.N,
			Event: msg.Event, CreatedAt: r.now}); err != nil {
			return err
		}
		w.res.Messages++
	}
	return nil
}

// spells is cur with each component's Since — when it entered its status — and, by
// key, when each component not operational left operational: carried over from prev
// for a component whose status stayed, at for one that changed (or is new), and for one
// that went from one bad status to another, its earlier leaving.
func spells(prev *model.ComponentVersion, prevDown map[string]time.Time, cur *model.Components, at time.Time) (*model.Components, map[string]time.Time) {
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

// openIncidents lists the source's incidents and maintenances open after this poll's
// writes, for the component rules.
func (w *writer) openIncidents() ([]policy.OpenIncident, error) {
	var out []policy.OpenIncident
	err := w.incidents.ForEach(func(k, v []byte) error {
		m, err := codec.UnmarshalMeta(v)
		if err != nil {
			return fmt.Errorf("incident %s: %w", k, err)
		}
		if !m.Open || m.Removed || m.Migrated {
			return nil
		}
		ver, err := loadVersion(w.versions, string(k), m.Latest)
		if err != nil {
			return fmt.Errorf("incident %s: %w", k, err)
		}
		inc := &ver.Incident
		out = append(out, policy.OpenIncident{ID: string(k), Kind: inc.Kind, Status: inc.Status, Impact: inc.Impact,
			StartedAt: inc.StartedAt, Announced: m.Announced, Components: inc.Components,
			ScheduledFor: inc.ScheduledFor, ScheduledUntil: inc.ScheduledUntil})
		return nil
	})
	return out, err
}

// loadComponentVersion decodes component version n.
func loadComponentVersion(b *bolt.Bucket, n uint32) (*model.ComponentVersion, map[string]time.Time, error) {
	data := layout.Get(b, layout.ComponentKey(n))
	if data == nil {
		return nil, nil, fmt.Errorf("component version %d: %w", n, ErrNotFound)
	}
	v, down, err := codec.DecodeComponentVersion(data)
	if err != nil {
		return nil, nil, fmt.Errorf("component version %d: %w", n, err)
	}
	return v, down, nil
}
