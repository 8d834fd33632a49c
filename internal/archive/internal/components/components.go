// Package components is the archive's storage of each source's component set, inside a
// bbolt transaction the caller holds: the set's versions, numbered from 1 in the source's
// bucket "components", each component with when it entered its status and, when not
// operational, when it left operational (its spell); and the component meta in the
// source's state, which names the latest version and keeps what a dashboard shows of it.
// The version in force at a time is found by a binary search over the versions' headers,
// which never decompresses a set.
//
// What makes a new version and the messages it calls for are internal/archive/policy's;
// internal/archive's Record applies them and writes here, in its transaction.
package components

import (
	"fmt"
	"sort"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// ReadMeta reads the component meta of a source's state bucket, the zero meta when it
// has none (or the bucket is nil).
func ReadMeta(state *bolt.Bucket) (codec.ComponentMeta, error) {
	return codec.UnmarshalComponentMeta(layout.Get(state, layout.KeyComponents))
}

// Meta reads a source's component meta, the zero meta when it has none.
func Meta(tx *bolt.Tx, source string) (codec.ComponentMeta, error) {
	return ReadMeta(layout.Sub(layout.Source(tx, source), layout.BucketState))
}

// Bucket is a source's bucket of component versions, nil when it has none.
func Bucket(tx *bolt.Tx, source string) *bolt.Bucket {
	return layout.Sub(layout.Source(tx, source), layout.BucketComponents)
}

// Load decodes component version n of bucket b, and by key when each component not
// operational left operational.
func Load(b *bolt.Bucket, n uint32) (*model.ComponentVersion, map[string]time.Time, error) {
	data := layout.Get(b, layout.ComponentKey(n))
	if data == nil {
		return nil, nil, fmt.Errorf("component version %d: %w", n, layout.ErrNotFound)
	}
	v, down, err := codec.DecodeComponentVersion(data)
	if err != nil {
		return nil, nil, fmt.Errorf("component version %d: %w", n, err)
	}
	return v, down, nil
}

// Latest returns the latest version of a source's component set; nil when it has none.
func Latest(tx *bolt.Tx, source string) (*model.ComponentVersion, error) {
	m, err := Meta(tx, source)
	if err != nil || m.Latest == 0 {
		return nil, err
	}
	v, _, err := Load(Bucket(tx, source), m.Latest)
	return v, err
}

// At returns the version of a source's component set in force at t: the latest observed
// at or before t; nil when none was archived by t.
func At(tx *bolt.Tx, source string, t time.Time) (*model.ComponentVersion, error) {
	m, err := Meta(tx, source)
	if err != nil || m.Latest == 0 {
		return nil, err
	}
	b := Bucket(tx, source)
	// The first version observed after t, less one.
	n, err := firstAfter(b, m.Latest, func(at time.Time) bool { return at.After(t) })
	if err != nil || n == 1 {
		return nil, err
	}
	v, _, err := Load(b, n-1)
	return v, err
}

// Headers calls fn with the header of every version of a source's component set,
// oldest first; never when it has none.
func Headers(tx *bolt.Tx, source string, fn func(h codec.ComponentHeader)) error {
	b := Bucket(tx, source)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		h, err := codec.DecodeComponentHeader(v)
		if err != nil {
			return fmt.Errorf("component version %x: %w", k, err)
		}
		fn(h)
		return nil
	})
}

// HeadersFrom calls fn with the header of every version of a source's component set
// observed at or after from, oldest first, for as long as fn returns true. It starts at
// from by a binary search.
func HeadersFrom(tx *bolt.Tx, source string, from time.Time, fn func(h codec.ComponentHeader) bool) error {
	m, err := Meta(tx, source)
	if err != nil || m.Latest == 0 {
		return err
	}
	b := Bucket(tx, source)
	n, err := firstAfter(b, m.Latest, func(at time.Time) bool { return !at.Before(from) })
	if err != nil {
		return err
	}
	c := b.Cursor()
	for k, v := c.Seek(layout.ComponentKey(n)); k != nil; k, v = c.Next() {
		h, err := codec.DecodeComponentHeader(v)
		if err != nil {
			return fmt.Errorf("component version %x: %w", k, err)
		}
		if !fn(h) {
			return nil
		}
	}
	return nil
}

// firstAfter is the smallest version number in 1..latest whose observation time
// satisfies after, latest+1 when none does; after must be false up to some version and
// true from there on, as observation times only grow.
func firstAfter(b *bolt.Bucket, latest uint32, after func(time.Time) bool) (uint32, error) {
	var ferr error
	i := sort.Search(int(latest), func(i int) bool {
		data := layout.Get(b, layout.ComponentKey(uint32(i+1)))
		if data == nil {
			ferr = fmt.Errorf("component version %d: %w", i+1, layout.ErrNotFound)
			return true
		}
		h, err := codec.DecodeComponentHeader(data)
		if err != nil {
			ferr = fmt.Errorf("component version %d: %w", i+1, err)
			return true
		}
		return after(h.ObservedAt)
	})
	return uint32(i + 1), ferr
}
