package web

import (
	"errors"
	"net/http"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// searchIncidents answers GET /api/v1/incidents with q: the incidents with every word of
// q in some archived version, not only the latest (query.Search), each item saying where
// they matched, paged like the plain list. A search stopped at its bound on index entries
// says so in the header Search-Partial: true. csvOut writes the page as CSV.
func (s *Server) searchIncidents(w http.ResponseWriter, r *http.Request, p param.Page, after *view.Key, open *bool, source, q string, csvOut bool) {
	if source != "" && !s.knownSource(w, r, source) {
		return
	}
	page, err := query.Search(s.store, q, source, open, after, p.Limit)
	if errors.Is(err, archive.ErrNoIndex) {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if page.Partial {
		w.Header().Set("Search-Partial", "true")
	}
	if page.More {
		last := query.HitKey(&page.Hits[len(page.Hits)-1])
		param.SetNext(w, r, param.Cursor(incidentsCursor, last.At.Format(timeLayout), last.Source, last.ID))
	}
	out := make([]api.IncidentItem, len(page.Infos))
	for i := range page.Infos {
		out[i] = s.incidentItem(&page.Infos[i])
		m := page.Hits[i].Matched
		out[i].Matched = &api.Match{Version: m.Version, Field: m.Field, Latest: m.Latest}
	}
	if csvOut {
		writeIncidentsCSV(w, out)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
