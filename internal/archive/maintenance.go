package archive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
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
	var p *prunable
	err = s.view(func(tx *bolt.Tx) (err error) {
		p, err = s.findPrunable(tx, cutoff)
		return err
	})
	if err != nil || len(p.snapshots)+len(p.bodies) == 0 {
		return 0, 0, wrapErr("prune snapshots", err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		p, err = s.findPrunable(tx, cutoff)
		if err != nil {
			return err
		}
		for _, k := range p.snapshots {
			if err := layout.Sub(layout.Source(tx, k.source), layout.BucketSnapshots).Delete(k.key); err != nil {
				return err
			}
		}
		for _, h := range p.bodies {
			if err := tx.Bucket(layout.BucketBodies).Delete(h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, wrapErr("prune snapshots", err)
	}
	return len(p.snapshots), len(p.bodies), nil
}

// prunable is what PruneSnapshots deletes; its keys are copies, valid after the
// transaction.
type prunable struct {
	snapshots []sourceKey
	bodies    [][]byte
}

type sourceKey struct {
	source string
	key    []byte
}

// releaseEvery is how many sources a whole-archive scan reads between two releases of
// the pages it mapped (Store.ReleasePages), so that its peak RSS stays small.
const releaseEvery = 64

func (s *Store) findPrunable(tx *bolt.Tx, cutoff time.Time) (*prunable, error) {
	p := &prunable{}
	used := map[string]bool{}
	limit := layout.TimeKey(cutoff)
	n := 0
	err := tx.Bucket(layout.BucketSources).ForEachBucket(func(name []byte) error {
		if n++; n%releaseEvery == 0 {
			if err := s.releaseMapped(tx); err != nil {
				return err
			}
		}
		b := layout.Sub(layout.Source(tx, string(name)), layout.BucketSnapshots)
		if b == nil {
			return nil
		}
		// Keys sort by fetch time: every one before cutoff goes but the last.
		var old [][]byte
		c := b.Cursor()
		for k, _ := c.First(); k != nil && bytes.Compare(k, limit) < 0; k, _ = c.Next() {
			old = append(old, bytes.Clone(k))
		}
		if len(old) > 0 {
			old = old[:len(old)-1]
		}
		for _, k := range old {
			p.snapshots = append(p.snapshots, sourceKey{string(name), k})
		}
		var keep []byte
		if len(old) > 0 {
			keep = old[len(old)-1]
		}
		for k, v := c.Seek(keep); k != nil; k, v = c.Next() {
			if keep != nil && bytes.Equal(k, keep) {
				continue
			}
			var idx snapshotIndex
			if err := json.Unmarshal(v, &idx); err != nil {
				return fmt.Errorf("snapshot %s/%x: %w", name, k, err)
			}
			for _, r := range idx.Bodies {
				used[r.Hash] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = tx.Bucket(layout.BucketBodies).ForEach(func(k, _ []byte) error {
		if !used[string(k)] {
			p.bodies = append(p.bodies, bytes.Clone(k))
		}
		return nil
	})
	return p, err
}
