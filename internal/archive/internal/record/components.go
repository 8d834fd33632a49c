package record

// A source's component set, versioned like an incident inside Record's transaction, and
// its messages (docs/design.md §9). The rules are internal/archive/policy's.

import (
	"fmt"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/components"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/archive/policy"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// componentsChanged reports whether the recording's component set makes a new version:
// it differs from the latest version's by its fingerprint, or is the first. It only
// reads the component meta, so an unchanged set costs one key and a hash.
//
// A set without a single component after one with some is taken as not read: pages
// have served empty lists during their own outages (as policy.Vanished says of
// incidents), and taking it would tell every alerted component gone, then back.
func (r *Recording) componentsChanged(state *bolt.Bucket) (bool, error) {
	if r.comps == nil {
		return false, nil
	}
	m, err := components.ReadMeta(state)
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
	set, err := components.Open(w.state, src)
	if err != nil {
		return err
	}
	m, prev, prevDown := set.Meta, set.Prev, set.PrevDown
	var prevSet *model.Components
	if prev != nil {
		prevSet = &prev.Components
	}
	var changes []model.ComponentChange // none for version 1, as for an incident's
	if prev != nil {
		changes = policy.ComponentChanges(prevSet, r.comps)
	}
	if !policy.NewComponentVersion(prevSet, r.comps, changes) {
		return set.Remember(r.compsFP)
	}
	cur, down := components.Spells(prev, prevDown, r.comps, r.at)
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
	if len(changes) > 0 && !in.First && r.rules.ComponentChanges != policy.ComponentChangesArchive {
		if in.Open, err = w.openIncidents(); err != nil {
			return err
		}
	}
	out := r.rules.ComponentMessages(in)
	v := model.ComponentVersion{N: in.N, ObservedAt: r.at, Components: *cur, Changes: out.Changes,
		Thread: out.Thread, Alerts: out.Alerts}
	if err := set.Put(&v, down, r.compsFP, uint32(out.Open)); err != nil {
		return err
	}
	w.res.Components = v.N
	w.evidence = true
	for _, msg := range out.Messages {
		nt := &model.Notice{Source: r.source, Event: msg.Event}
		for _, c := range out.Changes {
			if c.Told && c.Incident == msg.IncidentID {
				nt.Components = append(nt.Components, c.Component)
			}
		}
		if msg.IncidentID != "" {
			if nt.Incident, err = w.latest(msg.IncidentID); err != nil {
				return err
			}
		}
		c, err := outbox.PutRouted(w.tx, r.route, model.Message{Source: r.source, IncidentID: msg.IncidentID, Version: v.N,
			Event: msg.Event, CreatedAt: r.now}, nt)
		w.res.Messages += c
		if err != nil {
			return err
		}
	}
	return nil
}

// openIncidents lists the source's incidents and maintenances open after this poll's
// writes, for the component rules.
func (w *writer) openIncidents() ([]policy.OpenIncident, error) {
	var out []policy.OpenIncident
	err := incident.EachMeta(w.incidents, func(k []byte, m codec.Meta) error {
		if !m.Open || m.Removed || m.Migrated {
			return nil
		}
		ver, err := incident.Load(w.versions, string(k), m.Latest)
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
