package archive

// The reads of component sets that the daemon's gauges and the source page need: the
// latest version's number, cheap enough to ask after every poll that wrote, and the
// status changes of a whole window.

import (
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/statuswatch/statuswatch/internal/archive/internal/components"
)

// ComponentsLatestVersion returns the number of the latest version of a source's
// component set, 0 when none was archived, from its meta alone: no set is decoded, so a
// caller that keeps what it made of a version asks this first.
func (s *Store) ComponentsLatestVersion(source string) (int, error) {
	var n int
	err := s.view(func(tx *bolt.Tx) error {
		m, err := components.Meta(tx, source)
		n = int(m.Latest)
		return err
	})
	if err != nil {
		return 0, wrapErr("components "+source, err)
	}
	return n, nil
}

// ComponentEventsSince returns the status changes of a source's components observed
// from from on, oldest first, as ComponentHistory does but with a limit of the caller's
// (a source page reads the whole window of its strips at once, past MaxHistoryLimit):
// at most limit entries, more reporting that there were others. It reads version
// headers only.
func (s *Store) ComponentEventsSince(source string, from time.Time, limit int) (events []ComponentEvent, more bool, err error) {
	return s.componentEvents(source, from, time.Time{}, limit)
}
