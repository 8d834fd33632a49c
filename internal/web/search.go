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
// says so in the header Search-Partial: true.
func (s *Server) searchIncidents(w http.ResponseWriter, r *http.Request, p param.Page, after *view.Key, open *bool, source, q string) {
	if source != "" {
		known, err := query.KnownSource(s.store, source, s.configured(source))
		if err != nil {
			s.archiveError(w, r, err, "")
			return
		}
		if !known {
			writeError(w, http.StatusNotFound, "unknown source")
			return
		}
	}
	hits, partial, err := query.Search(s.store, q, source, open)
	if errors.Is(err, archive.ErrNoIndex) {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if partial {
		w.Header().Set("Search-Partial", "true")
	}
	if after != nil {
		i := 0
		for i < len(hits) && view.CompareKeys(query.HitKey(&hits[i]), *after) <= 0 {
			i++
		}
		hits = hits[i:]
	}
	if len(hits) > p.Limit {
		hits = hits[:p.Limit]
		last := query.HitKey(&hits[len(hits)-1])
		param.SetNext(w, r, param.Cursor(incidentsCursor, last.At.Format(timeLayout), last.Source, last.ID))
	}
	infos, err := s.store.IncidentInfos(hits)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	out := make([]api.IncidentItem, len(infos))
	for i := range infos {
		out[i] = s.incidentItem(&infos[i])
		m := hits[i].Matched
		out[i].Matched = &api.Match{Version: m.Version, Field: m.Field, Latest: m.Latest}
	}
	writeJSON(w, http.StatusOK, out)
}
