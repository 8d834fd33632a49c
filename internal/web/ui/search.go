package ui

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
)

// searchLimit caps the results of one search; the page says when there were more.
const searchLimit = 100

// searchView is the search page's view.
type searchView struct {
	Query   string
	Results []searchResult
	Total   int  // matches, of which the first searchLimit are shown
	Partial bool // the search stopped at its bound: there may be more
	NoIndex string
}

type searchResult struct {
	incidentRow
	Snippet template.HTML // where the words were found, marked
	Field   string        // the field they were found in
	// Removed is set when the words are not all in the latest version: version Removed
	// took one out, RemovedURL is that change's page, and the snippet is of the version
	// before it.
	Removed    int
	RemovedURL string
	Version    int // the version the snippet is of
}

// Search answers GET /search?q=: every incident of the whole archive with all the words
// of q in some archived version — its title, updates, postmortem or components — newest
// first (the search of GET /api/v1/incidents?q=), each with a snippet of the text that
// matched. An incident whose latest version no longer has them all says which version
// removed them, linked to that change, and its snippet is of the version before.
func (s *Site) Search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	v := searchView{Query: q}
	if q != "" {
		page, err := query.Search(s.store, q, "", nil, nil, searchLimit)
		switch {
		case errors.Is(err, archive.ErrNoIndex):
			v.NoIndex = err.Error()
		case err != nil:
			s.pageArchiveError(w, r, err, "")
			return
		}
		v.Total, v.Partial = page.Total, page.Partial
		hits, infos := page.Hits, page.Infos
		words := strings.Fields(strings.ToLower(q))
		for i := range infos {
			in, m := &infos[i], hits[i].Matched
			res := searchResult{incidentRow: s.incidentRow(in), Field: m.Field, Version: m.Version}
			matched := &in.Latest
			if !m.Latest {
				res.Removed, res.RemovedURL = m.Version+1, s.paths.Change(in.Source, in.ID, m.Version+1)
				ver, err := s.store.Version(in.Source, in.ID, m.Version)
				if err != nil {
					s.pageArchiveError(w, r, err, "")
					return
				}
				matched = &ver.Incident
			}
			res.Snippet = vendortext.Snippet(matched, words)
			if res.Snippet == "" && !m.Latest && m.Field == "title" {
				// The words were in a title since reworded: show that title, marked.
				res.Snippet = "Title then: " + vendortext.Snippet(&model.Incident{Updates: []model.Update{{Body: matched.Title}}}, words)
			}
			v.Results = append(v.Results, res)
		}
	}
	title := "Search"
	if q != "" {
		title = q + " · Search"
	}
	p := &pageData{Title: title, Nav: "search", Query: q, Data: v}
	if q != "" {
		p.JSON = s.prefix + "/api/v1/incidents?q=" + url.QueryEscape(q)
	}
	s.render(w, r, http.StatusOK, "search", p)
}
