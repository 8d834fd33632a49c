package archive

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
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
	return listIncidents(s, "incidents at "+t.Format(time.RFC3339), source, func(name string, k []byte, m codec.Meta, versions *bolt.Bucket) (*IncidentInfo, error) {
		if m.FirstSeen.After(t) {
			return nil, nil
		}
		ver, err := incident.At(versions, string(k), m, t)
		if err != nil || ver == nil { // nil: version 1 observed after t, not yet on our page
			return nil, err
		}
		gone := !m.RemovedAt.IsZero() && !m.RemovedAt.After(t)
		info := &IncidentInfo{
			Source: name, ID: string(k), Latest: ver.Incident, Versions: ver.N,
			FirstSeen: m.FirstSeen, LastChanged: ver.ObservedAt,
			Removed: m.Removed && gone, Migrated: m.Migrated && gone, Announced: m.Announced,
		}
		if gone {
			info.RemovedAt = m.RemovedAt
		}
		return info, nil
	})
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
