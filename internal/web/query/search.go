package query

import (
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
// (view.CompareKeys, which archive.SearchKey follows). Only the page is made and read
// (archive.Store.SearchFirst), so a query that matches most of the archive costs the
// index reads and a comparison a hit.
func Search(st *archive.Store, q, source string, open *bool, after *view.Key, limit int) (SearchPage, error) {
	var from *archive.SearchKey
	if after != nil {
		from = &archive.SearchKey{At: after.At, Source: after.Source, ID: after.ID}
	}
	res, err := st.SearchFirst(q, source, open, from, limit)
	if err != nil {
		return SearchPage{}, err
	}
	p := SearchPage{Hits: res.Hits, Total: res.Total, More: res.More, Partial: res.Partial}
	if p.Infos, err = st.IncidentInfos(p.Hits); err != nil {
		return SearchPage{}, err
	}
	return p, nil
}

// HitKey is a search hit's place in the lists.
func HitKey(h *archive.SearchHit) view.Key {
	return view.Key{At: h.ListedAt.UTC(), Source: h.Source, ID: h.ID}
}
