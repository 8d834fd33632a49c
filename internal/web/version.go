package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// version answers GET /api/v1/incidents/{source}/{id}/versions/{n}: version n, in the
// same shape as the latest; 400 for an n that is not a version number, 404 for an
// unknown incident or version.
func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	source, id := r.PathValue("source"), r.PathValue("id")
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
