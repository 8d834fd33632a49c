// Package searchindex is the archive's inverted index of every version of every
// incident, inside a bbolt transaction the caller holds: for each term of an incident's
// title, updates, postmortem and component names, the spans of versions in which the
// term was there, so that a search finds the words a vendor later removed and says where.
//
// Its tree, in the top-level bucket "search":
//
//	docs/<BE uint32 doc>       → the time lists order the incident by (its start, else its
//	                             scheduled start, else its first sighting) and its first
//	                             sighting, each BE int64 Unix seconds + BE uint32 ns, then
//	                             source \x00 URL id: each incident indexed gets a number
//	ids/<source>\x00<URL id>   → BE uint32 doc
//	terms/<term>\x00<BE uint32 doc> → spans: (field byte, uvarint from, uvarint to)…, to 0
//	                             while the term is still in the incident's latest version
//
// A term's keys are adjacent and in doc order, and a query term is a key prefix, so a
// search reads one contiguous run of keys per query term. A new version writes only the
// terms that came or went in a field whose text changed: a version that only changes a
// status writes nothing here.
package searchindex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Bucket names of the tree in the package comment.
var (
	Bucket      = []byte("search")
	bucketDocs  = []byte("docs")
	bucketIDs   = []byte("ids")
	bucketTerms = []byte("terms")
)

// Field is where in an incident a term was found.
type Field uint8

// The fields indexed, in the order a match reports the first of them.
const (
	FieldTitle Field = 1 + iota
	FieldUpdates
	FieldPostmortem
	FieldComponents
	numFields = iota
)

// String is the field's name in the API.
func (f Field) String() string {
	switch f {
	case FieldTitle:
		return "title"
	case FieldUpdates:
		return "updates"
	case FieldPostmortem:
		return "postmortem"
	case FieldComponents:
		return "components"
	}
	return fmt.Sprintf("field%d", f)
}

// ErrNoIndex is returned by a search of an archive that has no index yet (an older
// layout opened read-only, or one whose index is still being built).
var ErrNoIndex = errors.New("the archive has no search index yet: open it once read-write (start the daemon) to build it")

// keyPending, in the index's root bucket, marks an index still being built from the
// versions archived before it: its value is where the build goes on (Resume).
var keyPending = []byte("pending")

// Pending returns where the build of tx's index goes on, and whether it is still being
// built.
func Pending(tx *bolt.Tx) ([]byte, bool) {
	root := tx.Bucket(Bucket)
	if root == nil {
		return nil, false
	}
	v := root.Get(keyPending)
	return bytes.Clone(v), v != nil
}

// SetPending records that the build goes on at next; nil ends the build.
func SetPending(tx *bolt.Tx, next []byte) error {
	root := tx.Bucket(Bucket)
	if next == nil {
		return root.Delete(keyPending)
	}
	return root.Put(keyPending, next)
}

// Create makes the index's buckets if they are missing.
func Create(tx *bolt.Tx) error {
	b, err := tx.CreateBucketIfNotExists(Bucket)
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketDocs, bucketIDs, bucketTerms} {
		if _, err := b.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// termsOf is the sorted set of terms of one field of inc (fieldTerms of its texts),
// none when inc is nil.
func termsOf(inc *model.Incident, f Field) []string {
	if inc == nil {
		return nil
	}
	var terms []string
	switch f {
	case FieldTitle:
		terms = fieldTokens(terms, inc.Title)
	case FieldUpdates:
		for i := range inc.Updates {
			terms = fieldTokens(terms, inc.Updates[i].Body)
		}
	case FieldPostmortem:
		if inc.Postmortem != nil {
			terms = fieldTokens(terms, inc.Postmortem.Body)
		}
	case FieldComponents:
		for _, c := range inc.Components {
			terms = fieldTokens(terms, c)
		}
	}
	return termSet(terms)
}

// sameField reports whether a field's text is the same in a and b, cheaply, so that an
// unchanged field is not tokenised at all.
func sameField(a, b *model.Incident, f Field) bool {
	if a == nil || b == nil {
		return a == b
	}
	switch f {
	case FieldTitle:
		return a.Title == b.Title
	case FieldUpdates:
		return slices.EqualFunc(a.Updates, b.Updates, func(x, y model.Update) bool { return x.Body == y.Body })
	case FieldPostmortem:
		return (a.Postmortem == nil) == (b.Postmortem == nil) && (a.Postmortem == nil || a.Postmortem.Body == b.Postmortem.Body)
	case FieldComponents:
		return slices.Equal(a.Components, b.Components)
	}
	return true
}

// Index records in tx that version n of incident id of source, observed at at, is cur,
// its version n-1 prev (nil when n is 1, or when the incident was never indexed): the
// terms of every field whose text changed that cur has and prev had not start a span at
// n, and those prev had and cur has not end theirs at n. The incident's doc record is
// written when it is new or its listing time changed.
func Index(tx *bolt.Tx, source, id string, n uint32, at time.Time, prev, cur *model.Incident) error {
	var b Batch
	if err := b.Index(tx, source, id, n, at, prev, cur); err != nil {
		return err
	}
	return b.Flush(tx)
}

// Batch gathers the term writes of several versions and applies them in key order. bbolt
// splits a node only when its transaction commits, so keys put in random order into one
// node of a large transaction (the first poll of a page with thousands of incidents, the
// migration of an archive) each move all the keys after them: in key order, each lands
// after the one before. The writes of one term and incident are applied in version
// order, so a batch may hold several versions of an incident, given in order.
type Batch struct {
	ops []termOp
	// keys holds the ops' keys, a chunk at a time (bbolt copies a key it puts, so the
	// chunks serve again after Flush).
	keys []byte
}

// termOp opens (add) or ends a span of a field at version n under key. fresh says the
// doc of key got its number in this batch, so no key of it is in the index yet: Flush
// does not look the key up.
type termOp struct {
	key   []byte
	pre   uint64 // the key's first 8 bytes, big-endian, zeros after a shorter key
	field Field
	n     uint32
	add   bool
	fresh bool
}

// key returns a term key with room for a doc number, from the batch's chunk.
func (b *Batch) key(term string) []byte {
	n := len(term) + 5
	if cap(b.keys)-len(b.keys) < n {
		// Small for a Record that changes a word, doubling for a first poll's thousands.
		b.keys = make([]byte, 0, max(n, 256, min(2*cap(b.keys), 64<<10)))
	}
	from := len(b.keys)
	b.keys = append(b.keys, term...)
	b.keys = append(b.keys, 0, 0, 0, 0, 0)
	return b.keys[from:len(b.keys):len(b.keys)]
}

// Index is the package's Index, its term writes kept for Flush. The doc record is
// written at once.
func (b *Batch) Index(tx *bolt.Tx, source, id string, n uint32, at time.Time, prev, cur *model.Incident) error {
	root := tx.Bucket(Bucket)
	if root == nil {
		return errors.New("search index: no index bucket")
	}
	// The term writes' keys get the doc number once it is known: a version that changes
	// neither a text nor the listing time (a status) does not look it up.
	first := len(b.ops)
	for f := Field(1); f <= numFields; f++ {
		if prev != nil && sameField(prev, cur, f) {
			continue
		}
		diffSorted(termsOf(prev, f), termsOf(cur, f), func(term string, added bool) {
			if b.ops == nil {
				b.ops = (*opsPool.Get().(*[]termOp))[:0]
			}
			b.ops = append(b.ops, termOp{key: b.key(term), field: f, n: n, add: added})
		})
	}
	listed := prev != nil && prev.StartedAt.Equal(cur.StartedAt) && prev.ScheduledFor.Equal(cur.ScheduledFor)
	if listed && len(b.ops) == first {
		return nil
	}
	doc, fresh, err := docOf(root, source, id, at, cur, listed)
	if err != nil {
		return fmt.Errorf("search index: %s/%s: %w", source, id, err)
	}
	for i := first; i < len(b.ops); i++ {
		o := &b.ops[i]
		copy(o.key[len(o.key)-4:], doc)
		o.fresh = fresh
		var pre [8]byte
		copy(pre[:], o.key)
		o.pre = binary.BigEndian.Uint64(pre[:])
	}
	return nil
}

// Len is the number of term writes waiting.
func (b *Batch) Len() int { return len(b.ops) }

// Flush applies the term writes gathered, in key order, and empties the batch.
func (b *Batch) Flush(tx *bolt.Tx) error {
	if len(b.ops) == 0 {
		return nil
	}
	slices.SortFunc(b.ops, func(x, y termOp) int {
		// The prefixes order most pairs; equal ones compare the whole keys.
		if x.pre != y.pre {
			return cmp.Compare(x.pre, y.pre)
		}
		return cmp.Or(bytes.Compare(x.key, y.key), cmp.Compare(x.n, y.n), cmp.Compare(x.field, y.field))
	})
	terms := tx.Bucket(Bucket).Bucket(bucketTerms)
	// One cursor for every look-up: a Get makes one each time.
	c := terms.Cursor()
	// The values put: bbolt keeps them until the commit, so each is a part of one arena
	// that is never written over (a new one is made when it is full).
	var arena []byte
	var spans []Span
	changed := false
	for i, o := range b.ops {
		// Several ops of one key (fields of one version) are applied together.
		if i == 0 || !bytes.Equal(b.ops[i-1].key, o.key) {
			spans, changed = spans[:0], false
			// A group's ops are in version order, so its first is the doc's first in
			// the batch: fresh, the key is not in the index.
			if !o.fresh {
				if k, v := c.Seek(o.key); bytes.Equal(k, o.key) {
					spans = appendSpans(spans, v)
				}
			}
		}
		if o.add {
			spans, changed = append(spans, Span{Field: o.field, From: o.n}), true
		} else {
			// A term cut off by a bound when it came has no span to end.
			for j := range spans {
				if spans[j].Field == o.field && spans[j].To == 0 {
					spans[j].To, changed = o.n, true
				}
			}
		}
		if changed && (i+1 == len(b.ops) || !bytes.Equal(b.ops[i+1].key, o.key)) {
			if cap(arena)-len(arena) < len(spans)*(1+2*binary.MaxVarintLen32) {
				arena = make([]byte, 0, max(256, len(spans)*(1+2*binary.MaxVarintLen32)))
			}
			from := len(arena)
			arena = appendEncoded(arena, spans)
			if err := terms.Put(o.key, arena[from:len(arena):len(arena)]); err != nil {
				return fmt.Errorf("search index: %w", err)
			}
		}
	}
	b.keys = b.keys[:0]
	if cap(b.ops) <= maxPooledOps {
		clear(b.ops)
		ops := b.ops[:0]
		opsPool.Put(&ops)
		b.ops = nil
	} else {
		b.ops = b.ops[:0]
	}
	return nil
}

// opsPool holds the op slices of flushed batches, so that a first poll's thousands of
// term writes do not grow a new one each Record; the large ones of a build are not kept.
var opsPool = sync.Pool{New: func() any { s := make([]termOp, 0, 8); return &s }}

const maxPooledOps = 1 << 14

// diffSorted calls fn with every term of after not in before (added) and of before not
// in after; both are sorted sets.
func diffSorted(before, after []string, fn func(term string, added bool)) {
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || i < len(before) && before[i] < after[j]:
			fn(before[i], false)
			i++
		case i == len(before) || after[j] < before[i]:
			fn(after[j], true)
			j++
		default:
			i++
			j++
		}
	}
}

// docOf returns the doc number of an incident, giving it one if it has none, and keeps
// its doc record's listing time that of cur; listed says the record has it already (the
// version before had the same start and scheduled start), so that only the number is
// looked up. fresh says the number is new.
func docOf(root *bolt.Bucket, source, id string, at time.Time, cur *model.Incident, listed bool) (doc []byte, fresh bool, err error) {
	ids := root.Bucket(bucketIDs)
	name := docName(source, id)
	d := ids.Get(name)
	if listed && len(d) == 4 {
		return bytes.Clone(d), false, nil
	}
	docs := root.Bucket(bucketDocs)
	when := cur.StartedAt
	if when.IsZero() {
		when = cur.ScheduledFor
	}
	if len(d) == 4 {
		d = bytes.Clone(d)
		old := docs.Get(d)
		if len(old) < docHeader {
			return nil, false, errors.New("damaged doc record")
		}
		first := decodeTime(old[12:])
		if when.IsZero() {
			when = first
		}
		if rec := docRecord(when, first, name); !bytes.Equal(rec, old) {
			return d, false, docs.Put(d, rec)
		}
		return d, false, nil
	}
	seq, err := docs.NextSequence()
	if err != nil {
		return nil, false, err
	}
	if seq > 1<<32-1 {
		return nil, false, errors.New("out of doc numbers")
	}
	d = binary.BigEndian.AppendUint32(nil, uint32(seq))
	if when.IsZero() {
		when = at
	}
	if err := docs.Put(d, docRecord(when, at, name)); err != nil {
		return nil, false, err
	}
	return d, true, ids.Put(name, d)
}

// docHeader is the length of a doc record's two times.
const docHeader = 24

func docRecord(listed, first time.Time, name []byte) []byte {
	b := make([]byte, 0, docHeader+len(name))
	b = appendTime(b, listed)
	b = appendTime(b, first)
	return append(b, name...)
}

func appendTime(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func decodeTime(b []byte) time.Time {
	return time.Unix(int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint32(b[8:]))).UTC()
}

func docName(source, id string) []byte {
	k := make([]byte, 0, len(source)+1+len(id))
	k = append(k, source...)
	k = append(k, 0)
	return append(k, id...)
}

func termKey(term string, doc []byte) []byte {
	k := make([]byte, 0, len(term)+5)
	k = append(k, term...)
	k = append(k, 0)
	return append(k, doc...)
}

// Span is a run of versions in which a term was in a field: From up to, not including,
// To; To is 0 while the term is in the latest version.
type Span struct {
	Field    Field
	From, To uint32
}

// contains reports whether version v is in the span.
func (s Span) contains(v uint32) bool { return s.From <= v && (s.To == 0 || v < s.To) }

// appendEncoded appends the encoding of spans to b: (field byte, uvarint from, uvarint
// to) each.
func appendEncoded(b []byte, spans []Span) []byte {
	for _, s := range spans {
		b = append(b, byte(s.Field))
		b = binary.AppendUvarint(b, uint64(s.From))
		b = binary.AppendUvarint(b, uint64(s.To))
	}
	return b
}

// appendSpans appends to dst the spans appendEncoded wrote in b; a damaged tail is
// dropped.
func appendSpans(dst []Span, b []byte) []Span {
	for len(b) > 0 {
		f := Field(b[0])
		from, n := binary.Uvarint(b[1:])
		if n <= 0 || from > 1<<32-1 {
			return dst
		}
		b = b[1+n:]
		to, n := binary.Uvarint(b)
		if n <= 0 || to > 1<<32-1 {
			return dst
		}
		b = b[n:]
		dst = append(dst, Span{Field: f, From: uint32(from), To: uint32(to)})
	}
	return dst
}
