package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// version answers GET /api/v1/incidents/{source}/{id}/versions/{n}: version n, in the
// same shape as the latest; 400 for an n that is not a version number, 404 for an
// unknown incident or version.
func (s *Server) version(w http.ResponseWriter, r *http.Request, source, id string) {
	n, err := param.Version("n", r.PathValue("n"), 1)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	v, err := s.store.Version(source, id, n)
	if err != nil {
		s.notFoundVersion(w, r, err, source, id, n)
		return
	}
	s.writeVersion(w, r, source, id, v)
}

// versionAt answers GET /api/v1/incidents/{source}/{id}/at?time=T: the version in force
// at T, the last one observed at or before T, in the same shape as the latest. 400
// without a valid time, 404 for an unknown incident or a T before its first version.
//
// The search assumes observation times grow with the version number: each is the fetch
// time of the poll that made it, and a source's polls are serialised.
func (s *Server) versionAt(w http.ResponseWriter, r *http.Request, source, id string) {
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
	s.writeVersion(w, r, source, id, v)
}

// writeVersion answers version v of source/id in the shape of the latest, with the number
// of versions the incident has.
func (s *Server) writeVersion(w http.ResponseWriter, r *http.Request, source, id string, v *model.Version) {
	latest, err := query.LatestFrom(s.store, source, id, v)
	if err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	writeJSON(w, http.StatusOK, s.incidentJSON(source, id, v, latest.N))
}

// notFoundVersion answers the error of reading version n: a 404 that says whether the
// incident or only that version is unknown, or a 500.
func (s *Server) notFoundVersion(w http.ResponseWriter, r *http.Request, err error, source, id string, n int) {
	if !errors.Is(err, archive.ErrNotFound) {
		s.archiveError(w, r, err, "")
		return
	}
	writeError(w, http.StatusNotFound, s.whichMissing(source, id, n))
}

// whichMissing tells an unknown incident from an unknown version of a known one, for the
// 404 message.
func (s *Server) whichMissing(source, id string, n int) string {
	if _, err := s.store.Version(source, id, 1); err == nil {
		return "incident has no version " + strconv.Itoa(n)
	}
	return "unknown incident"
}
