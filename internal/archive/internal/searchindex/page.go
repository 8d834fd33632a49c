package searchindex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Key is a hit's place in the order of every list of incidents: the latest listing time
// first, then the greater URL id, then the greater source.
type Key struct {
	At         time.Time
	Source, ID string
}

// Page is the first hits of a search in list order.
type Page struct {
	Hits []Hit // at most the limit asked for, in list order
	// Total counts every hit that keep kept, those before after included.
	Total   int
	More    bool // hits past the page
	Partial bool // maxPostings was reached: some incidents may be missing
}

// place is a hit's Key as its doc record has it, compared without a string or a time
// made: the record's parts are the transaction's memory.
type place struct {
	sec        int64
	nsec       uint32
	source, id []byte
	doc        uint32
}

func placeOf(f *found) place {
	t := f.rec[:12]
	return place{sec: int64(binary.BigEndian.Uint64(t)), nsec: binary.BigEndian.Uint32(t[8:]), source: f.source, id: f.id, doc: f.doc}
}

// comparePlaces orders a before b when a comes first in the lists.
func comparePlaces(a, b *place) int {
	return cmp.Or(cmp.Compare(b.sec, a.sec), cmp.Compare(b.nsec, a.nsec), bytes.Compare(b.id, a.id), bytes.Compare(b.source, a.source))
}

// First is Search's hits of source (every source when empty) that keep keeps (every hit
// when keep is nil), the limit of them that come first after after (nil: from the start)
// in list order (Key). Only the page's hits are made: the others cost a comparison of
// their doc records' listing time with the last of the page's, which the index reads
// anyway to say where an incident is.
func First(tx *bolt.Tx, q, source string, keep func(source, id []byte) (bool, error), after *Key, limit int) (Page, error) {
	var pg Page
	var bound *place
	if after != nil {
		bound = &place{sec: after.At.Unix(), nsec: uint32(after.At.Nanosecond()), source: []byte(after.Source), id: []byte(after.ID)}
	}
	limit = max(limit, 0)
	// top is a heap of the page's hits so far, the one that comes last at its root.
	var top []place
	rest := 0
	lists, err := scan(tx, q, source, &pg.Partial, func(f *found) error {
		if keep != nil {
			ok, err := keep(f.source, f.id)
			if err != nil || !ok {
				return err
			}
		}
		pg.Total++
		p := placeOf(f)
		if bound != nil && comparePlaces(&p, bound) <= 0 {
			return nil
		}
		rest++
		switch {
		case len(top) < limit:
			if top == nil {
				top = make([]place, 0, min(limit, f.max))
			}
			top = append(top, p)
			up(top, len(top)-1)
		case limit > 0 && comparePlaces(&p, &top[0]) < 0:
			top[0] = p
			down(top, 0)
		}
		return nil
	})
	defer release(lists)
	if err != nil {
		return Page{}, err
	}
	pg.More = rest > len(top)
	slices.SortFunc(top, func(a, b place) int { return comparePlaces(&a, &b) })
	pg.Hits = make([]Hit, 0, len(top))
	spans := make([][]Span, len(lists))
	for i := range top {
		p := &top[i]
		for j, l := range lists {
			spans[j] = l.spansOf(p.doc)
		}
		h := match(spans)
		h.Source, h.ID, h.ListedAt = string(p.source), string(p.id), time.Unix(p.sec, int64(p.nsec)).UTC()
		pg.Hits = append(pg.Hits, h)
	}
	return pg, nil
}

// up and down keep top a heap whose root comes last in list order.
func up(top []place, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if comparePlaces(&top[parent], &top[i]) >= 0 {
			return
		}
		top[parent], top[i] = top[i], top[parent]
		i = parent
	}
}

func down(top []place, i int) {
	for {
		last := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(top) && comparePlaces(&top[c], &top[last]) > 0 {
				last = c
			}
		}
		if last == i {
			return
		}
		top[last], top[i] = top[i], top[last]
		i = last
	}
}
