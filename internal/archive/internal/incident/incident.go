// Package incident is the archive's storage of each source's incidents, inside a bbolt
// transaction the caller holds: each incident's meta (codec.Meta) in the source's bucket
// "incidents", by URL id, and its versions, numbered from 1, in the source's flat bucket
// "versions" (layout.VersionKey). What makes a new version and what it announces are
// internal/archive/policy's and internal/diff's; internal/archive's Record applies them
// and writes here.
package incident

import (
	"bytes"
	"fmt"
	"sort"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// LoadMeta reads an incident's meta from a source's incidents bucket; ok is false when
// the incident is not archived.
func LoadMeta(incidents *bolt.Bucket, id string) (m codec.Meta, ok bool, err error) {
	v := layout.Get(incidents, []byte(id))
	if v == nil {
		return m, false, nil
	}
	m, err = codec.UnmarshalMeta(v)
	if err != nil {
		return m, false, fmt.Errorf("incident %s: %w", id, err)
	}
	return m, true, nil
}

// PutMeta writes an incident's meta, and counts the write (Writes).
func PutMeta(incidents *bolt.Bucket, id string, m *codec.Meta) error {
	if err := incidents.Put([]byte(id), m.Marshal()); err != nil {
		return err
	}
	return countWrite(incidents)
}

// Writes is how many times the metas of a source's incidents bucket were written (the
// bucket's sequence; 0 in an archive written before it was counted), so that a reader
// keeping what it read of a source can tell whether it is still so.
func Writes(incidents *bolt.Bucket) uint64 { return incidents.Sequence() }

// AllWrites is how many times the metas of every source's incidents bucket were
// written since the archive began counting them all (the sources bucket's sequence): a
// reader that knows which sources were written since it last looked can check with it
// that it knows of every write (Store.CachedIncidentHeads).
func AllWrites(tx *bolt.Tx) uint64 { return tx.Bucket(layout.BucketSources).Sequence() }

// countWrite counts a write of the bucket's metas, in Writes and AllWrites: every write
// of a meta goes through here, so a reader comparing them cannot miss one.
func countWrite(incidents *bolt.Bucket) error {
	if err := incidents.SetSequence(incidents.Sequence() + 1); err != nil {
		return err
	}
	all := incidents.Tx().Bucket(layout.BucketSources)
	return all.SetSequence(all.Sequence() + 1)
}

// EachMeta calls fn with the URL id and the meta of every incident of a source's
// incidents bucket, in id order; the id's bytes live as long as the transaction.
func EachMeta(incidents *bolt.Bucket, fn func(id []byte, m codec.Meta) error) error {
	return incidents.ForEach(func(k, v []byte) error {
		m, err := codec.UnmarshalMeta(v)
		if err != nil {
			return fmt.Errorf("incident %s: %w", k, err)
		}
		return fn(k, m)
	})
}

// Load decodes version n of an incident from a source's versions bucket.
func Load(versions *bolt.Bucket, id string, n uint32) (*model.Version, error) {
	data := layout.Get(versions, layout.VersionKey(id, n))
	if data == nil {
		return nil, fmt.Errorf("version %d: %w", n, layout.ErrNotFound)
	}
	v, err := codec.DecodeVersion(data)
	if err != nil {
		return nil, fmt.Errorf("version %d: %w", n, err)
	}
	return v, nil
}

// Put writes version v of an incident to a source's versions bucket.
func Put(versions *bolt.Bucket, id string, v *model.Version) error {
	data, err := codec.EncodeRecord(v)
	if err != nil {
		return err
	}
	return versions.Put(layout.VersionKey(id, uint32(v.N)), data)
}

// Each calls fn with each stored version of an incident, oldest first; the bytes live
// as long as tx. layout.ErrNotFound when there is none.
func Each(tx *bolt.Tx, source, id string, fn func(v []byte) error) error {
	versions := layout.Sub(layout.Source(tx, source), layout.BucketVersions)
	if versions == nil {
		return layout.ErrNotFound
	}
	prefix := layout.VersionPrefix(id)
	c := versions.Cursor()
	n := 0
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(v); err != nil {
			return fmt.Errorf("%x: %w", k[len(prefix):], err)
		}
		n++
	}
	if n == 0 {
		return layout.ErrNotFound
	}
	return nil
}

// CountOpen adds to counts, by impact, the open incidents of source bucket src, from
// their metas alone; a meta written before impacts were kept falls back to a decode.
func CountOpen(src *bolt.Bucket, counts map[model.Impact]int) error {
	incidents := layout.Sub(src, layout.BucketIncidents)
	if incidents == nil {
		return nil
	}
	return EachMeta(incidents, func(k []byte, m codec.Meta) error {
		if !m.Open || m.Removed || m.Migrated {
			return nil
		}
		impact := m.Impact
		if impact == "" {
			ver, err := Load(layout.Sub(src, layout.BucketVersions), string(k), m.Latest)
			if err != nil {
				return err
			}
			impact = ver.Incident.Impact
		}
		counts[impact]++
		return nil
	})
}

// Freeze marks every incident of a source's incidents bucket not removed or migrated
// already as migrated at at, its misses forgotten, and returns how many it marked.
func Freeze(incidents *bolt.Bucket, at time.Time) (int, error) {
	type entry struct {
		id []byte
		m  codec.Meta
	}
	var todo []entry
	err := EachMeta(incidents, func(k []byte, m codec.Meta) error {
		if !m.Removed && !m.Migrated {
			m.Migrated, m.RemovedAt, m.FirstMissed = true, at, time.Time{}
			todo = append(todo, entry{append([]byte(nil), k...), m})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, e := range todo {
		if err := PutMeta(incidents, string(e.id), &e.m); err != nil {
			return 0, err
		}
	}
	return len(todo), nil
}

// Latest decodes the latest version of incident id, from a source's incidents and
// versions buckets; nil when the incident is not archived.
func Latest(incidents, versions *bolt.Bucket, id string) (*model.Version, error) {
	m, ok, err := LoadMeta(incidents, id)
	if err != nil || !ok {
		return nil, err
	}
	return Load(versions, id, m.Latest)
}

// At returns the version of incident id (meta m) in force at t, nil when its
// first version was observed after t. Observation times grow with the version number
// (each is the fetch time of the poll that made it, and a source's polls are
// serialised), so the first version observed after t is found by a binary search over
// the headers.
func At(versions *bolt.Bucket, id string, m codec.Meta, t time.Time) (*model.Version, error) {
	if m.Latest == 0 {
		return nil, nil
	}
	if !m.LastChanged.IsZero() && !m.LastChanged.After(t) {
		return Load(versions, id, m.Latest)
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
	return Load(versions, id, uint32(i))
}
