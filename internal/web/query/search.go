package query

import (
	"slices"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// Search is the search of the API and the search page: the incidents of source (every
// source when empty) with every word of q in some archived version (archive.Store.Search),
// those whose open state is *open when open is not nil, in the order of every list of
// incidents (view.CompareKeys). partial says the search stopped at its bound.
func Search(st *archive.Store, q, source string, open *bool) (hits []archive.SearchHit, partial bool, err error) {
	res, err := st.Search(q, source)
	if err != nil {
		return nil, false, err
	}
	hits = res.Hits
	if open != nil {
		hits = slices.DeleteFunc(hits, func(h archive.SearchHit) bool { return h.Open != *open })
	}
	slices.SortFunc(hits, func(a, b archive.SearchHit) int { return view.CompareKeys(HitKey(&a), HitKey(&b)) })
	return hits, res.Partial, nil
}

// HitKey is a search hit's place in the lists.
func HitKey(h *archive.SearchHit) view.Key {
	return view.Key{At: h.ListedAt, Source: h.Source, ID: h.ID}
}
