package web

import (
	"net/http"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// diff answers GET /api/v1/incidents/{source}/{id}/diff?from=N&to=M: the change set from
// version N to version M, computed now by diff.Changes. to defaults to the latest
// version, from to to-1; from=0 is "not present", so 0→M lists every field of M. Any two
// versions may be compared, in either order. 400 for a parameter that is not a version
// number, 404 for an unknown incident or version.
func (s *Server) diff(w http.ResponseWriter, r *http.Request, source, id string) {
	from, to, err := param.Versions(r.URL.Query())
	if err != nil {
		badRequest(w, "%v", err)
		return
	}

	var after *model.Version
	if to == 0 {
		after, err = query.Latest(s.store, source, id)
		if err != nil {
			s.archiveError(w, r, err, "unknown incident")
			return
		}
	} else if after, err = s.store.Version(source, id, to); err != nil {
		s.notFoundVersion(w, r, err, source, id, to)
		return
	}
	if from < 0 {
		from = after.N - 1
	}
	var before *model.Incident
	if from > 0 {
		v, err := s.store.Version(source, id, from)
		if err != nil {
			s.notFoundVersion(w, r, err, source, id, from)
			return
		}
		before = &v.Incident
	}

	changes := diff.Changes(before, &after.Incident)
	out := api.Diff{From: from, To: after.N, Summary: diff.Summary(changes), Changes: make([]api.Change, len(changes))}
	for i, c := range changes {
		out.Changes[i] = api.Change{Field: c.Field, Before: c.Before, After: c.After, Ops: c.Ops}
		if out.Changes[i].Ops == nil {
			out.Changes[i].Ops = []model.Op{}
		}
	}
	writeJSON(w, http.StatusOK, out)
}
