package archive

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// WriteTo writes a consistent copy of the whole archive to w while the daemon keeps
// running (`watcher backup`, GET /api/v1/backup): a read transaction sees one committed
// state and does not block the writer.
func (s *Store) WriteTo(w io.Writer) (n int64, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		n, err = tx.WriteTo(w)
		return err
	})
	return n, wrapErr("backup", err)
}

// Backup writes a consistent copy of the whole archive to w, however slowly w takes it,
// without holding the archive: the copy is first written to an unlinked temporary file
// beside the archive in one read transaction, which lasts as long as a local disk copy
// takes, then streamed from there. A read transaction open for the whole of a slow
// download would keep bbolt from remapping a growing file, and every write would wait
// for the download to end. It needs free space for one copy of the archive; the space
// is released when Backup returns, or by the kernel if the process dies.
func (s *Store) Backup(w io.Writer) (n int64, err error) {
	f, err := os.CreateTemp(filepath.Dir(s.path), "."+filepath.Base(s.path)+".backup-*")
	if err != nil {
		return 0, wrapErr("backup", err)
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return 0, wrapErr("backup", err)
	}
	size, err := s.WriteTo(f)
	if err != nil {
		return 0, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, wrapErr("backup", err)
	}
	n, err = io.Copy(w, f)
	if err == nil && n != size {
		err = fmt.Errorf("copied %d of %d bytes", n, size)
	}
	return n, wrapErr("backup", err)
}

// PruneSnapshots deletes the raw snapshots fetched before cutoff (retention.raw_snapshots)
// and the bodies no remaining snapshot uses; versions are kept. Per source, the latest
// snapshot before cutoff stays: it is still the payload in force at cutoff, and
// "what did the page say at T" must keep an answer for every T after it. The file does
// not shrink (bbolt reuses the pages); `watcher compact` reclaims them. It writes only
// when there is something to delete.
func (s *Store) PruneSnapshots(cutoff time.Time) (snapshots, bodies int, err error) {
	var p *snapshot.Prunable
	err = s.view(func(tx *bolt.Tx) (err error) {
		p, err = snapshot.Find(tx, cutoff, func() error { return s.releaseMapped(tx) })
		return err
	})
	if err != nil || len(p.Snapshots)+len(p.Bodies) == 0 {
		return 0, 0, wrapErr("prune snapshots", err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		p, err = snapshot.Find(tx, cutoff, func() error { return s.releaseMapped(tx) })
		if err != nil {
			return err
		}
		return p.Delete(tx)
	})
	if err != nil {
		return 0, 0, wrapErr("prune snapshots", err)
	}
	return len(p.Snapshots), len(p.Bodies), nil
}
