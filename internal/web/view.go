package web

import (
	"net/url"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// incidentJSON is one version of an incident as the API shows it: the answer of
// /incidents/{source}/{id}, /versions/{n} and /at. version and observed_at say which
// version it is; versions counts them all.
type incidentJSON struct {
	Source           string          `json:"source"`
	ID               string          `json:"id"`          // URL id
	ProviderID       string          `json:"provider_id"` // the vendor's own id
	Version          int             `json:"version"`
	ObservedAt       jsonTime        `json:"observed_at"`
	Versions         int             `json:"versions"`
	Kind             model.Kind      `json:"kind"`
	Title            string          `json:"title"`
	Status           model.Status    `json:"status"`
	StatusRaw        string          `json:"status_raw,omitempty"`
	Impact           model.Impact    `json:"impact"`
	ImpactRaw        string          `json:"impact_raw,omitempty"`
	StartedAt        jsonTime        `json:"started_at"`
	ResolvedAt       jsonTime        `json:"resolved_at"`
	ResolvedInferred bool            `json:"resolved_inferred,omitempty"`
	ScheduledFor     jsonTime        `json:"scheduled_for"`
	ScheduledUntil   jsonTime        `json:"scheduled_until"`
	Components       []string        `json:"components"`
	Updates          []updateJSON    `json:"updates"`
	Postmortem       *postmortemJSON `json:"postmortem"`
	URL              string          `json:"url"` // the vendor's page for it
	UIURL            string          `json:"ui_url"`
	Description      string          `json:"description"`
}

type updateJSON struct {
	ID       string       `json:"id"`
	Status   model.Status `json:"status"`
	Body     string       `json:"body"`
	Format   model.Format `json:"format"`
	PostedAt jsonTime     `json:"posted_at"`
}

type postmortemJSON struct {
	Body        string       `json:"body"`
	Format      model.Format `json:"format"`
	PublishedAt jsonTime     `json:"published_at"`
}

// incidentView builds the answer for version v of source/id, of versions in all.
func (s *Server) incidentView(source, id string, v *model.Version, versions int) incidentJSON {
	inc := &v.Incident
	out := incidentJSON{
		Source:           source,
		ID:               model.URLID(id),
		ProviderID:       inc.ID,
		Version:          v.N,
		ObservedAt:       jsonTime(v.ObservedAt),
		Versions:         versions,
		Kind:             inc.Kind,
		Title:            inc.Title,
		Status:           inc.Status,
		StatusRaw:        inc.StatusRaw,
		Impact:           inc.Impact,
		ImpactRaw:        inc.ImpactRaw,
		StartedAt:        jsonTime(inc.StartedAt),
		ResolvedAt:       jsonTime(inc.ResolvedAt),
		ResolvedInferred: inc.ResolvedInferred,
		ScheduledFor:     jsonTime(inc.ScheduledFor),
		ScheduledUntil:   jsonTime(inc.ScheduledUntil),
		Components:       inc.Components,
		Updates:          make([]updateJSON, len(inc.Updates)),
		URL:              inc.URL,
		UIURL:            s.uiURL(source, id),
		Description:      diff.Description(s.title(source), inc, s.now()),
	}
	if out.Components == nil {
		out.Components = []string{}
	}
	for i, u := range inc.Updates {
		out.Updates[i] = updateJSON{ID: u.ID, Status: u.Status, Body: u.Body, Format: u.Format, PostedAt: jsonTime(u.PostedAt)}
	}
	if pm := inc.Postmortem; pm != nil {
		out.Postmortem = &postmortemJSON{Body: pm.Body, Format: pm.Format, PublishedAt: jsonTime(pm.PublishedAt)}
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
