package web

import (
	"net/http"
	"slices"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// sourceCursor tags the cursors of a source's incidents; they carry the sort key of the
// last incident of a page, as the incident list's do.
const sourceCursor = "source"

// source answers GET /api/v1/sources/{source}?at=T&limit=&before=: the source as GET
// /api/v1/sources shows it, with its incidents as they stood at T (each the version in
// force then, newest first, paged like the incident list) and the states of its
// components then. Without at, everything is as now. 400 for a bad at, 404 for a
// source neither configured nor archived.
func (s *Server) source(w http.ResponseWriter, r *http.Request, name string) {
	at, err := param.At(r.URL.Query())
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	p, after, err := view.KeyPage(r, sourceCursor)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	all, err := s.sources()
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	i := slices.IndexFunc(all, func(src api.Source) bool { return src.Name == name })
	if i < 0 {
		writeError(w, http.StatusNotFound, "unknown source")
		return
	}
	infos, err := query.IncidentsAt(s.store, name, at)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	out := api.SourceAt{Source: all[i], At: api.Time(at), Incidents: []api.IncidentItem{}}
	if out.Components, _, err = s.componentsAt(name, at); err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	list, last := view.PageOf(infos, after, p.Limit)
	if last != nil {
		param.SetNext(w, r, param.Cursor(sourceCursor, last.At.Format(timeLayout), last.Source, last.ID))
	}
	for _, in := range list {
		out.Incidents = append(out.Incidents, s.incidentItem(in))
	}
	writeJSON(w, http.StatusOK, out)
}
