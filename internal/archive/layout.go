package archive

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bucket and key names of the layout described in doc.go.
var (
	bucketMeta    = []byte("meta")
	bucketSources = []byte("sources")
	bucketBodies  = []byte("bodies")
	bucketOutbox  = []byte("outbox")
	bucketSent    = []byte("sent")

	// Inside a source's bucket.
	bucketState     = []byte("state")
	bucketIncidents = []byte("incidents")
	bucketVersions  = []byte("versions")
	bucketSnapshots = []byte("snapshots")
	bucketThreads   = []byte("threads")

	keyLayout  = []byte("layout")
	keyCreated = []byte("created")
	keyFirst   = []byte("first")
	keyFetch   = []byte("fetch")
	keyHealth  = []byte("health")
	keyKind    = []byte("kind")    // the detected provider kind of a kind: auto source
	keyPending = []byte("pending") // incidents missed once await a second miss: "open-only" or "history"

	sourceBuckets = [][]byte{bucketState, bucketIncidents, bucketVersions, bucketSnapshots, bucketThreads}
)

// migrations[i] brings an archive from layout i to layout i+1, inside the one write
// transaction that also records the new layout number, so an interrupted upgrade leaves
// the old layout intact. A layout change appends a function here; none is ever edited,
// because archives in the field went through it as it was.
var migrations = []func(tx *bolt.Tx, now time.Time) error{
	migrateTo1,
}

// Layout is the layout version this build writes and reads. It always equals
// len(migrations); a test holds them together.
const Layout = 1

// migrateTo1 creates the top-level buckets of a new archive.
func migrateTo1(tx *bolt.Tx, now time.Time) error {
	for _, name := range [][]byte{bucketSources, bucketBodies, bucketOutbox, bucketSent} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	return meta.Put(keyCreated, []byte(now.Format(time.RFC3339)))
}

// readLayout returns the layout of the archive tx reads: 0 for a file bbolt has just
// created, an error for a bbolt file that some other program wrote.
func readLayout(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		foreign := false
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { foreign = true; return nil })
		if foreign {
			return 0, fmt.Errorf("a bbolt file without watcher metadata: %w", ErrLayout)
		}
		return 0, nil
	}
	v := meta.Get(keyLayout)
	if len(v) != 4 {
		return 0, fmt.Errorf("damaged layout record: %w", ErrLayout)
	}
	return int(binary.BigEndian.Uint32(v)), nil
}

// migrate checks the layout and runs the migrations still due. An archive already at the
// current layout is only read: opening must not write, or every browse command would
// bump the file.
func (s *Store) migrate(readOnly bool) error {
	var layout int
	err := s.db.View(func(tx *bolt.Tx) (err error) {
		layout, err = readLayout(tx)
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("archive %s: %w", s.path, err)
	case layout > Layout:
		return fmt.Errorf("archive %s has layout %d, newer than the %d this watcher understands: upgrade watcher: %w",
			s.path, layout, Layout, ErrLayout)
	case layout == Layout:
		return nil
	case readOnly:
		return fmt.Errorf("archive %s has layout %d and needs migrating to %d: open it once read-write: %w",
			s.path, layout, Layout, ErrLayout)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		// Read again: another process may have migrated it between the two transactions.
		from, err := readLayout(tx)
		if err != nil {
			return err
		}
		for l := from; l < Layout; l++ {
			if err := migrations[l](tx, s.clock()); err != nil {
				return fmt.Errorf("migration to layout %d: %w", l+1, err)
			}
		}
		return tx.Bucket(bucketMeta).Put(keyLayout, binary.BigEndian.AppendUint32(nil, uint32(Layout)))
	})
	if err != nil {
		return fmt.Errorf("archive %s: %w", s.path, err)
	}
	return nil
}

// sourceBucket returns the bucket of an archived source, nil if it has none.
func sourceBucket(tx *bolt.Tx, source string) *bolt.Bucket {
	return tx.Bucket(bucketSources).Bucket([]byte(source))
}

// createSource returns a source's bucket, creating it and its sub-buckets if needed.
func createSource(tx *bolt.Tx, source string) (*bolt.Bucket, error) {
	b, err := tx.Bucket(bucketSources).CreateBucketIfNotExists([]byte(source))
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", source, err)
	}
	for _, name := range sourceBuckets {
		if _, err := b.CreateBucketIfNotExists(name); err != nil {
			return nil, fmt.Errorf("source %s: %w", source, err)
		}
	}
	return b, nil
}

// sub returns a sub-bucket of a possibly absent source bucket, nil if either is absent, so
// readers can walk a path without checking each step.
func sub(b *bolt.Bucket, name []byte) *bolt.Bucket {
	if b == nil {
		return nil
	}
	return b.Bucket(name)
}

// get reads a key of a possibly absent bucket.
func get(b *bolt.Bucket, key []byte) []byte {
	if b == nil {
		return nil
	}
	return b.Get(key)
}

// versionKey is an incident's URL id, a 0 byte, and n in big-endian: all versions of one
// incident are adjacent and in order, and the 0 byte, which no URL id contains, keeps
// "a" from running into "a-b".
func versionKey(id string, n uint32) []byte {
	k := make([]byte, 0, len(id)+5)
	k = append(k, id...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint32(k, n)
}

// versionPrefix is the common prefix of an incident's version keys.
func versionPrefix(id string) []byte { return append([]byte(id), 0) }

// seqKey is an outbox sequence number as a key that sorts in order.
func seqKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// timeKey is a snapshot's fetch time as a key that sorts in time order.
func timeKey(t time.Time) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())) }

// snapshotName is how a version names the snapshot that produced it: the fetch time,
// which SnapshotAt takes back.
func snapshotName(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// putJSON stores v as JSON under key.
func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}
