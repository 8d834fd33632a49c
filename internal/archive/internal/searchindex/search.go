package searchindex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// Bounds of one query: terms past maxQueryTerms are ignored, and reading stops after
// maxPostings index entries (the result then says Partial).
const (
	maxQueryTerms = 16
	// A term of 100,000 incidents is 100,000 entries; this reads a few such terms.
	maxPostings = 1 << 20
	// A non-CJK query term shorter than this matches only itself, not every term it
	// begins: "1" must not read the entries of every number.
	minPrefixRunes = 3
)

// Hit is an incident every query term was found in.
type Hit struct {
	Source, ID string
	// Latest is whether every term is in the latest version. When it is not, Version is
	// the latest version that had them all (or, if none had them all, the last that had
	// the term that went first), and version Version+1 removed one.
	Latest  bool
	Version uint32 // 0 when Latest: the index does not keep version counts
	Field   Field  // where the first term was found then (Latest), or the term that went
	// ListedAt is the time lists order the incident by: its start, else its scheduled
	// start, else when it was first seen.
	ListedAt time.Time
}

// Result is a search's hits, in doc order (the order incidents were first indexed).
type Result struct {
	Hits    []Hit
	Partial bool // maxPostings was reached: some incidents may be missing
}

// QueryTerms is the terms a query text searches for, at most maxQueryTerms, without
// repeats.
func QueryTerms(q string) []string {
	terms := Tokens(q, nil)
	seen := terms[:0]
	for _, t := range terms {
		if !slices.Contains(seen, t) {
			seen = append(seen, t)
		}
	}
	if len(seen) > maxQueryTerms {
		seen = seen[:maxQueryTerms]
	}
	return seen
}

// posting is one doc's spans for one query term (the union over the index terms the
// query term is a prefix of): spans[from:to] of its list's arena.
type posting struct {
	doc      uint32
	from, to int32
}

// list is a query term's postings, in doc order, and the arena of their spans: one
// allocation for all, not one per doc.
type list struct {
	postings []posting
	spans    []Span
}

func (l *list) of(p posting) []Span { return l.spans[p.from:p.to] }

// spansOf is the spans of doc in the list, none when it is not there.
func (l *list) spansOf(doc uint32) []Span {
	i, ok := slices.BinarySearchFunc(l.postings, doc, func(p posting, d uint32) int { return cmp.Compare(p.doc, d) })
	if !ok {
		return nil
	}
	return l.of(l.postings[i])
}

// Search finds the incidents that have every term of q in some version, in any field,
// keeping only those of source when it is not empty, in doc order. ErrNoIndex when tx's
// archive has no index.
func Search(tx *bolt.Tx, q, source string) (Result, error) {
	var res Result
	lists, err := scan(tx, q, source, &res.Partial, func(m *found) error {
		if res.Hits == nil {
			res.Hits = make([]Hit, 0, m.max)
		}
		res.Hits = append(res.Hits, m.hit(m.spans))
		return nil
	})
	release(lists)
	return res, err
}

// found is a doc every query term was found in, as scan passes it to its caller: its
// record's parts are the transaction's memory.
type found struct {
	doc    uint32
	source []byte // its source and URL id
	id     []byte
	rec    []byte   // its doc record
	spans  [][]Span // each list's spans of it, in the order of lists
	lists  []*list  // the query terms' lists, in the order intersect put them
	max    int      // the hits there can be at most: the shortest list's length
}

// hit is the Hit of the doc found, where the spans say it matched.
func (f *found) hit(spans [][]Span) Hit {
	h := match(spans)
	h.Source, h.ID, h.ListedAt = string(f.source), string(f.id), decodeTime(f.rec)
	return h
}

// scan reads the lists of q's terms and calls fn with each doc in all of them, of source
// when it is not empty, in doc order; partial is set when the bound on index entries
// read was reached. It returns the lists, in the order of found.lists, for the caller to
// release once done with them.
func scan(tx *bolt.Tx, q, source string, partial *bool, fn func(*found) error) ([]*list, error) {
	root := tx.Bucket(Bucket)
	if root == nil || root.Get(keyPending) != nil || root.Bucket(bucketPostings) == nil {
		return nil, ErrNoIndex
	}
	terms := QueryTerms(q)
	if len(terms) == 0 {
		return nil, nil
	}
	budget := maxPostings
	var lists []*list
	for _, t := range terms {
		l, cut := read(root.Bucket(bucketPostings), t, &budget)
		*partial = *partial || cut
		lists = append(lists, l)
		if len(l.postings) == 0 {
			return lists, nil
		}
	}
	var want []byte
	if source != "" {
		want = append([]byte(source), 0)
	}
	f := found{max: len(slices.MinFunc(lists, func(a, b *list) int { return len(a.postings) - len(b.postings) }).postings)}
	// The hits come in doc order: a cursor over the doc records steps to the next one
	// when it is near, and seeks only past a gap.
	c := root.Bucket(bucketDocs).Cursor()
	var k, rec []byte
	var seek [4]byte
	err := intersect(lists, func(doc uint32, spans [][]Span) error {
		for steps := 0; k != nil && binary.BigEndian.Uint32(k) < doc && steps < 8; steps++ {
			k, rec = c.Next()
		}
		if k == nil || len(k) != 4 || binary.BigEndian.Uint32(k) != doc {
			binary.BigEndian.PutUint32(seek[:], doc)
			k, rec = c.Seek(seek[:])
		}
		if len(k) != 4 || binary.BigEndian.Uint32(k) != doc || len(rec) < docHeader {
			return nil
		}
		name := rec[docHeader:]
		if want != nil && !bytes.HasPrefix(name, want) {
			return nil
		}
		src, id, ok := bytes.Cut(name, []byte{0})
		if !ok {
			return nil
		}
		f.doc, f.source, f.id, f.rec, f.spans, f.lists = doc, src, id, rec, spans, lists
		return fn(&f)
	})
	return lists, err
}

// listPool keeps the lists of past queries, so that a query of common words does not
// allocate and grow its arenas of a million entries anew.
var listPool = sync.Pool{New: func() any { return new(list) }}

func getList() *list {
	l := listPool.Get().(*list)
	l.postings, l.spans = l.postings[:0], l.spans[:0]
	return l
}

// release gives lists back to listPool: nothing of them may be used after.
func release(lists []*list) {
	for _, l := range lists {
		listPool.Put(l)
	}
}

// read returns, in doc order, the spans of every doc with an index term that term is
// (exactly, for a short term) a prefix of; partial when the budget ran out.
func read(postings *bolt.Bucket, term string, budget *int) (l *list, partial bool) {
	l = getList()
	exact := utf8.RuneCountInString(term) < minPrefixRunes
	if r, _ := utf8.DecodeRuneInString(term); isCJK(r) {
		exact = false
	}
	prefix := []byte(term)
	if exact {
		prefix = append(prefix, 0)
	}
	sorted := true
	c := postings.Cursor()
	add := func(doc uint32, spans []byte) bool {
		if *budget <= 0 {
			partial = true
			return false
		}
		*budget--
		from := int32(len(l.spans))
		l.spans = appendSpans(l.spans, spans)
		end := int32(len(l.spans))
		if n := len(l.postings); n > 0 && l.postings[n-1].doc >= doc {
			if l.postings[n-1].doc == doc && l.postings[n-1].to == from {
				l.postings[n-1].to = end
				return true
			}
			sorted = false
		}
		l.postings = append(l.postings, posting{doc: doc, from: from, to: end})
		return true
	}
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && !partial; k, v = c.Next() {
		if len(k) < 5 || k[len(k)-5] != 0 {
			continue
		}
		eachEntry(blockDoc(k), v, add)
	}
	if !sorted {
		// Several index terms began with term: merge their runs into one arena.
		slices.SortStableFunc(l.postings, func(a, b posting) int { return cmp.Compare(a.doc, b.doc) })
		// In place: merged never gets ahead of the postings it reads.
		ps, merged := l.postings, getList()
		merged.spans = slices.Grow(merged.spans, len(l.spans))
		merged.postings, l.postings = ps[:0], merged.postings
		for _, p := range ps {
			from := int32(len(merged.spans))
			merged.spans = append(merged.spans, l.of(p)...)
			if n := len(merged.postings); n > 0 && merged.postings[n-1].doc == p.doc {
				merged.postings[n-1].to = int32(len(merged.spans))
				continue
			}
			merged.postings = append(merged.postings, posting{doc: p.doc, from: from, to: int32(len(merged.spans))})
		}
		listPool.Put(l)
		l = merged
	}
	return l, partial
}

// intersect calls fn with each doc that is in every list, and its spans in each, until
// fn fails. It leaves lists in the order of the spans it passed.
func intersect(lists []*list, fn func(doc uint32, spans [][]Span) error) error {
	// Walk the shortest list and look the others up from where the last look-up ended,
	// by galloping then a binary search, so a rare term makes the whole intersection
	// cheap and two common ones cost a few comparisons a doc.
	slices.SortFunc(lists, func(a, b *list) int { return len(a.postings) - len(b.postings) })
	pos := make([]int, len(lists))
	spans := make([][]Span, len(lists))
next:
	for _, p := range lists[0].postings {
		spans[0] = lists[0].of(p)
		for i := 1; i < len(lists); i++ {
			l := lists[i].postings
			pos[i] = seekDoc(l, pos[i], p.doc)
			if pos[i] >= len(l) {
				return nil
			}
			if l[pos[i]].doc != p.doc {
				continue next
			}
			spans[i] = lists[i].of(l[pos[i]])
		}
		if err := fn(p.doc, spans); err != nil {
			return err
		}
	}
	return nil
}

// seekDoc returns the first index from i on of a posting of ps whose doc is doc or
// after it, len(ps) when there is none.
func seekDoc(ps []posting, i int, doc uint32) int {
	// Every posting before lo is before doc; the one at hi, if any, is not.
	lo, hi, step := i, i, 1
	for hi < len(ps) && ps[hi].doc < doc {
		lo, hi, step = hi+1, hi+step, step*2
	}
	hi = min(hi, len(ps))
	j, _ := slices.BinarySearchFunc(ps[lo:hi], doc, func(p posting, d uint32) int { return cmp.Compare(p.doc, d) })
	return lo + j
}

// match says where the terms whose spans are given were found together.
func match(terms [][]Span) Hit {
	// In the latest version: every term has an open span.
	latest := true
	for _, spans := range terms {
		if !slices.ContainsFunc(spans, func(s Span) bool { return s.To == 0 }) {
			latest = false
			break
		}
	}
	if latest {
		return Hit{Latest: true, Field: firstField(terms[0], func(s Span) bool { return s.To == 0 })}
	}
	// The latest version that had every term: the last version of some closed span.
	var best uint32
	for _, spans := range terms {
		for _, s := range spans {
			if s.To != 0 && s.To-1 > best && all(terms, s.To-1) {
				best = s.To - 1
			}
		}
	}
	if best > 0 {
		// The field is that of a term the next version no longer had anywhere.
		for _, spans := range terms {
			if !slices.ContainsFunc(spans, func(s Span) bool { return s.contains(best + 1) }) {
				return Hit{Version: best, Field: firstField(spans, func(s Span) bool { return s.contains(best) })}
			}
		}
	}
	// No version had them all: the last version of the term that went first.
	var first uint32
	var field Field
	for _, spans := range terms {
		last, lastField, open := uint32(0), Field(0), false
		for _, s := range spans {
			if s.To == 0 {
				open = true
				break
			}
			if s.To-1 > last {
				last, lastField = s.To-1, s.Field
			}
		}
		if !open && last > 0 && (first == 0 || last < first) {
			first, field = last, lastField
		}
	}
	return Hit{Version: first, Field: field}
}

// all reports whether every term has a span that contains version v.
func all(terms [][]Span, v uint32) bool {
	for _, spans := range terms {
		if !slices.ContainsFunc(spans, func(s Span) bool { return s.contains(v) }) {
			return false
		}
	}
	return true
}

// firstField is the smallest field of the spans that pass keep.
func firstField(spans []Span, keep func(Span) bool) Field {
	var f Field
	for _, s := range spans {
		if keep(s) && (f == 0 || s.Field < f) {
			f = s.Field
		}
	}
	return f
}
