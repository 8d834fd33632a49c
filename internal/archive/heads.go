package archive

import (
	"fmt"
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
	return read(s, "incident heads", func(tx *bolt.Tx) (out []IncidentHead, err error) {
		var next map[string]cachedHeads
		if cache != nil {
			next = make(map[string]cachedHeads, len(cache.sources))
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
			if c, ok := cache.get(name); ok && c.writes == writes {
				from := len(out)
				for i := range c.heads {
					if keep == nil || keep(&c.heads[i]) {
						out = append(out, c.heads[i])
					}
				}
				next[name] = cachedHeads{writes, out[from:len(out):len(out)]}
				return nil
			}
			from := len(out)
			err := incident.EachMeta(incidents, func(k []byte, m codec.Meta) error {
				h := IncidentHead{Source: name, Versions: int(m.Latest),
					Removed: m.Removed, FirstSeen: m.FirstSeen, LastChanged: m.LastChanged,
					StartedAt: m.StartedAt, Open: m.Open, Kind: m.Kind}
				if keep == nil || keep(&h) {
					h.ID = string(k)
					out = append(out, h)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if next != nil {
				next[name] = cachedHeads{writes, out[from:len(out):len(out)]}
			}
			return nil
		})
		if err == nil && cache != nil {
			cache.sources = next // sources no longer archived drop out
		}
		return out, err
	})
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
