package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/statuswatch/statuswatch/internal/archive"
)

// archiveSize is what an archive file holds, read while no watcher has it open.
type archiveSize struct {
	File  int64    // file size
	Alloc int64    // bytes of the pages the buckets occupy (branch + leaf), free pages excluded
	Inuse int64    // bytes of those pages actually in use (keys, values, headers)
	Hash  [32]byte // SHA-256 of the whole file
	// Parts is Inuse by part of the layout: each top-level bucket by name, and the
	// buckets inside every source as "sources/*/<name>".
	Parts map[string]int64
}

// measureArchive reads path's size, page usage and hash.
func measureArchive(path string) (archiveSize, error) {
	var s archiveSize
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	f.Close()
	if err != nil {
		return s, err
	}
	s.File = n
	h.Sum(s.Hash[:0])

	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return s, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	s.Parts = map[string]int64{}
	inuse := func(b *bolt.Bucket) int64 {
		st := b.Stats() // includes every nested bucket
		return int64(st.BranchInuse + st.LeafInuse)
	}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			st := b.Stats()
			s.Alloc += int64(st.BranchAlloc + st.LeafAlloc)
			s.Inuse += int64(st.BranchInuse + st.LeafInuse)
			if string(name) != "sources" {
				s.Parts[string(name)] += inuse(b)
				return nil
			}
			own := inuse(b)
			err := b.ForEachBucket(func(src []byte) error {
				sb := b.Bucket(src)
				own -= inuse(sb)
				return sb.ForEachBucket(func(part []byte) error {
					s.Parts["sources/*/"+string(part)] += inuse(sb.Bucket(part))
					return nil
				})
			})
			s.Parts["sources"] += own // the source buckets' own pages and inline data
			return err
		})
	})
	return s, err
}

// countVersions is the number of incident versions in the archive, over every source.
func countVersions(path string) (int, error) {
	st, err := archive.Open(path, archive.Options{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer st.Close()
	incs, err := st.Incidents("")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, in := range incs {
		n += in.Versions
	}
	return n, nil
}
