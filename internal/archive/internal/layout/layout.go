// Package layout is the archive file's tree: its buckets and keys, the form of every key,
// the layout number, and the migrations that bring an archive of any older layout to
// this one. Values are internal/archive/internal/codec's; internal/archive reads and
// writes them here.
//
// Layout 5 (every key sorts; "BE" is big-endian):
//
//	meta                          "layout" → BE uint32 (5); "created" → RFC 3339 time
//	sources/<name>/               one nested bucket per source
//	    state/                    "first" → time of the first Record (first-poll policy)
//	                              "fetch" → model.FetchState JSON (validators, body hashes, AWS episodes)
//	                              "health" → consecutive failures, last error, down flag
//	    incidents/<url id>        → incident meta, a small binary record (codec.Meta)
//	    versions/<url id>\x00<BE uint32 n> → version record: a small header (number, time, summary,
//	                              fields) and the S2-compressed model.Version, both binary, version 1
//	                              without its change set (codec.EncodeRecord); the records of JSON and
//	                              the bare JSON of before still read
//	    snapshots/<BE uint64 unix s, sign bit flipped><BE uint32 ns> → snapshot index JSON: fetch time,
//	                              endpoint → body hash (layout 1: BE uint64 unix ns)
//	    threads/<url id>          → Slack thread {channel, ts, edit} JSON (edit: the reply whose root update is owed)
//	    threads/~components       → the component thread, the same JSON and its root's version {…, version}
//	    components/<BE uint32 n>  → component set version record: a header (number, time, change set,
//	                              thread) and the S2-compressed set (codec.EncodeComponentVersion)
//	                              state/"components" → the component meta (codec.ComponentMeta)
//	    reminders/<url id>        → the scheduled_for (RFC 3339) of the maintenance_soon written for it
//	bodies/<hex sha256>           → S2-compressed raw body (zstd before), shared by every snapshot
//	outbox/<BE uint64 seq>        → model.Message JSON, pending or parked
//	sent/<BE uint64 seq>          → model.Message JSON, delivered (same sequence as outbox)
//	search/                       the inverted index of every version (internal/archive/internal/searchindex)
//
// Layout 4 added the search index; after its migration the versions already archived are
// indexed a chunk per transaction (BuildSearch). Layout 5 changed the index's postings
// from a key per term and incident to blocks of many incidents; its migration builds the
// index again in the same way.
//
// The components bucket and the "components" state key came with layout 3 unchanged: a
// source gets them with its first component version, and a reader that finds neither
// reads "no component set yet", which is what an archive written before them holds. No
// older layout has them to migrate; an older build ignores them.
//
// Versions live in one flat bucket per source rather than a nested bucket per incident:
// bbolt gives every nested bucket that outgrows a quarter page its own page, so 100,000
// incidents would cost at least 400 MB of mostly empty pages; flat keys pack them densely
// and a prefix scan still reads one incident's versions in order.
package layout

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/searchindex"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Bucket and key names of the layout in the package comment.
var (
	BucketMeta    = []byte("meta")
	BucketSources = []byte("sources")
	BucketBodies  = []byte("bodies")
	BucketOutbox  = []byte("outbox")
	BucketSent    = []byte("sent")

	// Inside a source's bucket.
	BucketState     = []byte("state")
	BucketIncidents = []byte("incidents")
	BucketVersions  = []byte("versions")
	BucketSnapshots = []byte("snapshots")
	BucketThreads   = []byte("threads")
	// BucketComponents is created with a source's first component version, not by
	// CreateSource: a source of a platform without components never has one.
	BucketComponents = []byte("components")
	// BucketReminders is created with a source's first maintenance reminder, as
	// BucketComponents is: an archive written before reminders reads "none sent".
	BucketReminders = []byte("reminders")

	KeyLayout     = []byte("layout")
	KeyCreated    = []byte("created")
	KeyFirst      = []byte("first")
	KeyFetch      = []byte("fetch")
	KeyHealth     = []byte("health")
	KeyKind       = []byte("kind")       // the detected provider kind of a kind: auto source
	KeyPending    = []byte("pending")    // incidents missed once await a second miss: "open-only" or "history"
	KeyComponents = []byte("components") // the component meta

	// In the meta bucket: every source's poll times, as one JSON object.
	KeyPollTimes = []byte("poll_times")

	sourceBuckets = [][]byte{BucketState, BucketIncidents, BucketVersions, BucketSnapshots, BucketThreads}
)

// migrations[i] brings an archive from layout i to layout i+1, inside the one write
// transaction that also records the new layout number, so an interrupted upgrade leaves
// the old layout intact. A layout change appends a function here; none is ever edited,
// because archives in the field went through it as it was.
var migrations = []func(tx *bolt.Tx, now time.Time) error{
	migrateTo1,
	migrateTo2,
	migrateTo3,
	migrateTo4,
	migrateTo5,
}

// Current is the layout version this build writes and reads. It always equals
// len(migrations); a test holds them together.
const Current = 5

// migrateTo1 creates the top-level buckets of a new archive.
func migrateTo1(tx *bolt.Tx, now time.Time) error {
	for _, name := range [][]byte{BucketSources, BucketBodies, BucketOutbox, BucketSent} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	meta, err := tx.CreateBucketIfNotExists(BucketMeta)
	if err != nil {
		return err
	}
	return meta.Put(KeyCreated, []byte(now.Format(time.RFC3339)))
}

// migrateTo2 rewrites every snapshot key from layout 1's uint64(UnixNano) — which sent
// a time before 1970 above every other key and had no value at all outside 1678–2262 —
// to TimeKey's total form. Keys of layout 1 with the top bit set were such negative
// times and are read back as such.
func migrateTo2(tx *bolt.Tx, _ time.Time) error {
	sources := tx.Bucket(BucketSources)
	var names [][]byte
	if err := sources.ForEachBucket(func(name []byte) error {
		names = append(names, bytes.Clone(name))
		return nil
	}); err != nil {
		return err
	}
	for _, name := range names {
		src := sources.Bucket(name)
		old := src.Bucket(BucketSnapshots)
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
			entries = append(entries, entry{TimeKey(t), bytes.Clone(v)})
			return nil
		})
		if err != nil {
			return err
		}
		if err := src.DeleteBucket(BucketSnapshots); err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		b, err := src.CreateBucket(BucketSnapshots)
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
	return tx.Bucket(BucketSources).ForEachBucket(func(name []byte) error {
		state := tx.Bucket(BucketSources).Bucket(name).Bucket(BucketState)
		data := Get(state, KeyFetch)
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
		if err := PutJSON(state, KeyFetch, st); err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		return nil
	})
}

// migrateTo4 creates the search index, empty and marked pending: BuildSearch then
// indexes the versions already archived, a chunk per transaction, each committed — one
// transaction for all would keep the whole index in memory and in unsplit nodes (bbolt
// splits them only at commit).
func migrateTo4(tx *bolt.Tx, _ time.Time) error {
	// An index of a file whose layout number was set back (by hand) would be indexed
	// twice: start afresh.
	if tx.Bucket(searchindex.Bucket) != nil {
		if err := tx.DeleteBucket(searchindex.Bucket); err != nil {
			return err
		}
	}
	if err := searchindex.Create(tx); err != nil {
		return err
	}
	return searchindex.SetPending(tx, []byte{0})
}

// migrateTo5 builds the search index again in the form of layout 5, whose keys hold the
// postings of many incidents each; layout 4's held one incident's. Nothing is kept of
// the old index: the versions are all there to index again.
func migrateTo5(tx *bolt.Tx, now time.Time) error { return migrateTo4(tx, now) }

// BuildSearch indexes, in tx, the versions of a pending search index from where the build
// stands, incident by incident, in source and key order, stopping after the incident
// that reaches max versions, and returns how many it indexed. done is true when every
// version is indexed and the index is no longer pending. A Record meanwhile is
// impossible: the build runs while the store opens, and bbolt admits one process.
func BuildSearch(tx *bolt.Tx, max int) (n int, done bool, err error) {
	at, pending := searchindex.Pending(tx)
	if !pending {
		return 0, true, nil
	}
	// at is source \x00 version key of the first version not indexed ({0}: the start).
	startSource, startKey, _ := bytes.Cut(at, []byte{0})
	var batch searchindex.Batch
	var next []byte
	err = tx.Bucket(BucketSources).ForEachBucket(func(name []byte) error {
		if next != nil || bytes.Compare(name, startSource) < 0 {
			return nil
		}
		versions := tx.Bucket(BucketSources).Bucket(name).Bucket(BucketVersions)
		if versions == nil {
			return nil
		}
		c := versions.Cursor()
		k, v := c.First()
		if bytes.Equal(name, startSource) && len(startKey) > 0 {
			k, v = c.Seek(startKey)
		}
		var id []byte
		var prev *model.Incident
		for ; k != nil; k, v = c.Next() {
			i := bytes.IndexByte(k, 0)
			if i < 0 || len(k) != i+5 {
				return fmt.Errorf("source %s: version key %x is not a layout 3 key", name, k)
			}
			if !bytes.Equal(id, k[:i]) {
				if n >= max {
					next = append(append(bytes.Clone(name), 0), k...)
					return nil
				}
				id, prev = bytes.Clone(k[:i]), nil
			}
			ver, err := codec.DecodeVersion(v)
			if err != nil {
				return fmt.Errorf("source %s: %s: %w", name, k[:i], err)
			}
			if err := batch.Index(tx, string(name), string(id), binary.BigEndian.Uint32(k[i+1:]), ver.ObservedAt, prev, &ver.Incident); err != nil {
				return err
			}
			prev = &ver.Incident
			n++
		}
		return nil
	})
	if err != nil {
		return n, false, err
	}
	if err := batch.Flush(tx); err != nil {
		return n, false, err
	}
	return n, next == nil, searchindex.SetPending(tx, next)
}

// ErrNotFound is wrapped by the errors of a read or an outbox operation that finds no
// such source, incident, version, snapshot or message in the tree.
var ErrNotFound = errors.New("not found")

// ErrUnsupported is wrapped by the errors of a file whose layout this build cannot use.
var ErrUnsupported = errors.New("unsupported archive layout")

// Read returns the layout of the archive tx reads: 0 for a file bbolt has just
// created, an error for a bbolt file that some other program wrote.
func Read(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(BucketMeta)
	if meta == nil {
		foreign := false
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { foreign = true; return nil })
		if foreign {
			return 0, fmt.Errorf("a bbolt file without watcher metadata: %w", ErrUnsupported)
		}
		return 0, nil
	}
	v := meta.Get(KeyLayout)
	if len(v) != 4 {
		return 0, fmt.Errorf("damaged layout record: %w", ErrUnsupported)
	}
	return int(binary.BigEndian.Uint32(v)), nil
}

// Upgrade runs, in tx, the migrations from layout from to Current, and records Current.
func Upgrade(tx *bolt.Tx, from int, now time.Time) error {
	for l := from; l < Current; l++ {
		if err := migrations[l](tx, now); err != nil {
			return fmt.Errorf("migration to layout %d: %w", l+1, err)
		}
	}
	return tx.Bucket(BucketMeta).Put(KeyLayout, binary.BigEndian.AppendUint32(nil, uint32(Current)))
}

// Source returns the bucket of an archived source, nil if it has none.
func Source(tx *bolt.Tx, source string) *bolt.Bucket {
	return tx.Bucket(BucketSources).Bucket([]byte(source))
}

// CreateSource returns a source's bucket, creating it and its sub-buckets if needed.
func CreateSource(tx *bolt.Tx, source string) (*bolt.Bucket, error) {
	b, err := tx.Bucket(BucketSources).CreateBucketIfNotExists([]byte(source))
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

// Sub returns a sub-bucket of a possibly absent source bucket, nil if either is absent, so
// readers can walk a path without checking each step.
func Sub(b *bolt.Bucket, name []byte) *bolt.Bucket {
	if b == nil {
		return nil
	}
	return b.Bucket(name)
}

// Get reads a key of a possibly absent bucket.
func Get(b *bolt.Bucket, key []byte) []byte {
	if b == nil {
		return nil
	}
	return b.Get(key)
}

// VersionKey is an incident's URL id, a 0 byte, and n in big-endian: all versions of one
// incident are adjacent and in order, and the 0 byte, which no URL id contains, keeps
// "a" from running into "a-b".
func VersionKey(id string, n uint32) []byte {
	k := make([]byte, 0, len(id)+5)
	k = append(k, id...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint32(k, n)
}

// VersionPrefix is the common prefix of an incident's version keys.
func VersionPrefix(id string) []byte { return append([]byte(id), 0) }

// ComponentKey is the key of component version n: big-endian, so versions sort in order.
func ComponentKey(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

// SeqKey is an outbox sequence number as a key that sorts in order.
func SeqKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// TimeKey is a snapshot's fetch time as a key that sorts in time order, for any time
// at all: the Unix seconds with the sign bit flipped (so a time before 1970 sorts below
// every later one), then the nanoseconds, both big-endian.
func TimeKey(t time.Time) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 12), uint64(t.Unix())^1<<63)
	return binary.BigEndian.AppendUint32(k, uint32(t.Nanosecond()))
}

// LegacyTimeKey is layout 1's form of TimeKey, for a read-only store still at layout 1:
// uint64(UnixNano), every stored key of which is at or after 1970. A time outside what
// UnixNano represents, or before 1970, is clamped so that it still sorts where it
// belongs against those keys.
func LegacyTimeKey(t time.Time) []byte {
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

// SnapshotName is how a version names the snapshot that produced it: the fetch time,
// which SnapshotAt takes back.
func SnapshotName(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// PutJSON stores v as JSON under key.
func PutJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}
