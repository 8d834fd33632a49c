package archive

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/components"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	bolt "go.etcd.io/bbolt"
)

// SetKind remembers the provider detected for a kind: auto source, so detection runs
// once, not on every poll. It writes only when the kind changes.
func (s *Store) SetKind(source, kind string) error {
	ps, err := s.PollState(source)
	if err != nil || ps.Kind == kind {
		return err
	}
	return wrapErr("set kind "+source, s.update(func(tx *bolt.Tx) error {
		src, err := layout.CreateSource(tx, source)
		if err != nil {
			return err
		}
		return src.Bucket(layout.BucketState).Put(layout.KeyKind, []byte(kind))
	}))
}

// Migrate records that a source's page moved to another platform: its archived
// incidents are frozen as migrated, without a message, and the new platform's incidents
// are taken in as for a new source: the fetch state, pending misses and the first-poll
// mark are cleared, the next component set is a first set, and kind is remembered. It returns how many incidents it froze.
func (s *Store) Migrate(source, kind string, at time.Time) (int, error) {
	frozen := 0
	err := s.update(func(tx *bolt.Tx) error {
		s.notes.note(tx, source)
		src, err := layout.CreateSource(tx, source)
		if err != nil {
			return err
		}
		if incidents := src.Bucket(layout.BucketIncidents); incidents != nil {
			n, err := incident.Freeze(incidents, at)
			if err != nil {
				return err
			}
			frozen = n
		}
		st := src.Bucket(layout.BucketState)
		for _, k := range [][]byte{layout.KeyFetch, layout.KeyPending, layout.KeyFirst} {
			if err := st.Delete(k); err != nil {
				return err
			}
		}
		// The new platform's components have other keys: its first set is taken in as
		// a first set, quietly, rather than as every component leaving and coming.
		if err := components.Quiet(st); err != nil {
			return err
		}
		return st.Put(layout.KeyKind, []byte(kind))
	})
	return frozen, wrapErr("migrate "+source, err)
}
