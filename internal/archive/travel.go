package archive

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// IncidentsAt lists the incidents of source (every source when empty) as they stood at
// t, in the order of Incidents: only those first observed at or before t, each with
// the version in force then (the latest observed at or before t). Versions and
// LastChanged are that version's number and observation time; Removed and Migrated
// hold only when they had happened by t.
//
// One read transaction; per incident one record read when its latest version was in
// force at t, else a binary search over the version headers (about log2(N) header reads,
// no decompression) and one decode: the work is bounded however long a history is.
func (s *Store) IncidentsAt(source string, t time.Time) ([]IncidentInfo, error) {
	var out []IncidentInfo
	err := s.view(func(tx *bolt.Tx) error {
		return eachSource(tx, source, func(name string, src *bolt.Bucket) error {
			incidents := src.Bucket(layout.BucketIncidents)
			if incidents == nil {
				return nil
			}
			versions := src.Bucket(layout.BucketVersions)
			return incident.EachMeta(incidents, func(k []byte, m codec.Meta) error {
				if m.FirstSeen.After(t) {
					return nil
				}
				ver, err := versionAt(versions, string(k), m, t)
				if err != nil {
					return fmt.Errorf("%s/%s: %w", name, k, err)
				}
				if ver == nil { // version 1 observed after t: not yet on our page
					return nil
				}
				gone := !m.RemovedAt.IsZero() && !m.RemovedAt.After(t)
				info := IncidentInfo{
					Source: name, ID: string(k), Latest: ver.Incident, Versions: ver.N,
					FirstSeen: m.FirstSeen, LastChanged: ver.ObservedAt,
					Removed: m.Removed && gone, Migrated: m.Migrated && gone, Announced: m.Announced,
				}
				if gone {
					info.RemovedAt = m.RemovedAt
				}
				out = append(out, info)
				return nil
			})
		})
	})
	if err != nil {
		return nil, wrapErr("incidents at "+t.Format(time.RFC3339), err)
	}
	slices.SortStableFunc(out, func(a, b IncidentInfo) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), b.LastChanged.Compare(a.LastChanged), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// versionAt returns the version of incident id (meta m) in force at t, nil when its
// first version was observed after t. Observation times grow with the version number
// (each is the fetch time of the poll that made it, and a source's polls are
// serialised), so the first version observed after t is found by a binary search over
// the headers.
func versionAt(versions *bolt.Bucket, id string, m codec.Meta, t time.Time) (*model.Version, error) {
	if m.Latest == 0 {
		return nil, nil
	}
	if !m.LastChanged.IsZero() && !m.LastChanged.After(t) {
		return incident.Load(versions, id, m.Latest)
	}
	var ferr error
	i := sort.Search(int(m.Latest), func(i int) bool {
		n := uint32(i + 1)
		data := layout.Get(versions, layout.VersionKey(id, n))
		if data == nil {
			ferr = fmt.Errorf("version %d: %w", n, layout.ErrNotFound)
			return true
		}
		h, _, err := codec.DecodeHeader(data)
		if err != nil {
			ferr = fmt.Errorf("version %d: %w", n, err)
			return true
		}
		return h.ObservedAt.After(t)
	})
	if ferr != nil {
		return nil, ferr
	}
	if i == 0 {
		return nil, nil
	}
	return incident.Load(versions, id, uint32(i))
}

// eachSource calls fn with the name and bucket of source, or of every archived source by
// name when source is empty; an unknown source is no call.
func eachSource(tx *bolt.Tx, source string, fn func(name string, src *bolt.Bucket) error) error {
	if source != "" {
		if src := layout.Source(tx, source); src != nil {
			return fn(source, src)
		}
		return nil
	}
	return tx.Bucket(layout.BucketSources).ForEachBucket(func(name []byte) error {
		return fn(string(name), layout.Source(tx, string(name)))
	})
}
