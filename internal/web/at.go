package web

import (
	"net/http"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// versionAt answers GET /api/v1/incidents/{source}/{id}/at?time=T: the version in force
// at T, the last one observed at or before T, in the same shape as the latest. 400
// without a valid time, 404 for an unknown incident or a T before its first version.
//
// The search assumes observation times grow with the version number: each is the fetch
// time of the poll that made it, and a source's polls are serialised.
func (s *Server) versionAt(w http.ResponseWriter, r *http.Request) {
	source, id := r.PathValue("source"), r.PathValue("id")
	raw := r.URL.Query().Get("time")
	if raw == "" {
		badRequest(w, "time: required, an RFC 3339 time such as 2026-07-01T14:05:00Z")
		return
	}
	t, err := param.Time("time", raw)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	first, err := s.store.Version(source, id, 1)
	if err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	if first.ObservedAt.After(t) {
		writeError(w, http.StatusNotFound, "no version in force at "+t.Format(timeLayout)+
			": the incident was first archived at "+first.ObservedAt.UTC().Format(timeLayout))
		return
	}
	v, err := query.LastVersion(s.store, source, id, first, func(v *model.Version) bool { return !v.ObservedAt.After(t) })
	if err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	latest, err := query.LatestFrom(s.store, source, id, v)
	if err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	writeJSON(w, http.StatusOK, s.incidentJSON(source, id, v, latest.N))
}
