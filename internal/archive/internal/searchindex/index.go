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
//	postings/<term>\x00<BE uint32 doc> → a block of the term's postings: for each of the
//	                             docs from doc on (postings.go), its spans: (field byte,
//	                             uvarint from, uvarint to)…, to 0 while the term is still
//	                             in the incident's latest version
//
// A term's blocks are adjacent and in doc order, and a query term is a key prefix, so a
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
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Bucket names of the tree in the package comment.
var (
	Bucket     = []byte("search")
	bucketDocs = []byte("docs")
	bucketIDs  = []byte("ids")
	// bucketPostings holds the blocks of postings.go. Layout 4's index kept a key per
	// term and incident in "terms"; an index that has that bucket instead is rebuilt.
	bucketPostings = []byte("postings")
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
	for _, name := range [][]byte{bucketDocs, bucketIDs, bucketPostings} {
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
	return termSet(tokensOf(nil, inc, f, nil))
}

// tokensOf appends to dst the tokens of field f's texts of inc (fieldTokens), its ASCII
// words lower-cased by low.
func tokensOf(dst []string, inc *model.Incident, f Field, low *lowerer) []string {
	switch f {
	case FieldTitle:
		dst = fieldTokens(dst, inc.Title, low)
	case FieldUpdates:
		for i := range inc.Updates {
			dst = fieldTokens(dst, inc.Updates[i].Body, low)
		}
	case FieldPostmortem:
		if inc.Postmortem != nil {
			dst = fieldTokens(dst, inc.Postmortem.Body, low)
		}
	case FieldComponents:
		for _, c := range inc.Components {
			dst = fieldTokens(dst, c, low)
		}
	}
	return dst
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
	*batch // from batchPool once the first write is gathered
}

type batch struct {
	ops []termOp
	// The terms of the ops, each once: a term's number is its place in terms. Ops are
	// ordered by their terms' ranks, so that the strings are compared once per term, not
	// once per op.
	ids   map[string]int32
	terms []string
	// last is, by term number, the place in ops of the term's last op: a term already
	// added in the field being gathered is not added twice.
	last   []int32
	tokens []string // scratch for a field's tokens
	low    lowerer  // over ids and terms
	sorted []termOp // scratch for Flush
	key    []byte   // scratch for Flush
}

// termOp opens (add) or ends a span of a field at version n of a term and doc.
type termOp struct {
	term  int32
	doc   uint32
	n     uint32
	field Field
	add   bool
}

// batchPool keeps the gathering state of flushed batches, so that a first poll's
// thousands of term writes do not grow new slices and a new map each Record; the large
// ones of a build are not kept.
var batchPool = sync.Pool{New: func() any {
	b := &batch{ids: map[string]int32{}}
	b.low = lowerer{known: b.ids, terms: &b.terms}
	return b
}}

const maxPooledOps = 1 << 14

// op gathers a write of term.
func (b *batch) op(term string, f Field, n uint32, add bool) {
	id, ok := b.ids[term]
	if !ok {
		id = int32(len(b.terms))
		b.ids[term] = id
		b.terms = append(b.terms, term)
		b.last = append(b.last, -1)
	}
	b.last[id] = int32(len(b.ops))
	b.ops = append(b.ops, termOp{term: id, field: f, n: n, add: add})
}

// addField gathers a span opened at version n for each term of field f of cur, an
// incident the index has no version of, without sorting them into a set: the batch's
// ops are ordered anyway. It reports false, and gathers nothing, when the field has more
// distinct terms than a field keeps (then only those that sort first are kept).
func (b *batch) addField(cur *model.Incident, f Field, n uint32) bool {
	toks := tokensOf(b.tokens[:0], cur, f, &b.low)
	b.tokens = toks[:0]
	start := int32(len(b.ops))
	for _, t := range toks {
		if id, ok := b.ids[t]; ok && b.last[id] >= start {
			continue // in this field already
		}
		b.op(t, f, n, true)
	}
	clear(toks) // the pooled scratch must not keep vendor text alive
	if len(b.ops)-int(start) <= maxFieldTerms {
		return true
	}
	for _, o := range b.ops[start:] {
		b.last[o.term] = -1 // no op of it since start is left, and none before matters
	}
	b.ops = b.ops[:start]
	return false
}

// Index is the package's Index, its term writes kept for Flush. The doc record is
// written at once.
func (b *Batch) Index(tx *bolt.Tx, source, id string, n uint32, at time.Time, prev, cur *model.Incident) error {
	root := tx.Bucket(Bucket)
	if root == nil {
		return errors.New("search index: no index bucket")
	}
	if b.batch == nil {
		b.batch = batchPool.Get().(*batch)
	}
	// The term writes get the doc number once it is known: a version that changes
	// neither a text nor the listing time (a status) does not look it up.
	first := len(b.ops)
	for f := Field(1); f <= numFields; f++ {
		if prev != nil && sameField(prev, cur, f) {
			continue
		}
		if prev == nil && b.addField(cur, f, n) {
			continue
		}
		diffSorted(termsOf(prev, f), termsOf(cur, f), func(term string, added bool) {
			b.op(term, f, n, added)
		})
	}
	listed := prev != nil && prev.StartedAt.Equal(cur.StartedAt) && prev.ScheduledFor.Equal(cur.ScheduledFor)
	if listed && len(b.ops) == first {
		return nil
	}
	doc, err := docOf(root, source, id, at, cur, listed)
	if err != nil {
		return fmt.Errorf("search index: %s/%s: %w", source, id, err)
	}
	d := binary.BigEndian.Uint32(doc)
	for i := first; i < len(b.ops); i++ {
		b.ops[i].doc = d
	}
	return nil
}

// order returns the batch's ops in key order (term, doc), each doc's in version then
// field order: a counting sort by the terms' ranks, then each term's run sorted by doc
// where it is not already (a batch gathers versions in order, and new docs in order).
func (b *batch) order() []termOp {
	byName := make([]int32, len(b.terms))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortFunc(byName, func(x, y int32) int { return strings.Compare(b.terms[x], b.terms[y]) })
	// starts[rank] is where the run of the term of that rank begins in sorted.
	rank := make([]int32, len(b.terms))
	for r, id := range byName {
		rank[id] = int32(r)
	}
	starts := make([]int32, len(b.terms)+1)
	for _, o := range b.ops {
		starts[rank[o.term]+1]++
	}
	for r := 1; r < len(starts); r++ {
		starts[r] += starts[r-1]
	}
	sorted := slices.Grow(b.sorted[:0], len(b.ops))[:len(b.ops)]
	next := starts[:len(starts)-1]
	for _, o := range b.ops {
		r := rank[o.term]
		sorted[next[r]] = o
		next[r]++
	}
	byDoc := func(x, y termOp) int {
		return cmp.Or(cmp.Compare(x.doc, y.doc), cmp.Compare(x.n, y.n), cmp.Compare(x.field, y.field))
	}
	for from := 0; from < len(sorted); {
		to := from + 1
		for to < len(sorted) && sorted[to].term == sorted[from].term {
			to++
		}
		if run := sorted[from:to]; !slices.IsSortedFunc(run, byDoc) {
			slices.SortFunc(run, byDoc)
		}
		from = to
	}
	b.sorted = sorted
	return sorted
}

// Flush applies the term writes gathered, in key order, and empties the batch.
func (b *Batch) Flush(tx *bolt.Tx) error {
	if b.batch == nil {
		return nil
	}
	defer b.reset()
	if len(b.ops) == 0 {
		return nil
	}
	ops := b.order()
	c := tx.Bucket(Bucket).Bucket(bucketPostings).Cursor()
	w := blockWriter{put: c.Bucket().Put, del: c.Bucket().Delete}
	for i := 0; i < len(ops); {
		// The ops of one term that fall in one block are applied together.
		term := ops[i].term
		key := append(append(b.key[:0], b.terms[term]...), 0)
		prefix := key[:len(key):len(key)]
		key = binary.BigEndian.AppendUint32(key, ops[i].doc)
		b.key = key
		bkey, bval, before, limit := locate(c, key, prefix)
		j := i + 1
		for j < len(ops) && ops[j].term == term && uint64(ops[j].doc) < limit {
			j++
		}
		if err := w.write(prefix, bkey, bval, before, ops[i:j]); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		i = j
	}
	return nil
}

// blockWriter applies the ops of a block and puts what comes of it.
type blockWriter struct {
	put func(k, v []byte) error
	del func(k []byte) error
	// arena holds the values put: bbolt keeps them until the commit, so each is a part
	// of it that is never written over (a new one is made when it is full).
	arena []byte
	ents  []entry
	spans []Span
}

// write applies ops, all of the term of prefix and in doc order, to the block bkey
// (none: the term has no block yet) whose value is bval, and puts the blocks that come
// of it. before says the ops' docs come before bkey's: the block gets a key of its first
// doc.
func (w *blockWriter) write(prefix, bkey, bval []byte, before bool, ops []termOp) error {
	w.spans = w.spans[:0]
	first, last, have, whole := uint32(0), uint32(0), 0, false
	if bkey != nil {
		first = blockDoc(bkey)
		last, have, whole = blockTail(first, bval)
	}
	// The docs of a first poll are newer than any in the index: the block's bytes stay
	// as they are, and the new entries go after them.
	appending := !before && have > 0 && whole && ops[0].doc > last
	if !appending {
		w.ents = decodeBlock(w.ents[:0], &w.spans, first, bval)
		have, last = 0, first
	} else {
		w.ents = w.ents[:0]
	}
	var changed bool
	w.ents, changed = applyOps(w.ents, &w.spans, ops)
	if !changed || len(w.ents) == 0 {
		return nil
	}
	if bkey == nil || before {
		if before {
			if err := w.del(bkey); err != nil {
				return err
			}
		}
		first = w.ents[0].doc
		bkey, last = binary.BigEndian.AppendUint32(prefix, first), first
	}
	bkey = bytes.Clone(bkey) // it may be the transaction's memory, which a Put moves
	// A block rewritten that outgrows its bounds is cut into blocks of even size, so that
	// docs added to it later find room; appended entries fill the block they go after.
	docs := maxBlockDocs
	if !appending {
		if k := blocksFor(w.ents); k > 1 {
			docs = (len(w.ents) + k - 1) / k
		}
	}
	for rest := w.ents; len(rest) > 0; {
		if cap(w.arena)-len(w.arena) < len(bval)+maxBlockBytes+64 {
			// Small for a Record that changes a word, growing for a first poll's
			// thousands of terms.
			w.arena = make([]byte, 0, min(max(4*(maxBlockBytes+64), 2*cap(w.arena)), 256<<10))
		}
		from := len(w.arena)
		if appending {
			w.arena = append(w.arena, bval...)
		}
		var n int
		w.arena, n = appendBlock(w.arena, from, have, last, rest, docs)
		if n > 0 {
			if err := w.put(bkey, w.arena[from:len(w.arena):len(w.arena)]); err != nil {
				return err
			}
		} else {
			w.arena = w.arena[:from] // the block was full: it stays as it is
		}
		if rest = rest[n:]; len(rest) > 0 {
			first = rest[0].doc
			bkey = binary.BigEndian.AppendUint32(append(bkey[:0:0], prefix...), first)
			appending, have, last = false, 0, first
		}
	}
	return nil
}

// reset gives the batch's state back to batchPool, emptied, unless it grew too large.
func (b *Batch) reset() {
	s := b.batch
	b.batch = nil
	if cap(s.ops) > maxPooledOps || len(s.terms) > maxPooledOps {
		return
	}
	clear(s.ids) // the terms are vendor text: keep none of it alive
	clear(s.terms)
	clear(s.key)
	clear(s.low.buf)
	s.ops, s.terms, s.last, s.sorted = s.ops[:0], s.terms[:0], s.last[:0], s.sorted[:0]
	batchPool.Put(s)
}

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
// looked up.
func docOf(root *bolt.Bucket, source, id string, at time.Time, cur *model.Incident, listed bool) (doc []byte, err error) {
	ids := root.Bucket(bucketIDs)
	name := docName(source, id)
	d := ids.Get(name)
	if listed && len(d) == 4 {
		return bytes.Clone(d), nil
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
			return nil, errors.New("damaged doc record")
		}
		first := decodeTime(old[12:])
		if when.IsZero() {
			when = first
		}
		if rec := docRecord(when, first, name); !bytes.Equal(rec, old) {
			return d, docs.Put(d, rec)
		}
		return d, nil
	}
	seq, err := docs.NextSequence()
	if err != nil {
		return nil, err
	}
	if seq > 1<<32-1 {
		return nil, errors.New("out of doc numbers")
	}
	d = binary.BigEndian.AppendUint32(nil, uint32(seq))
	if when.IsZero() {
		when = at
	}
	if err := docs.Put(d, docRecord(when, at, name)); err != nil {
		return nil, err
	}
	return d, ids.Put(name, d)
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
