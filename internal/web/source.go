package web

import (
	"net/http"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
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
func (s *Server) source(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("source")
	at, err := param.At(r.URL.Query())
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	p, err := param.ParsePage(r, sourceCursor, 3)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	var after *view.Key
	if p.Before != nil {
		t, err := time.Parse(timeLayout, p.Before[0])
		if err != nil {
			badRequest(w, "%v", param.ErrBadCursor)
			return
		}
		after = &view.Key{At: t, Source: p.Before[1], ID: p.Before[2]}
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
	infos, err := s.incidentsAt(name, at)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	out := api.SourceAt{Source: all[i], At: api.Time(at), Incidents: []api.IncidentItem{}}
	if out.Components, _, err = s.componentsAt(name, at); err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	list := make([]*archive.IncidentInfo, 0, len(infos))
	for i := range infos {
		if after == nil || view.CompareKeys(view.KeyOf(&infos[i]), *after) > 0 {
			list = append(list, &infos[i])
		}
	}
	slices.SortFunc(list, func(a, b *archive.IncidentInfo) int { return view.CompareKeys(view.KeyOf(a), view.KeyOf(b)) })
	if len(list) > p.Limit {
		list = list[:p.Limit]
		last := view.KeyOf(list[len(list)-1])
		param.SetNext(w, r, param.Cursor(sourceCursor, last.At.Format(timeLayout), last.Source, last.ID))
	}
	for _, in := range list {
		out.Incidents = append(out.Incidents, s.incidentItem(in))
	}
	writeJSON(w, http.StatusOK, out)
}
