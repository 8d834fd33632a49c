package searchindex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
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

// Search finds the incidents that have every term of q in some version, in any field,
// keeping only those of source when it is not empty. ErrNoIndex when tx's archive has no
// index.
func Search(tx *bolt.Tx, q, source string) (Result, error) {
	root := tx.Bucket(Bucket)
	if root == nil || root.Get(keyPending) != nil {
		return Result{}, ErrNoIndex
	}
	terms := QueryTerms(q)
	if len(terms) == 0 {
		return Result{}, nil
	}
	var res Result
	budget := maxPostings
	var lists []*list
	for _, t := range terms {
		l, partial := read(root.Bucket(bucketTerms), t, &budget)
		res.Partial = res.Partial || partial
		if len(l.postings) == 0 {
			return res, nil
		}
		lists = append(lists, l)
	}
	var want []byte
	if source != "" {
		want = append([]byte(source), 0)
	}
	res.Hits = make([]Hit, 0, len(slices.MinFunc(lists, func(a, b *list) int { return len(a.postings) - len(b.postings) }).postings))
	// The hits come in doc order: a cursor over the doc records steps to the next one
	// when it is near, and seeks only past a gap.
	c := root.Bucket(bucketDocs).Cursor()
	var k, rec []byte
	intersect(lists, func(doc uint32, spans [][]Span) {
		for steps := 0; k != nil && binary.BigEndian.Uint32(k) < doc && steps < 8; steps++ {
			k, rec = c.Next()
		}
		if k == nil || len(k) != 4 || binary.BigEndian.Uint32(k) != doc {
			k, rec = c.Seek(binary.BigEndian.AppendUint32(nil, doc))
		}
		if len(k) != 4 || binary.BigEndian.Uint32(k) != doc || len(rec) < docHeader {
			return
		}
		name := rec[docHeader:]
		if want != nil && !bytes.HasPrefix(name, want) {
			return
		}
		src, id, ok := bytes.Cut(name, []byte{0})
		if !ok {
			return
		}
		h := match(spans)
		h.Source, h.ID, h.ListedAt = string(src), string(id), decodeTime(rec)
		res.Hits = append(res.Hits, h)
	})
	return res, nil
}

// read returns, in doc order, the spans of every doc with an index term that term is
// (exactly, for a short term) a prefix of; partial when the budget ran out.
func read(terms *bolt.Bucket, term string, budget *int) (l *list, partial bool) {
	l = &list{}
	exact := utf8.RuneCountInString(term) < minPrefixRunes
	if r, _ := utf8.DecodeRuneInString(term); isCJK(r) {
		exact = false
	}
	prefix := []byte(term)
	if exact {
		prefix = append(prefix, 0)
	}
	sorted := true
	c := terms.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if *budget <= 0 {
			partial = true
			break
		}
		*budget--
		if len(k) < 5 || k[len(k)-5] != 0 {
			continue
		}
		doc := binary.BigEndian.Uint32(k[len(k)-4:])
		from := int32(len(l.spans))
		l.spans = appendSpans(l.spans, v)
		end := int32(len(l.spans))
		if n := len(l.postings); n > 0 && l.postings[n-1].doc >= doc {
			if l.postings[n-1].doc == doc && l.postings[n-1].to == from {
				l.postings[n-1].to = end
				continue
			}
			sorted = false
		}
		l.postings = append(l.postings, posting{doc: doc, from: from, to: end})
	}
	if !sorted {
		// Several index terms began with term: merge their runs into one arena.
		slices.SortStableFunc(l.postings, func(a, b posting) int { return cmp.Compare(a.doc, b.doc) })
		merged := &list{postings: l.postings[:0], spans: make([]Span, 0, len(l.spans))}
		for _, p := range l.postings {
			from := int32(len(merged.spans))
			merged.spans = append(merged.spans, l.of(p)...)
			if n := len(merged.postings); n > 0 && merged.postings[n-1].doc == p.doc {
				merged.postings[n-1].to = int32(len(merged.spans))
				continue
			}
			merged.postings = append(merged.postings, posting{doc: p.doc, from: from, to: int32(len(merged.spans))})
		}
		l = merged
	}
	return l, partial
}

// intersect calls fn with each doc that is in every list, and its spans in each.
func intersect(lists []*list, fn func(doc uint32, spans [][]Span)) {
	// Walk the shortest list and look the others up by binary search from where the
	// last look-up ended, so a rare term makes the whole intersection cheap.
	slices.SortFunc(lists, func(a, b *list) int { return len(a.postings) - len(b.postings) })
	pos := make([]int, len(lists))
	spans := make([][]Span, len(lists))
next:
	for _, p := range lists[0].postings {
		spans[0] = lists[0].of(p)
		for i := 1; i < len(lists); i++ {
			l := lists[i].postings[pos[i]:]
			j, found := slices.BinarySearchFunc(l, p.doc, func(q posting, d uint32) int { return cmp.Compare(q.doc, d) })
			pos[i] += j
			if pos[i] >= len(lists[i].postings) {
				return
			}
			if !found {
				continue next
			}
			spans[i] = lists[i].of(l[j])
		}
		fn(p.doc, spans)
	}
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
