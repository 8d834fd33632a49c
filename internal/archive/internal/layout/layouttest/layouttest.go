// Package layouttest opens, for the tests of the archive's internal packages, a bbolt
// file in a test's temporary directory with the archive's tree at the current layout
// and one source, so that each can test its bucket-level work without a Store.
package layouttest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	bolt "go.etcd.io/bbolt"
)

// Open returns such a file, created at now, holding source; it is closed when the test
// ends.
func Open(t testing.TB, now time.Time, source string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "watcher.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	err = db.Update(func(tx *bolt.Tx) error {
		if err := layout.Upgrade(tx, 0, now); err != nil {
			return err
		}
		_, err := layout.CreateSource(tx, source)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}
