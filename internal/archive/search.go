package archive

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/searchindex"
	bolt "go.etcd.io/bbolt"
)

// ErrNoIndex is wrapped by the error of a Search of an archive of an older layout opened
// read-only, which has no search index until it is opened read-write once.
var ErrNoIndex = searchindex.ErrNoIndex

// Match is where a search found an incident's words.
type Match struct {
	// Version is the version they were found in: the latest when Latest, else the last
	// that had them all (or, when no one version had them all, the last that had the word
	// that went first), so version Version+1 is the change that removed one.
	Version int
	Field   string // "title", "updates", "postmortem" or "components"
	Latest  bool
}

// SearchHit is an incident a search found: enough to order and page the hits without
// reading the incident (IncidentInfos then reads those shown).
type SearchHit struct {
	Source, ID string
	ListedAt   time.Time // IncidentInfo.ListedAt
	// Matched is where. Its Version is 0 for a Latest match until IncidentInfos has read
	// the incident: the index does not keep version counts.
	Matched Match
}

// SearchResult is what Search found.
type SearchResult struct {
	Hits []SearchHit
	// Partial is true when the search stopped at its bound on index entries read (a query
	// of words that are everywhere): some incidents that match may be missing.
	Partial bool
}

// Search finds the incidents of source (every source when empty) that have every word
// of q in some archived version — any of them, not only the latest — in the title, an
// update, the postmortem or the components, case- and accent-insensitively; a query word
// of three letters or more also finds the words it begins. With open, only those whose
// latest version is open and still on the vendor's page (*open true), or the others.
// Hits are in no particular order. ErrNoIndex for an older archive opened read-only.
func (s *Store) Search(q, source string, open *bool) (SearchResult, error) {
	var res SearchResult
	err := s.view(func(tx *bolt.Tx) error {
		r, err := searchindex.Search(tx, q, source)
		if err != nil {
			return err
		}
		res.Partial = r.Partial
		res.Hits = make([]SearchHit, 0, len(r.Hits))
		for _, h := range r.Hits {
			if open != nil {
				m, ok, err := incident.LoadMeta(layout.Sub(layout.Source(tx, h.Source), layout.BucketIncidents), h.ID)
				if err != nil {
					return err
				}
				if !ok || (m.Open && !m.Removed) != *open {
					continue
				}
			}
			res.Hits = append(res.Hits, hitOf(&h))
		}
		return nil
	})
	if errors.Is(err, searchindex.ErrNoIndex) {
		return SearchResult{}, err
	}
	return res, wrapErr("search", err)
}

// SearchKey is a hit's place in the order of every list of incidents: the later
// IncidentInfo.ListedAt first, then the greater URL id, then the greater source.
type SearchKey = searchindex.Key

// SearchPage is the first hits of a search in list order.
type SearchPage struct {
	Hits []SearchHit
	// Total counts every hit, those before after and past the page included.
	Total   int
	More    bool // there are hits past the page
	Partial bool // as in SearchResult
}

// SearchFirst is Search's hits, the limit of them that come first after after (nil: from
// the start) in list order (SearchKey). Only the page's hits are made, so a query that
// matches most of the archive costs the index reads and a comparison a hit.
func (s *Store) SearchFirst(q, source string, open *bool, after *SearchKey, limit int) (SearchPage, error) {
	var pg SearchPage
	err := s.view(func(tx *bolt.Tx) error {
		var keep func(source, id []byte) (bool, error)
		if open != nil {
			var last []byte
			var incidents *bolt.Bucket
			keep = func(source, id []byte) (bool, error) {
				if incidents == nil || !bytes.Equal(source, last) {
					last, incidents = source, layout.Sub(layout.Source(tx, string(source)), layout.BucketIncidents)
				}
				m, ok, err := incident.LoadMeta(incidents, string(id))
				return ok && (m.Open && !m.Removed) == *open, err
			}
		}
		r, err := searchindex.First(tx, q, source, keep, after, limit)
		if err != nil {
			return err
		}
		pg = SearchPage{Hits: make([]SearchHit, 0, len(r.Hits)), Total: r.Total, More: r.More, Partial: r.Partial}
		for _, h := range r.Hits {
			pg.Hits = append(pg.Hits, hitOf(&h))
		}
		return nil
	})
	if errors.Is(err, searchindex.ErrNoIndex) {
		return SearchPage{}, err
	}
	return pg, wrapErr("search", err)
}

func hitOf(h *searchindex.Hit) SearchHit {
	return SearchHit{Source: h.Source, ID: h.ID, ListedAt: h.ListedAt,
		Matched: Match{Version: int(h.Version), Field: h.Field.String(), Latest: h.Latest}}
}

// IncidentInfos reads the IncidentInfo of each hit, in order, in one read transaction,
// and sets the Version of each Latest match to the incident's latest.
func (s *Store) IncidentInfos(hits []SearchHit) ([]IncidentInfo, error) {
	out := make([]IncidentInfo, 0, len(hits))
	err := s.view(func(tx *bolt.Tx) error {
		for i := range hits {
			h := &hits[i]
			src := layout.Source(tx, h.Source)
			m, ok, err := incident.LoadMeta(layout.Sub(src, layout.BucketIncidents), h.ID)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%s/%s: %w", h.Source, h.ID, ErrNotFound)
			}
			ver, err := incident.Load(layout.Sub(src, layout.BucketVersions), h.ID, m.Latest)
			if err != nil {
				return err
			}
			if h.Matched.Latest {
				h.Matched.Version = int(m.Latest)
			}
			out = append(out, infoOf(h.Source, h.ID, &m, ver))
		}
		return nil
	})
	return out, wrapErr("incidents", err)
}
