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
	"github.com/statuswatch/statuswatch/internal/figures"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// IncidentFacts and SourceFacts are what the figures of a source are computed from
// (internal/figures computes them from what Facts reads).
type (
	IncidentFacts = figures.IncidentFacts
	SourceFacts   = figures.SourceFacts
)

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
	out, err := read(s, "facts", func(tx *bolt.Tx) (out []SourceFacts, err error) {
		return out, eachSource(tx, source, func(name string, src *bolt.Bucket) error {
			f, err := s.sourceFacts(tx, name, src, from, to)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			out = append(out, f)
			return nil
		})
	})
	if err != nil {
		return nil, err
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
		var walk figures.Walk // one for every incident of the source
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
				if facts, err = incidentFacts(&walk, versions, string(k), m); err != nil {
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

// incidentFacts reads the facts of incident id (meta m), nil for a maintenance: it
// decodes the latest version, and walks the headers of the versions from the latest
// back (figures.Walk), decoding only those the walk asks for.
func incidentFacts(w *figures.Walk, versions *bolt.Bucket, id string, m codec.Meta) (*IncidentFacts, error) {
	latest, err := incident.Load(versions, id, m.Latest)
	if err != nil {
		return nil, err
	}
	if latest.Incident.Kind == model.KindMaintenance {
		return nil, nil
	}
	w.Start(figures.Listing{ID: id, Removed: m.Removed, Migrated: m.Migrated, FirstSeen: m.FirstSeen}, &latest.Incident)
	prefix := layout.VersionPrefix(id)
	c := versions.Cursor()
	for k, v := c.Seek(layout.VersionKey(id, m.Latest)); k != nil && bytes.HasPrefix(k, prefix) && w.More(); k, v = c.Prev() {
		h, _, err := codec.DecodeHeader(v)
		if err != nil {
			return nil, fmt.Errorf("version %x: %w", k[len(prefix):], err)
		}
		decode, more := w.Version(h.N, h.Fields)
		if decode {
			ver, err := codec.DecodeVersion(v)
			if err != nil {
				return nil, fmt.Errorf("version %d: %w", h.N, err)
			}
			w.Decoded(ver)
		}
		if !more {
			break
		}
	}
	return w.Facts(), nil
}

// componentOutage sums, over a source's components, the time each spent in partial or
// major outage inside [from, to] (figures.ComponentOutage), from the set in force at
// from and the status changes observed after it; has is false when the source had no
// component set by to.
func componentOutage(tx *bolt.Tx, source string, from, to time.Time) (has bool, total time.Duration, err error) {
	m, err := components.Meta(tx, source)
	if err != nil || m.Latest == 0 {
		return false, 0, err
	}
	start, err := components.At(tx, source, from)
	if err != nil {
		return false, 0, err
	}
	var set *model.Components
	if start != nil {
		set = &start.Components
	}
	steps := func(yield func(figures.ComponentStep) bool) {
		err = components.HeadersFrom(tx, source, from, func(h codec.ComponentHeader) bool {
			return yield(figures.ComponentStep{At: h.ObservedAt, Changes: h.Changes})
		})
	}
	has, total = figures.ComponentOutage(set, steps, from, to)
	if err != nil {
		return false, 0, err
	}
	return has, total, nil
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
