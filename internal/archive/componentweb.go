package archive

// The reads of component sets that the daemon's gauges need: cheap enough to run after
// every poll that wrote.

import (
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
