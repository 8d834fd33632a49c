package archive

import (
	"errors"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/searchindex"
	bolt "go.etcd.io/bbolt"
)

// Layout is the layout version this build writes and reads (the file's tree is
// internal/archive/internal/layout's).
const Layout = layout.Current

// migrate checks the layout and runs the migrations still due. An archive already at the
// current layout is only read: opening must not write, or every browse command would
// bump the file.
func (s *Store) migrate(readOnly bool) error {
	var from int
	err := s.view(func(tx *bolt.Tx) (err error) {
		from, err = layout.Read(tx)
		return err
	})
	switch {
	case errors.Is(err, ErrDamaged):
		return err // names the file already
	case err != nil:
		return fmt.Errorf("archive %s: %w", s.path, err)
	case from > Layout:
		return fmt.Errorf("archive %s has layout %d, newer than the %d this watcher understands: upgrade watcher: %w",
			s.path, from, Layout, ErrLayout)
	case from == Layout:
		return nil
	case readOnly && from >= 1:
		// Layout 2 only rewrote the snapshot keys, and layout 3 the fetch states: a
		// read-only open reads layout 1's keys as they are, and every fetch state is
		// read in either form (codec.DecodeFetchState), so browse commands keep working until
		// the daemon migrates. Layout 4 added the search index, which is then missing,
		// and layout 5 changed its form, which is then the old one: either way Search
		// says so (ErrNoIndex) and every other read works.
		s.legacyTimeKeys = from == 1
		return nil
	case readOnly:
		return fmt.Errorf("archive %s has layout %d and needs migrating to %d: open it once read-write: %w",
			s.path, from, Layout, ErrLayout)
	}
	err = s.update(func(tx *bolt.Tx) error {
		// Read again: another process may have migrated it between the two transactions.
		from, err := layout.Read(tx)
		if err != nil {
			return err
		}
		return layout.Upgrade(tx, from, s.clock())
	})
	if err != nil {
		return fmt.Errorf("archive %s: %w", s.path, err)
	}
	return nil
}

// timeKey is the store's form of a snapshot key (see layout.LegacyTimeKey).
func (s *Store) timeKey(t time.Time) []byte {
	if s.legacyTimeKeys {
		return layout.LegacyTimeKey(t)
	}
	return layout.TimeKey(t)
}

// searchChunk is how many versions one transaction of the search index's build indexes.
var searchChunk = 20000 // a variable for the tests

// buildSearch finishes building a search index that a migration left pending (the
// versions archived before it existed), a chunk per write transaction, so that an
// interrupted build goes on where it stopped at the next open. progress, when not nil,
// hears the versions indexed so far after each chunk.
func (s *Store) buildSearch(progress func(indexed int)) error {
	total := 0
	for {
		var pending bool
		if err := s.view(func(tx *bolt.Tx) error {
			_, pending = searchindex.Pending(tx)
			return nil
		}); err != nil || !pending {
			return err
		}
		var done bool
		var n int
		err := s.update(func(tx *bolt.Tx) (err error) {
			n, done, err = layout.BuildSearch(tx, searchChunk)
			return err
		})
		if err != nil {
			return fmt.Errorf("archive %s: search index: %w", s.path, err)
		}
		if total += n; progress != nil {
			progress(total)
		}
		if done {
			return nil
		}
	}
}
