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
	return read(s, "incident heads", func(tx *bolt.Tx) (out []IncidentHead, err error) {
		sources := 0
		return out, eachSource(tx, "", func(name string, src *bolt.Bucket) error {
			// A walk over every source's incident records touches pages all over the file:
			// they are let go of as it goes (ReleasePages), or a 10,000-source archive would
			// leave a gigabyte of them in the daemon's RSS.
			if sources++; sources%releaseHeadsEvery == 0 {
				if err := s.releaseMapped(tx); err != nil {
					return err
				}
			}
			incidents := src.Bucket(layout.BucketIncidents)
			if incidents == nil {
				return nil
			}
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
			return nil
		})
	})
}

// releaseHeadsEvery is how many sources a walk over all of them reads between two releases of
// the pages it mapped.
const releaseHeadsEvery = 256
