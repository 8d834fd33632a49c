package archive

import (
	"fmt"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// IncidentHead is what an incident's record says of it, without a version decoded: enough
// for a reader that keeps the incidents it decoded to tell which changed.
type IncidentHead struct {
	Source, ID  string // ID is the URL id
	Versions    int    // the latest version's number
	Removed     bool
	FirstSeen   time.Time // when version 1 was observed
	LastChanged time.Time // when the latest version was observed
	// What the latest version says, without its decode: its start (zero when the page
	// gives none), whether it is open, and its kind.
	StartedAt time.Time
	Open      bool
	Kind      model.Kind
}

// IncidentHeads lists the head of every archived incident, by source then id. It reads the
// small incident records only (a fixed binary layout), never a version: a fraction of
// what Incidents costs.
//
// keep, when not nil, chooses the heads listed: a reader that wants a few of an archive's
// incidents does not hold a head for each of them.
func (s *Store) IncidentHeads(keep func(*IncidentHead) bool) ([]IncidentHead, error) {
	return s.CachedIncidentHeads(nil, keep)
}

// HeadCache is what CachedIncidentHeads kept of each source, with the source's count of
// incident record writes at the time (incident.Writes), so that the next call decodes
// again only the sources written since. A reader asking the same question after every
// change (the notifier's "Also affected") then reads the records of one source, not of
// ten thousand. The zero value is an empty cache; it is not safe for concurrent use.
type HeadCache struct {
	sources map[string]cachedHeads
	names   []string // the keys of sources, in order: the order heads are listed in
	// What the cache is as of: a transaction of store's, whose write notes tell the
	// sources written since, and the count of all incident record writes then.
	store   *Store
	tx, all uint64
	walks   int // how many times it was filled by walking every source
}

type cachedHeads struct {
	writes uint64
	heads  []IncidentHead
}

// CachedIncidentHeads is IncidentHeads through cache (nil: none). A source whose
// incident records were not written since the cache saw them gives the heads kept then,
// chosen again by keep: keep may leave out a head it kept before (an incident closed that
// aged out of a time window), but must not take back one it left out while the incident
// is unchanged, as it is not asked again.
func (s *Store) CachedIncidentHeads(cache *HeadCache, keep func(*IncidentHead) bool) ([]IncidentHead, error) {
	return read(s, "incident heads", func(tx *bolt.Tx) ([]IncidentHead, error) {
		if out, ok, err := s.updateHeads(tx, cache, keep); ok || err != nil {
			return out, err
		}
		return s.walkHeads(tx, cache, keep)
	})
}

// updateHeads brings cache up to date reading only the sources noted as written since
// (writeNotes); ok is false when it cannot: no cache yet, notes dropped, or writes
// counted that the sources noted do not account for. The caller walks then.
func (s *Store) updateHeads(tx *bolt.Tx, cache *HeadCache, keep func(*IncidentHead) bool) (out []IncidentHead, ok bool, err error) {
	if cache == nil || cache.store != s || cache.sources == nil {
		return nil, false, nil
	}
	id, all := uint64(tx.ID()), incident.AllWrites(tx)
	if id < cache.tx || all < cache.all {
		return nil, false, nil
	}
	noted, ok := s.notes.since(cache.tx, id)
	if !ok {
		return nil, false, nil
	}
	fresh := make(map[string]cachedHeads, len(noted))
	var counted uint64
	for _, name := range noted {
		incidents := layout.Sub(layout.Source(tx, name), layout.BucketIncidents)
		if incidents == nil {
			continue
		}
		c, had := cache.sources[name]
		writes := incident.Writes(incidents)
		if writes < c.writes {
			return nil, false, nil
		}
		counted += writes - c.writes
		if had && writes == c.writes {
			continue
		}
		heads, err := appendHeads(nil, name, incidents, keep)
		if err != nil {
			return nil, true, err
		}
		fresh[name] = cachedHeads{writes, heads}
	}
	if counted != all-cache.all {
		return nil, false, nil // a write not noted: walk
	}
	for name := range fresh {
		if i, found := slices.BinarySearch(cache.names, name); !found {
			cache.names = slices.Insert(cache.names, i, name)
		}
	}
	for _, name := range cache.names {
		c, ok := fresh[name]
		if !ok {
			c = cache.sources[name]
		}
		from := len(out)
		for i := range c.heads {
			if keep == nil || keep(&c.heads[i]) {
				out = append(out, c.heads[i])
			}
		}
		// Every entry points into out, this call's: one into an earlier call's would
		// keep that whole array alive.
		cache.sources[name] = cachedHeads{c.writes, out[from:len(out):len(out)]}
	}
	cache.tx, cache.all = id, all
	return out, true, nil
}

// walkHeads lists the heads of every source, reading again those whose incident records
// were written since cache saw them, and fills cache (nil: none) anew.
func (s *Store) walkHeads(tx *bolt.Tx, cache *HeadCache, keep func(*IncidentHead) bool) (out []IncidentHead, err error) {
	var next map[string]cachedHeads
	var names []string
	if cache != nil {
		next = make(map[string]cachedHeads, len(cache.sources))
		names = make([]string, 0, len(cache.sources))
	}
	walked := 0
	err = eachSource(tx, "", func(name string, src *bolt.Bucket) error {
		// A walk over every source touches pages all over the file, even one that
		// only reads each source's write count: they are let go of as it goes
		// (ReleasePages), or a 10,000-source archive would leave a gigabyte of them
		// (or, all cached, ~100 MB) in the daemon's RSS.
		if walked++; walked%releaseSourcesEvery == 0 {
			if err := s.releaseMapped(tx); err != nil {
				return err
			}
		}
		incidents := src.Bucket(layout.BucketIncidents)
		if incidents == nil {
			return nil
		}
		writes := incident.Writes(incidents)
		from := len(out)
		if c, ok := cache.get(name); ok && c.writes == writes {
			for i := range c.heads {
				if keep == nil || keep(&c.heads[i]) {
					out = append(out, c.heads[i])
				}
			}
		} else if out, err = appendHeads(out, name, incidents, keep); err != nil {
			return err
		}
		if next != nil {
			next[name] = cachedHeads{writes, out[from:len(out):len(out)]}
			names = append(names, name)
		}
		return nil
	})
	if err == nil && cache != nil {
		// Sources no longer archived drop out.
		cache.sources, cache.names = next, names
		cache.store, cache.tx, cache.all = s, uint64(tx.ID()), incident.AllWrites(tx)
		cache.walks++
	}
	return out, err
}

// appendHeads appends the heads of a source's incidents that keep keeps (nil: all).
func appendHeads(out []IncidentHead, source string, incidents *bolt.Bucket, keep func(*IncidentHead) bool) ([]IncidentHead, error) {
	err := incident.EachMeta(incidents, func(k []byte, m codec.Meta) error {
		h := IncidentHead{Source: source, Versions: int(m.Latest),
			Removed: m.Removed, FirstSeen: m.FirstSeen, LastChanged: m.LastChanged,
			StartedAt: m.StartedAt, Open: m.Open, Kind: m.Kind}
		if keep == nil || keep(&h) {
			h.ID = string(k)
			out = append(out, h)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("%s: %w", source, err)
	}
	return out, nil
}

func (c *HeadCache) get(source string) (cachedHeads, bool) {
	if c == nil {
		return cachedHeads{}, false
	}
	h, ok := c.sources[source]
	return h, ok
}

// releaseSourcesEvery is how many sources a walk over all of them reads between two releases
// of the pages it mapped (IncidentHeads, PollStates): the heads of a source's incidents map
// ~135 KB of the file (10,000 sources: 1.35 GB), so 256 sources held up to 35 MB at once.
const releaseSourcesEvery = 64
