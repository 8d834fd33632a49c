package archive

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/model"
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
	migrateTo2,
	migrateTo3,
}

// Layout is the layout version this build writes and reads. It always equals
// len(migrations); a test holds them together.
const Layout = 3

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

// migrateTo2 rewrites every snapshot key from layout 1's uint64(UnixNano) — which sent
// a time before 1970 above every other key and had no value at all outside 1678–2262 —
// to timeKey's total form. Keys of layout 1 with the top bit set were such negative
// times and are read back as such.
func migrateTo2(tx *bolt.Tx, _ time.Time) error {
	sources := tx.Bucket(bucketSources)
	var names [][]byte
	if err := sources.ForEachBucket(func(name []byte) error {
		names = append(names, bytes.Clone(name))
		return nil
	}); err != nil {
		return err
	}
	for _, name := range names {
		src := sources.Bucket(name)
		old := src.Bucket(bucketSnapshots)
		if old == nil {
			continue
		}
		type entry struct{ k, v []byte }
		var entries []entry
		err := old.ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				return fmt.Errorf("source %s: snapshot key %x is not a layout 1 key", name, k)
			}
			t := time.Unix(0, int64(binary.BigEndian.Uint64(k)))
			entries = append(entries, entry{timeKey(t), bytes.Clone(v)})
			return nil
		})
		if err != nil {
			return err
		}
		if err := src.DeleteBucket(bucketSnapshots); err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		b, err := src.CreateBucket(bucketSnapshots)
		if err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		b.FillPercent = 1 // keys arrive in order: pack the pages
		for _, e := range entries {
			if err := b.Put(e.k, e.v); err != nil {
				return fmt.Errorf("source %s: %w", name, err)
			}
		}
	}
	return nil
}

// migrateTo3 rewrites every fetch state that holds AWS's episodes in the form of layout
// 2 (a list hidden in the Hash of the "episodes/<service>" entries, see codec.UpgradeEpisodes)
// into their own field. Other entries, and states without such an entry, are left as
// they are.
func migrateTo3(tx *bolt.Tx, _ time.Time) error {
	return tx.Bucket(bucketSources).ForEachBucket(func(name []byte) error {
		state := tx.Bucket(bucketSources).Bucket(name).Bucket(bucketState)
		data := get(state, keyFetch)
		if data == nil {
			return nil
		}
		st := model.FetchState{}
		if err := json.Unmarshal(data, &st); err != nil {
			return fmt.Errorf("source %s: fetch state: %w", name, err)
		}
		if !codec.UpgradeEpisodes(st) {
			return nil
		}
		if err := putJSON(state, keyFetch, st); err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		return nil
	})
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
	err := s.view(func(tx *bolt.Tx) (err error) {
		layout, err = readLayout(tx)
		return err
	})
	switch {
	case errors.Is(err, ErrDamaged):
		return err // names the file already
	case err != nil:
		return fmt.Errorf("archive %s: %w", s.path, err)
	case layout > Layout:
		return fmt.Errorf("archive %s has layout %d, newer than the %d this watcher understands: upgrade watcher: %w",
			s.path, layout, Layout, ErrLayout)
	case layout == Layout:
		return nil
	case readOnly && layout >= 1:
		// Layout 2 only rewrote the snapshot keys, and layout 3 the fetch states: a
		// read-only open reads layout 1's keys as they are, and every fetch state is
		// read in either form (codec.DecodeFetchState), so browse commands keep working until
		// the daemon migrates.
		s.legacyTimeKeys = layout == 1
		return nil
	case readOnly:
		return fmt.Errorf("archive %s has layout %d and needs migrating to %d: open it once read-write: %w",
			s.path, layout, Layout, ErrLayout)
	}
	err = s.update(func(tx *bolt.Tx) error {
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

// timeKey is a snapshot's fetch time as a key that sorts in time order, for any time
// at all: the Unix seconds with the sign bit flipped (so a time before 1970 sorts below
// every later one), then the nanoseconds, both big-endian.
func timeKey(t time.Time) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 12), uint64(t.Unix())^1<<63)
	return binary.BigEndian.AppendUint32(k, uint32(t.Nanosecond()))
}

// legacyTimeKey is layout 1's form of timeKey, for a read-only store still at layout 1:
// uint64(UnixNano), every stored key of which is at or after 1970. A time outside what
// UnixNano represents, or before 1970, is clamped so that it still sorts where it
// belongs against those keys.
func legacyTimeKey(t time.Time) []byte {
	var n uint64
	switch {
	case t.Before(time.Unix(0, 0)):
		n = 0
	case t.After(time.Unix(0, math.MaxInt64)):
		n = math.MaxInt64
	default:
		n = uint64(t.UnixNano())
	}
	return binary.BigEndian.AppendUint64(nil, n)
}

// timeKey is the store's form of a snapshot key (see legacyTimeKey).
func (s *Store) timeKey(t time.Time) []byte {
	if s.legacyTimeKeys {
		return legacyTimeKey(t)
	}
	return timeKey(t)
}

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
