// Package snapshot is the archive's store of raw payloads, inside a bbolt transaction
// the caller holds: per source, the index of each snapshot kept, by fetch time (which
// body each endpoint had), and the bodies themselves, compressed once per hash and
// shared by every snapshot that had them. It stores, finds the snapshot in force at a
// time, and finds what a retention cutoff lets go; internal/archive decides when.
package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Index is what a snapshot key maps to: which body each endpoint had.
type Index struct {
	FetchedAt time.Time `json:"fetched_at"`
	Bodies    []Ref     `json:"bodies"`
}

// Ref is an endpoint's body in a snapshot, by hash.
type Ref struct {
	Endpoint string `json:"endpoint"`
	Hash     string `json:"hash"`
}

// Put stores the raw bodies not yet archived, compressed by c, and the index entry of
// the snapshot fetched at in a source's bucket of snapshots. A Body with nil Data is one
// archived before, referenced by Hash.
func Put(tx *bolt.Tx, snapshots *bolt.Bucket, at time.Time, bodies []model.Body, c *codec.Bodies) error {
	stored := tx.Bucket(layout.BucketBodies)
	idx := Index{FetchedAt: at}
	for _, b := range bodies {
		hash := b.Hash
		if b.Data == nil {
			if hash != "" {
				idx.Bodies = append(idx.Bodies, Ref{b.Endpoint, hash})
			}
			continue
		}
		if hash == "" || stored.Get([]byte(hash)) == nil {
			// Hash only what is about to be stored: a wrong hash from the caller would
			// file these bytes under another body's name for good.
			sum := sha256.Sum256(b.Data)
			got := hex.EncodeToString(sum[:])
			if hash != "" && hash != got {
				return fmt.Errorf("body %s: hash %s does not match its data (%s)", b.Endpoint, hash, got)
			}
			hash = got
			if stored.Get([]byte(hash)) == nil {
				if err := stored.Put([]byte(hash), c.Compress(b.Data)); err != nil {
					return fmt.Errorf("body %s: %w", b.Endpoint, err)
				}
			}
		}
		idx.Bodies = append(idx.Bodies, Ref{b.Endpoint, hash})
	}
	slices.SortFunc(idx.Bodies, func(a, b Ref) int { return strings.Compare(a.Endpoint, b.Endpoint) })
	return layout.PutJSON(snapshots, layout.TimeKey(at), &idx)
}

// At returns the index of a source's snapshot in force at the time whose key is key (the
// latest at or before it) and a copy of each of its bodies, compressed, nil for one
// whose bytes were never archived: the caller decompresses them after the transaction,
// to keep it short. layout.ErrNotFound when there is none.
func At(tx *bolt.Tx, source string, key []byte) (Index, [][]byte, error) {
	var idx Index
	snapshots := layout.Sub(layout.Source(tx, source), layout.BucketSnapshots)
	if snapshots == nil {
		return idx, nil, layout.ErrNotFound
	}
	c := snapshots.Cursor()
	k, v := c.Seek(key)
	if k == nil || !bytes.Equal(k, key) {
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
	}
	if k == nil {
		return idx, nil, layout.ErrNotFound
	}
	if err := json.Unmarshal(v, &idx); err != nil {
		return idx, nil, fmt.Errorf("snapshot %x: %w", k, err)
	}
	bodies := tx.Bucket(layout.BucketBodies)
	var compressed [][]byte
	for _, b := range idx.Bodies {
		compressed = append(compressed, bytes.Clone(bodies.Get([]byte(b.Hash))))
	}
	return idx, compressed, nil
}
