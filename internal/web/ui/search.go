package ui

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// searchLimit caps the results of one search; the page says when there were more.
const searchLimit = 100

// searchView is the search page's view.
type searchView struct {
	Query   string
	Results []searchResult
	Total   int // matches, of which the first searchLimit are shown
}

type searchResult struct {
	incidentRow
	Snippet template.HTML // where the words were found, marked
}

// Search answers GET /search?q=: every incident of the whole archive whose latest
// version has all the words of q in its title, updates or postmortem, case-insensitively
// (the matching of GET /api/v1/incidents?q=), newest first, each with a snippet of the
// text that matched.
func (s *Site) Search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	v := searchView{Query: q}
	if words := strings.Fields(strings.ToLower(q)); len(words) > 0 {
		infos, err := s.store.Incidents("")
		if err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
		var hits []*archive.IncidentInfo
		for i := range infos {
			if query.Matches(&infos[i].Latest, words) {
				hits = append(hits, &infos[i])
			}
		}
		slices.SortFunc(hits, func(a, b *archive.IncidentInfo) int { return view.CompareKeys(view.KeyOf(a), view.KeyOf(b)) })
		v.Total = len(hits)
		for _, in := range hits[:min(len(hits), searchLimit)] {
			v.Results = append(v.Results, searchResult{s.incidentRow(in), vendortext.Snippet(&in.Latest, words)})
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
