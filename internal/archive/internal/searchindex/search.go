package searchindex

import (
	"bytes"
	"encoding/binary"
	"slices"
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
	Version uint32
	Field   Field // where the first term was found then (Latest), or the term that went
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
// query term is a prefix of).
type posting struct {
	doc   uint32
	spans []Span
}

// Search finds the incidents that have every term of q in some version, in any field,
// keeping only those of source when it is not empty. ErrNoIndex when tx's archive has no
// index.
func Search(tx *bolt.Tx, q, source string) (Result, error) {
	root := tx.Bucket(Bucket)
	if root == nil {
		return Result{}, ErrNoIndex
	}
	terms := QueryTerms(q)
	if len(terms) == 0 {
		return Result{}, nil
	}
	var res Result
	budget := maxPostings
	var lists [][]posting
	for _, t := range terms {
		list, partial := read(root.Bucket(bucketTerms), t, &budget)
		res.Partial = res.Partial || partial
		if len(list) == 0 {
			return res, nil
		}
		lists = append(lists, list)
	}
	docs, ids := root.Bucket(bucketDocs), []byte(nil)
	var want []byte
	if source != "" {
		want = append([]byte(source), 0)
	}
	intersect(lists, func(doc uint32, spans [][]Span) {
		ids = binary.BigEndian.AppendUint32(ids[:0], doc)
		name := docs.Get(ids)
		if name == nil || want != nil && !bytes.HasPrefix(name, want) {
			return
		}
		src, id, ok := bytes.Cut(name, []byte{0})
		if !ok {
			return
		}
		h := match(spans)
		h.Source, h.ID = string(src), string(id)
		res.Hits = append(res.Hits, h)
	})
	return res, nil
}

// read returns, in doc order, the spans of every doc with an index term that term is
// (exactly, for a short term) a prefix of; partial when the budget ran out.
func read(terms *bolt.Bucket, term string, budget *int) (list []posting, partial bool) {
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
		if n := len(list); n > 0 && list[n-1].doc >= doc {
			if list[n-1].doc == doc {
				list[n-1].spans = appendSpans(list[n-1].spans, v)
				continue
			}
			sorted = false
		}
		list = append(list, posting{doc: doc, spans: appendSpans(nil, v)})
	}
	if !sorted {
		// Several index terms began with term: merge their runs.
		slices.SortStableFunc(list, func(a, b posting) int { return cmpUint32(a.doc, b.doc) })
		out := list[:0]
		for _, p := range list {
			if n := len(out); n > 0 && out[n-1].doc == p.doc {
				out[n-1].spans = append(out[n-1].spans, p.spans...)
				continue
			}
			out = append(out, p)
		}
		list = out
	}
	return list, partial
}

func cmpUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// intersect calls fn with each doc that is in every list (each sorted by doc), and its
// spans in each.
func intersect(lists [][]posting, fn func(doc uint32, spans [][]Span)) {
	// Walk the shortest list and look the others up by binary search from where the
	// last look-up ended, so a rare term makes the whole intersection cheap.
	slices.SortFunc(lists, func(a, b []posting) int { return len(a) - len(b) })
	pos := make([]int, len(lists))
	spans := make([][]Span, len(lists))
next:
	for _, p := range lists[0] {
		spans[0] = p.spans
		for i := 1; i < len(lists); i++ {
			l := lists[i][pos[i]:]
			j, found := slices.BinarySearchFunc(l, p.doc, func(q posting, d uint32) int { return cmpUint32(q.doc, d) })
			pos[i] += j
			if pos[i] >= len(lists[i]) {
				return
			}
			if !found {
				continue next
			}
			spans[i] = l[j].spans
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
