package snapshot

// What a retention cutoff lets go: the snapshots fetched before it but the one still in
// force at it, and the bodies no remaining snapshot uses.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	bolt "go.etcd.io/bbolt"
)

// Prunable is what Prune deletes; its keys are copies, valid after the transaction.
type Prunable struct {
	Snapshots []SourceKey
	Bodies    [][]byte
}

// SourceKey is the key of a snapshot of source.
type SourceKey struct {
	Source string
	Key    []byte
}

// ReleaseEvery is how many sources a whole-archive scan reads between two releases of
// the pages it mapped (the Store's ReleasePages), so that its peak RSS stays small.
const ReleaseEvery = 64

// releaseBodiesEvery is how many bodies the walk over their keys reads between two
// releases: a body of more than a page is a leaf of its own, so each key is on pages of
// its own, and the kernel maps tens of KB around each (a 1,000-source archive's keys
// mapped 50 MB at once).
const releaseBodiesEvery = 256

// Find finds what a cutoff lets go: per source, every snapshot fetched before cutoff but
// the latest of them, which is still the payload in force at cutoff; and every body no
// remaining snapshot uses. It calls release every ReleaseEvery sources and every
// releaseBodiesEvery bodies.
func Find(tx *bolt.Tx, cutoff time.Time, release func() error) (*Prunable, error) {
	p := &Prunable{}
	used := map[string]bool{}
	limit := layout.TimeKey(cutoff)
	n := 0
	err := tx.Bucket(layout.BucketSources).ForEachBucket(func(name []byte) error {
		if n++; n%ReleaseEvery == 0 {
			if err := release(); err != nil {
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
			p.Snapshots = append(p.Snapshots, SourceKey{string(name), k})
		}
		var keep []byte
		if len(old) > 0 {
			keep = old[len(old)-1]
		}
		for k, v := c.Seek(keep); k != nil; k, v = c.Next() {
			if keep != nil && bytes.Equal(k, keep) {
				continue
			}
			var idx Index
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
	n = 0
	err = tx.Bucket(layout.BucketBodies).ForEach(func(k, _ []byte) error {
		if n++; n%releaseBodiesEvery == 0 {
			if err := release(); err != nil {
				return err
			}
		}
		if !used[string(k)] {
			p.Bodies = append(p.Bodies, bytes.Clone(k))
		}
		return nil
	})
	return p, err
}

// Delete deletes what p holds, in a write transaction.
func (p *Prunable) Delete(tx *bolt.Tx) error {
	for _, k := range p.Snapshots {
		if err := layout.Sub(layout.Source(tx, k.Source), layout.BucketSnapshots).Delete(k.Key); err != nil {
			return err
		}
	}
	for _, h := range p.Bodies {
		if err := tx.Bucket(layout.BucketBodies).Delete(h); err != nil {
			return err
		}
	}
	return nil
}
