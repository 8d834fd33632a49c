package web

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// incident answers GET /api/v1/incidents/{source}/{id}: the latest version of the
// incident, with its description; 404 for an unknown incident.
func (s *Server) incident(w http.ResponseWriter, r *http.Request, source, id string) {
	v, err := query.Latest(s.store, source, id)
	if err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	writeJSON(w, http.StatusOK, s.incidentJSON(source, id, v, v.N))
}

// incidentJSON builds the answer for version v of source/id, of versions in all.
func (s *Server) incidentJSON(source, id string, v *model.Version, versions int) api.Incident {
	inc := &v.Incident
	out := api.Incident{
		Source:           source,
		ID:               model.URLID(id),
		ProviderID:       inc.ID,
		Version:          v.N,
		ObservedAt:       api.Time(v.ObservedAt),
		Versions:         versions,
		Kind:             inc.Kind,
		Title:            inc.Title,
		Status:           inc.Status,
		StatusRaw:        inc.StatusRaw,
		Impact:           inc.Impact,
		ImpactRaw:        inc.ImpactRaw,
		StartedAt:        api.Time(inc.StartedAt),
		ResolvedAt:       api.Time(inc.ResolvedAt),
		ResolvedInferred: inc.ResolvedInferred,
		ScheduledFor:     api.Time(inc.ScheduledFor),
		ScheduledUntil:   api.Time(inc.ScheduledUntil),
		Components:       inc.Components,
		Updates:          make([]api.Update, len(inc.Updates)),
		URL:              inc.URL,
		UIURL:            s.uiURL(source, id),
		Description:      diff.Description(s.title(source), inc, s.now()),
	}
	if out.Components == nil {
		out.Components = []string{}
	}
	for i, u := range inc.Updates {
		out.Updates[i] = api.Update{ID: u.ID, Status: u.Status, Body: u.Body, Format: u.Format, PostedAt: api.Time(u.PostedAt)}
	}
	if pm := inc.Postmortem; pm != nil {
		out.Postmortem = &api.Postmortem{Body: pm.Body, Format: pm.Format, PublishedAt: api.Time(pm.PublishedAt)}
	}
	return out
}

// uiURL is the UI page of an incident: BaseURL + /incidents/{source}/{id}.
func (s *Server) uiURL(source, id string) string {
	return s.baseURL + "/incidents/" + url.PathEscape(source) + "/" + url.PathEscape(model.URLID(id))
}

// title is a source's display name.
func (s *Server) title(source string) string {
	if s.titleOf != nil {
		if t := s.titleOf(source); t != "" {
			return t
		}
	}
	return source
}

// configured reports whether the config names source.
func (s *Server) configured(source string) bool {
	return slices.ContainsFunc(s.daemon.Sources(), func(st SourceStatus) bool { return st.Name == source })
}
