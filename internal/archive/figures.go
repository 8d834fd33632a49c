package archive

import (
	"bytes"
	"fmt"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/components"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
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
	// Truncated: the history was longer than MaxFactVersions and only its latest
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

// MaxFactVersions bounds the versions read of one incident for its facts, newest first.
const MaxFactVersions = 2000

// MaxFactIncidents bounds the incidents of one source read for its facts; past it the
// most recently listed by id are left out and Facts reports it.
const MaxFactIncidents = 100000

// Facts returns the facts of source (of every archived source, by name, when source is
// empty) over the window [from, to]: the incidents that started in it (the start of the
// latest version, else when first observed) and the component outage inside it.
// One read transaction. Per incident it reads the latest version and the headers of the
// versions before it (no decompression), and decodes only the few versions that moved
// the start or the impact: whether an update was added or removed is told by the set
// of update ids, walked back from the latest. An unknown source has no facts.
func (s *Store) Facts(source string, from, to time.Time) ([]SourceFacts, error) {
	var out []SourceFacts
	err := s.view(func(tx *bolt.Tx) error {
		return eachSource(tx, source, func(name string, src *bolt.Bucket) error {
			f, err := s.sourceFacts(tx, name, src, from, to)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			out = append(out, f)
			return nil
		})
	})
	if err != nil {
		return nil, wrapErr("facts", err)
	}
	return out, nil
}

// sourceFacts reads one source's facts.
func (s *Store) sourceFacts(tx *bolt.Tx, name string, src *bolt.Bucket, from, to time.Time) (SourceFacts, error) {
	f := SourceFacts{Source: name}
	var firstPoll time.Time
	if raw := layout.Get(layout.Sub(src, layout.BucketState), layout.KeyFirst); raw != nil {
		firstPoll, _ = time.Parse(time.RFC3339Nano, string(raw)) // unparsable: unknown
	}
	if incidents := src.Bucket(layout.BucketIncidents); incidents != nil {
		versions := src.Bucket(layout.BucketVersions)
		err := incident.EachMeta(incidents, func(k []byte, m codec.Meta) error {
			if m.Kind == model.KindMaintenance || m.Latest == 0 || len(f.Incidents) >= MaxFactIncidents {
				return nil
			}
			start := m.StartedAt
			if start.IsZero() {
				start = m.FirstSeen
			}
			if start.Before(from) || start.After(to) {
				return nil
			}
			facts, ok := s.facts.get(name, k, m)
			if !ok {
				var err error
				if facts, err = incidentFacts(versions, string(k), m); err != nil {
					return fmt.Errorf("%s: %w", k, err)
				}
				s.facts.put(name, k, m, facts)
			}
			if facts == nil { // became a maintenance in a version the meta does not know of
				return nil
			}
			in := *facts
			in.OnFirstPoll = !firstPoll.IsZero() && !in.StartedAt.IsZero() &&
				!m.FirstSeen.After(firstPoll) && in.StartedAt.Before(firstPoll)
			f.Incidents = append(f.Incidents, in)
			return nil
		})
		if err != nil {
			return f, err
		}
	}
	var err error
	f.HasComponents, f.ComponentOutage, err = componentOutage(tx, name, from, to)
	return f, err
}

// incidentFacts reads the facts of incident id (meta m), nil for a maintenance.
func incidentFacts(versions *bolt.Bucket, id string, m codec.Meta) (*IncidentFacts, error) {
	latest, err := incident.Load(versions, id, m.Latest)
	if err != nil {
		return nil, err
	}
	inc := &latest.Incident
	if inc.Kind == model.KindMaintenance {
		return nil, nil
	}
	f := &IncidentFacts{
		ID: id, Impact: inc.Impact, Open: inc.Open() && !m.Removed && !m.Migrated, Removed: m.Removed,
		StartedAt: inc.StartedAt, ResolvedAt: inc.ResolvedAt, FirstSeen: m.FirstSeen,
	}
	ids := make(map[string]bool, len(inc.Updates)) // the update ids of the version walked to
	for _, u := range inc.Updates {
		ids[u.ID] = true
		if !u.PostedAt.IsZero() && (f.FirstUpdateAt.IsZero() || u.PostedAt.Before(f.FirstUpdateAt)) {
			f.FirstUpdateAt = u.PostedAt
		}
	}
	if pm := inc.Postmortem; pm != nil {
		f.Postmortem, f.PostmortemAt = true, pm.PublishedAt
	}

	edited := map[string]bool{}
	prefix := layout.VersionPrefix(id)
	c := versions.Cursor()
	k, v := c.Seek(layout.VersionKey(id, m.Latest))
	for read := 0; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		if read == MaxFactVersions {
			f.Truncated = true
			break
		}
		read++
		h, _, err := codec.DecodeHeader(v)
		if err != nil {
			return nil, fmt.Errorf("version %x: %w", k[len(prefix):], err)
		}
		if h.N <= 1 {
			break // version 1 edits nothing
		}
		var decode bool // the version moved the start or the impact: its values are needed
		for _, field := range h.Fields {
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
				edited[uid] = true
			case ids[uid]: // in the version after: added by this one
				delete(ids, uid)
			default: // not in the version after: removed by this one
				f.UpdatesRemoved++
				ids[uid] = true
			}
		}
		if decode {
			ver, err := codec.DecodeVersion(v)
			if err != nil {
				return nil, fmt.Errorf("version %d: %w", h.N, err)
			}
			editsOf(f, ver)
		}
	}
	f.UpdatesEdited = len(edited)
	return f, nil
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

// componentOutage sums, over a source's components, the time each spent in partial or
// major outage inside [from, to], from the set in force at from and the status changes
// observed after it; has is false when the source had no component set by to.
func componentOutage(tx *bolt.Tx, source string, from, to time.Time) (has bool, total time.Duration, err error) {
	m, err := components.Meta(tx, source)
	if err != nil || m.Latest == 0 {
		return false, 0, err
	}
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
	start, err := components.At(tx, source, from)
	if err != nil {
		return false, 0, err
	}
	has = start != nil
	if start != nil {
		for _, c := range start.Components.List {
			set(c.Key(), outage(c.Status))
		}
	}
	last := from
	err = components.HeadersFrom(tx, source, from, func(h codec.ComponentHeader) bool {
		if h.ObservedAt.After(to) {
			return false
		}
		has = true
		total += time.Duration(n) * h.ObservedAt.Sub(last)
		for _, ch := range h.Changes {
			set(ch.Key, outage(ch.To))
		}
		last = h.ObservedAt
		return true
	})
	if err != nil {
		return false, 0, err
	}
	if has {
		total += time.Duration(n) * to.Sub(last)
	}
	return has, total, nil
}

// outage reports whether a component status is an outage: partial or major.
func outage(s model.ComponentStatus) bool {
	return s == model.ComponentPartialOutage || s == model.ComponentMajorOutage
}

// factsCache remembers the facts of incidents by source, id and what of the meta they
// depend on: the latest version (versions are only ever appended, so the facts of
// versions 1..N never change) and the removed and migrated marks. Repeated figures
// then read the metas alone. Bounded: past maxCachedFacts it starts afresh.
type factsCache struct {
	mu sync.Mutex
	m  map[string]cachedFacts
}

type cachedFacts struct {
	latest            uint32
	removed, migrated bool
	facts             *IncidentFacts // nil: a maintenance
}

// maxCachedFacts bounds the cache: about 300 bytes an entry.
const maxCachedFacts = 200_000

func factsKey(source string, id []byte) string { return source + "\x00" + string(id) }

// get returns the facts remembered for incident id of source at meta m.
func (c *factsCache) get(source string, id []byte, m codec.Meta) (*IncidentFacts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[factsKey(source, id)]
	if !ok || e.latest != m.Latest || e.removed != m.Removed || e.migrated != m.Migrated {
		return nil, false
	}
	return e.facts, true
}

// put remembers the facts of incident id of source at meta m.
func (c *factsCache) put(source string, id []byte, m codec.Meta, f *IncidentFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedFacts {
		c.m = make(map[string]cachedFacts)
	}
	c.m[factsKey(source, id)] = cachedFacts{latest: m.Latest, removed: m.Removed, migrated: m.Migrated, facts: f}
}
