package query

import (
	"slices"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// SearchPage is one page of a search's hits, in the order of every list of incidents.
type SearchPage struct {
	Hits  []archive.SearchHit // their Matched.Version set, also for latest matches
	Infos []archive.IncidentInfo
	// Total counts every hit, those before after and past the page included.
	Total int
	More  bool // there are hits past the page
	// Partial says the search stopped at its bound on index entries read.
	Partial bool
}

// Search is the search of the API, the search page and the CLI: the incidents of source
// (every source when empty) with every word of q in some archived version
// (archive.Store.Search), whose open state is *open when open is not nil; the limit of
// them that come first after after (nil: from the start) in the order of the lists
// (view.CompareKeys). Only the page is sorted and read, so a query that matches most of
// the archive costs the index reads and a pass over the hits, not a sort and a decode of
// each.
func Search(st *archive.Store, q, source string, open *bool, after *view.Key, limit int) (SearchPage, error) {
	res, err := st.Search(q, source, open)
	if err != nil {
		return SearchPage{}, err
	}
	p := SearchPage{Total: len(res.Hits), Partial: res.Partial}
	cmpHits := func(a, b archive.SearchHit) int { return view.CompareKeys(HitKey(&a), HitKey(&b)) }
	hits := res.Hits
	if after != nil {
		hits = slices.DeleteFunc(hits, func(h archive.SearchHit) bool { return view.CompareKeys(HitKey(&h), *after) <= 0 })
	}
	var top []archive.SearchHit
	if len(hits) <= limit+1 {
		top = hits
		slices.SortFunc(top, cmpHits)
	} else {
		// The limit+1 first, kept sorted as the hits go by: most hits, in no order, come
		// after the last of them and are passed over with one comparison.
		top = make([]archive.SearchHit, 0, limit+1)
		for _, h := range hits {
			if len(top) == limit+1 && cmpHits(h, top[limit]) >= 0 {
				continue
			}
			i, _ := slices.BinarySearchFunc(top, h, cmpHits)
			if len(top) == limit+1 {
				top = top[:limit]
			}
			top = slices.Insert(top, i, h)
		}
	}
	if len(top) > limit {
		top, p.More = top[:limit], true
	}
	p.Hits = top
	if p.Infos, err = st.IncidentInfos(p.Hits); err != nil {
		return SearchPage{}, err
	}
	return p, nil
}

// HitKey is a search hit's place in the lists.
func HitKey(h *archive.SearchHit) view.Key {
	return view.Key{At: h.ListedAt.UTC(), Source: h.Source, ID: h.ID}
}
