package web

import (
	"net/http"
	"strconv"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/web/param"
)

// versionsCursor tags the cursors of version lists; they carry the number of the last
// version of a page.
const versionsCursor = "versions"

// listVersions answers GET /api/v1/incidents/{source}/{id}/versions?limit=&before=: the
// versions of an incident, newest first, each with the one-line summary of the change
// that made it; 404 for an unknown incident.
func (s *Server) listVersions(w http.ResponseWriter, r *http.Request, source, id string) {
	p, err := param.ParsePage(r, versionsCursor, 1)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	before := -1 // no cursor: from the latest
	if p.Before != nil {
		if before, err = strconv.Atoi(p.Before[0]); err != nil || before < 1 {
			badRequest(w, "%v", param.ErrBadCursor)
			return
		}
	}
	// The list is read from the versions' headers: no incident is decoded, however large
	// its bodies or long its history.
	vs, err := s.store.VersionInfos(source, id)
	if err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	out := []api.Version{}
	for i := len(vs) - 1; i >= 0; i-- { // the archive gives them oldest first
		v := &vs[i]
		if before > 0 && v.N >= before {
			continue
		}
		if len(out) == p.Limit {
			param.SetNext(w, r, param.Cursor(versionsCursor, strconv.Itoa(out[len(out)-1].Version)))
			break
		}
		out = append(out, api.Version{Version: v.N, ObservedAt: api.Time(v.ObservedAt), Summary: v.Summary})
	}
	writeJSON(w, http.StatusOK, out)
}
