package searchindex

import (
	"bytes"
	"encoding/binary"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// A term's postings are kept in blocks of many incidents, not one key each: the first
// poll of a page writes the same common words for each of its fifty incidents, and one
// key per word and incident made that a bbolt Put (a seek from the root, an insert, a
// key copy) for each — nine tenths of a cold Record. A block of a term is
//
//	postings/<term>\x00<BE uint32 doc> → entries, in doc order, of the docs from doc up
//	                                     to the first doc of the term's next block:
//	                                     uvarint doc − the doc before (the key's doc
//	                                     before the first), uvarint length, spans
//
// Doc numbers only grow, so a new incident's terms go at the end of each term's last
// block, and a block that outgrows its bounds is cut into blocks of its own keys.
const (
	maxBlockDocs  = 128
	maxBlockBytes = 2048
)

// entry is one doc's spans in a block being rewritten.
type entry struct {
	doc   uint32
	spans []Span
}

// isBlockOf reports whether k is a block key of the term of prefix (the term and its 0).
func isBlockOf(k, prefix []byte) bool {
	return len(k) == len(prefix)+4 && bytes.HasPrefix(k, prefix)
}

// blockDoc is the first doc a block key covers.
func blockDoc(k []byte) uint32 { return binary.BigEndian.Uint32(k[len(k)-4:]) }

// locate finds, with c, the block of prefix's term that doc belongs in: the last whose
// key's doc is doc or before it. When doc comes before every block of the term, it is
// the term's first block (before says so: it takes the doc and a new key), and none
// (nil) when the term has no block. limit is the first doc of the term's block after
// the one found, 1<<32 when there is none. key is prefix and doc.
func locate(c *bolt.Cursor, key, prefix []byte) (bkey, bval []byte, before bool, limit uint64) {
	limit = 1 << 32
	k, v := c.Seek(key)
	next := k
	switch {
	case k != nil && bytes.Equal(k, key):
		bkey, bval = k, v
		next, _ = c.Next()
	default:
		var pk, pv []byte
		if k == nil {
			pk, pv = c.Last()
		} else {
			pk, pv = c.Prev()
		}
		switch {
		case isBlockOf(pk, prefix):
			bkey, bval = pk, pv
		case isBlockOf(k, prefix):
			// A doc older than the term's first block joins it rather than starting
			// a block of its own: terms added to old incidents one by one would
			// otherwise leave a block per incident.
			bkey, bval, before = k, v, true
			c.Seek(k)
			next, _ = c.Next()
		}
	}
	if isBlockOf(next, prefix) {
		limit = uint64(blockDoc(next))
	}
	return bkey, bval, before, limit
}

// eachEntry calls fn with the doc and encoded spans of each entry of block v, whose
// key's doc is first, in order, until fn returns false. A damaged tail is dropped. It
// returns the length of the entries read.
func eachEntry(first uint32, v []byte, fn func(doc uint32, spans []byte) bool) int {
	doc := uint64(first)
	read := 0
	for read < len(v) {
		rest := v[read:]
		delta, n := binary.Uvarint(rest)
		if n <= 0 {
			break
		}
		size, m := binary.Uvarint(rest[n:])
		if m <= 0 || size > uint64(len(rest)-n-m) || doc+delta > 1<<32-1 {
			break
		}
		doc += delta
		end := n + m + int(size)
		if !fn(uint32(doc), rest[n+m:end]) {
			break
		}
		read += end
	}
	return read
}

// decodeBlock appends to dst the entries of block v, whose key's doc is first; each
// entry's spans are a part of *arena that is full (an append copies it).
func decodeBlock(dst []entry, arena *[]Span, first uint32, v []byte) []entry {
	eachEntry(first, v, func(doc uint32, spans []byte) bool {
		from := len(*arena)
		*arena = appendSpans(*arena, spans)
		dst = append(dst, entry{doc: doc, spans: (*arena)[from:len(*arena):len(*arena)]})
		return true
	})
	return dst
}

// spansLen is the length of appendEncoded's encoding of spans.
func spansLen(spans []Span) int {
	n := 0
	for _, s := range spans {
		n += 1 + uvarintLen(uint64(s.From)) + uvarintLen(uint64(s.To))
	}
	return n
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// blocksFor is about how many blocks appendBlock cuts ents into (at least as many).
func blocksFor(ents []entry) int {
	blocks, size, n := 0, 0, 0
	for i := range ents {
		es := 2*binary.MaxVarintLen32 + spansLen(ents[i].spans)
		if n == 0 || n == maxBlockDocs || size+es > maxBlockBytes {
			blocks, size, n = blocks+1, 0, 0
		}
		size, n = size+es, n+1
	}
	return blocks
}

// appendBlock appends to b, which holds from start on a block of have entries whose
// last doc is prev (its key's doc when it has none), as many of ents as keep it within
// its bounds and at most docs entries: at least one when the block is empty. It returns
// how many it took.
func appendBlock(b []byte, start, have int, prev uint32, ents []entry, docs int) ([]byte, int) {
	last := uint64(prev)
	n := 0
	for n < len(ents) && have+n < min(docs, maxBlockDocs) {
		e := &ents[n]
		size := spansLen(e.spans)
		if have+n > 0 && len(b)-start+2*binary.MaxVarintLen32+size > maxBlockBytes {
			break
		}
		b = binary.AppendUvarint(b, uint64(e.doc)-last)
		b = binary.AppendUvarint(b, uint64(size))
		b = appendEncoded(b, e.spans)
		last = uint64(e.doc)
		n++
	}
	return b, n
}

// blockTail is the last doc of block v, whose key's doc is first, and its number of
// entries, read without decoding a span; whole is false when v has a damaged tail.
func blockTail(first uint32, v []byte) (last uint32, n int, whole bool) {
	last = first
	read := eachEntry(first, v, func(doc uint32, _ []byte) bool {
		last, n = doc, n+1
		return true
	})
	return last, n, read == len(v)
}

// applyOps applies ops, all of one term and in doc then version order, to the entries of
// its block, and reports whether any changed. A span added goes with a copy of the
// entry's spans at the end of *arena, not in an allocation of its own.
func applyOps(ents []entry, arena *[]Span, ops []termOp) ([]entry, bool) {
	changed := false
	p := 0
	for i := range ops {
		o := &ops[i]
		doc := o.doc
		for p < len(ents) && ents[p].doc < doc {
			p++
		}
		if p == len(ents) || ents[p].doc != doc {
			if !o.add {
				continue // a term cut off by a bound when it came has no span to end
			}
			ents = slices.Insert(ents, p, entry{doc: doc})
		}
		e := &ents[p]
		if o.add {
			from := len(*arena)
			*arena = append(append(*arena, e.spans...), Span{Field: o.field, From: o.n})
			e.spans, changed = (*arena)[from:len(*arena):len(*arena)], true
			continue
		}
		for j := range e.spans {
			if e.spans[j].Field == o.field && e.spans[j].To == 0 {
				e.spans[j].To, changed = o.n, true
			}
		}
	}
	return ents, changed
}
