// Package figures computes what a source's vendor figures are made of: the facts of
// each incident (its times and impact, and what its history did to what had been
// posted) and how long the source's components were out. It is pure: internal/archive
// reads the versions and the component history, feeds them here, and caches what comes
// back; internal/web/query turns the facts into the figures.
package figures

import (
	"iter"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// IncidentFacts is what a source's figures need of one incident: its latest version's
// times and impact, and what its history did to what had been posted, read from the
// change sets.
type IncidentFacts struct {
	ID         string
	Impact     model.Impact // of the latest version
	Open       bool         // the latest version is open and the incident still on the page
	Removed    bool         // vanished from the page (two well-formed polls in a row)
	StartedAt  time.Time
	ResolvedAt time.Time
	FirstSeen  time.Time // when version 1 was observed
	// FirstUpdateAt is the earliest posted_at among the latest version's updates; zero
	// when it has none.
	FirstUpdateAt time.Time
	Postmortem    bool
	PostmortemAt  time.Time // its published_at; zero when not given
	// OnFirstPoll: already on the page, started, when the archive first read the
	// source, so when it first showed is not known.
	OnFirstPoll bool

	// The edits, from the change sets of versions 2 on: updates whose body or status
	// was edited (each update once), updates removed, and whether the title changed,
	// the start moved earlier, or the impact was lowered while the incident was
	// already resolved.
	UpdatesEdited, UpdatesRemoved int
	TitleChanged, Backdated       bool
	ImpactLoweredAfterResolution  bool
	// Truncated: the history was longer than MaxVersions and only its latest
	// versions were read.
	Truncated bool
}

// SourceFacts is what a source's figures are computed from: the facts of its incidents
// that started in the window (maintenance left out), and how long its components were
// out.
type SourceFacts struct {
	Source    string
	Incidents []IncidentFacts
	// HasComponents: the source had a component set by the end of the window.
	HasComponents bool
	// ComponentOutage sums, over the components, the time each spent in partial or
	// major outage inside the window, as observed.
	ComponentOutage time.Duration
}

// MaxVersions bounds the versions read of one incident for its facts, newest first.
const MaxVersions = 2000

// Listing is what the archive knows of an incident besides its versions.
type Listing struct {
	ID                string
	Removed, Migrated bool      // vanished from the page; frozen when the page moved
	FirstSeen         time.Time // when version 1 was observed
}

// Walk reads the facts of an incident from its versions, walked newest first from the
// latest, one at a time from what a version's header holds (its number and the fields
// its change set touched); only the few that moved the start or the impact need
// decoding. Whether an update was added or removed is told by the set of update ids,
// walked back from the latest: a version's fields name the updates it added or
// removed, and which it did is whether the version after had it.
//
//	var w figures.Walk
//	w.Start(listing, latest)
//	for each version, newest first, while w.More():
//		decode, more := w.Version(n, fields); if decode { w.Decoded(version) }; stop when !more
//	facts := w.Facts()
//
// One Walk serves incident after incident (Start again): it keeps its sets, so a source's
// walks allocate little more than their facts.
type Walk struct {
	f      *IncidentFacts
	ids    map[string]bool // the update ids of the version walked to
	edited map[string]bool
	read   int
}

// maxKeptSet bounds the sets a Walk keeps for the next incident: past it a set is made
// anew rather than cleared, which costs what its largest size was.
const maxKeptSet = 64

// Start begins the walk of incident l, whose latest version is latest (not a
// maintenance).
func (w *Walk) Start(l Listing, latest *model.Incident) {
	w.f = &IncidentFacts{
		ID: l.ID, Impact: latest.Impact, Open: latest.Open() && !l.Removed && !l.Migrated, Removed: l.Removed,
		StartedAt: latest.StartedAt, ResolvedAt: latest.ResolvedAt, FirstSeen: l.FirstSeen,
	}
	w.ids, w.edited, w.read = fresh(w.ids), fresh(w.edited), 0
	f := w.f
	for _, u := range latest.Updates {
		w.ids[u.ID] = true
		if !u.PostedAt.IsZero() && (f.FirstUpdateAt.IsZero() || u.PostedAt.Before(f.FirstUpdateAt)) {
			f.FirstUpdateAt = u.PostedAt
		}
	}
	if pm := latest.Postmortem; pm != nil {
		f.Postmortem, f.PostmortemAt = true, pm.PublishedAt
	}
}

// fresh is m emptied, or a new set when m is nil or was large.
func fresh(m map[string]bool) map[string]bool {
	if m == nil || len(m) > maxKeptSet {
		return map[string]bool{}
	}
	clear(m)
	return m
}

// More reports whether the walk reads another version: false once MaxVersions were
// read, which marks the facts truncated.
func (w *Walk) More() bool {
	if w.read == MaxVersions {
		w.f.Truncated = true
		return false
	}
	w.read++
	return true
}

// Version reads version n, whose change set touched fields: decode reports that its
// values are needed (Decoded), more that the walk goes on to the version before.
func (w *Walk) Version(n int, fields []string) (decode, more bool) {
	if n <= 1 {
		return false, false // version 1 edits nothing
	}
	f := w.f
	for _, field := range fields {
		switch field {
		case diff.FieldTitle:
			f.TitleChanged = true
		case diff.FieldStartedAt, diff.FieldImpact:
			decode = true
		}
		uid, sub, ok := diff.UpdateField(field)
		switch {
		case !ok:
		case sub != "":
			w.edited[uid] = true
		case w.ids[uid]: // in the version after: added by this one
			delete(w.ids, uid)
		default: // not in the version after: removed by this one
			f.UpdatesRemoved++
			w.ids[uid] = true
		}
	}
	return decode, true
}

// Decoded reads the values of a version Version asked to decode.
func (w *Walk) Decoded(v *model.Version) { editsOf(w.f, v) }

// Facts returns the facts the walk read; the walk is over.
func (w *Walk) Facts() *IncidentFacts {
	w.f.UpdatesEdited = len(w.edited)
	return w.f
}

// editsOf notes what version v's change of the start or the impact tells: a start moved
// earlier is a backdating; an impact lowered while the version before was already
// resolved is lowered after resolution.
func editsOf(f *IncidentFacts, v *model.Version) {
	prevStatus := v.Incident.Status // the version before's, unless this one changed it
	for _, c := range v.Changes {
		if c.Field == diff.FieldStatus && c.Before != nil {
			prevStatus = model.Status(*c.Before)
		}
	}
	for _, c := range v.Changes {
		if c.Before == nil || c.After == nil {
			continue
		}
		switch c.Field {
		case diff.FieldStartedAt:
			b, err1 := time.Parse(time.RFC3339Nano, *c.Before)
			a, err2 := time.Parse(time.RFC3339Nano, *c.After)
			if err1 == nil && err2 == nil && a.Before(b) {
				f.Backdated = true
			}
		case diff.FieldImpact:
			if !prevStatus.Open() && model.Impact(*c.Before).Worse(model.Impact(*c.After)) {
				f.ImpactLoweredAfterResolution = true
			}
		}
	}
}

// ComponentStep is one version of a component set as the outage reads it: when it was
// observed and the status changes it made.
type ComponentStep struct {
	At      time.Time
	Changes []model.ComponentChange
}

// ComponentOutage sums, over a source's components, the time each spent in partial or
// major outage inside [from, to], from start, the set in force at from (nil for none),
// and steps, the versions observed at or after from, oldest first; it stops at the
// first observed after to. has is false when there was no set by to.
func ComponentOutage(start *model.Components, steps iter.Seq[ComponentStep], from, to time.Time) (has bool, total time.Duration) {
	out := map[string]bool{} // component key → in outage
	n := 0                   // how many are
	set := func(key string, o bool) {
		switch {
		case o && !out[key]:
			n++
		case !o && out[key]:
			n--
		}
		out[key] = o
	}
	has = start != nil
	if start != nil {
		for _, c := range start.List {
			set(c.Key(), outage(c.Status))
		}
	}
	last := from
	for st := range steps {
		if st.At.After(to) {
			break
		}
		has = true
		total += time.Duration(n) * st.At.Sub(last)
		for _, ch := range st.Changes {
			set(ch.Key, outage(ch.To))
		}
		last = st.At
	}
	if has {
		total += time.Duration(n) * to.Sub(last)
	}
	return has, total
}

// outage reports whether a component status is an outage: partial or major.
func outage(s model.ComponentStatus) bool {
	return s == model.ComponentPartialOutage || s == model.ComponentMajorOutage
}
