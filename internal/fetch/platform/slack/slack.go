// The Slack adapter reads Slack's own status API, documented at
// https://docs.slack.dev/reference/slack-status-api (v2.0.0): /api/v2.0.0/history, the recent
// incidents whatever their state, and /api/v2.0.0/current, the open ones.

package slack

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of Slack's status page (slack-status.com).
const Kind = "slack"

// Endpoint names of the Slack adapter (keys of Source.Endpoints and model.FetchState).
const (
	EndpointHistory = "history" // /api/v2.0.0/history
	EndpointCurrent = "current" // /api/v2.0.0/current
)

func init() {
	fetch.Register(fetch.Platform{
		Kind:          Kind,
		Poll:          poll,
		Endpoints:     []string{EndpointHistory, EndpointCurrent},
		Hosts:         []string{"slack-status.com", "www.slack-status.com", "status.slack.com"},
		EndpointPaths: []string{"/api/v2.0.0/current", "/api/v2.0.0/history"},
		Probes:        []fetch.Probe{{Order: 60, Rel: "api/v2.0.0/current", Check: checkSlackCurrent}},
	})
}

// poll reads history and current, each conditionally, and nothing more. An endpoint that
// answered 304 or a byte-identical body is not parsed. The history, when parsed, is the
// listing; the current answer only adds (or refreshes) the open incidents and claims no
// listing of its own, so that an incident missing from it is never taken as gone.
//
// Slack's status page is a history provider: the history
// endpoint lists recent incidents whatever their state.
//
// Mapping, the provider's words kept in StatusRaw and ImpactRaw:
//   - type: "maintenance" is a maintenance; "outage" (Slack is down for many) is a major
//     incident, "incident" (a feature is degraded for some) a minor one, "notice" (an
//     advisory) an incident of impact none; another word is an incident of unknown impact.
//   - status: incidents "active" → investigating (Slack publishes no finer stage),
//     "resolved"/"completed" → resolved; maintenance "scheduled" → scheduled, "active" →
//     in_progress, "completed"/"resolved" → completed.
//   - notes are the updates. They have neither id nor status: each is keyed by the
//     stable key (incident id, its date_created, its ordinal among notes with that time)
//     and carries no status of its own.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	history, hParsed, err := fetch.ReadEndpoint(ctx, pl, EndpointHistory, "api/v2.0.0/history", decodeSlackHistory)
	if err != nil {
		return nil, err
	}
	current, cParsed, err := fetch.ReadEndpoint(ctx, pl, EndpointCurrent, "api/v2.0.0/current", decodeSlackCurrent)
	if err != nil {
		return nil, err
	}
	if !hParsed && !cParsed {
		return nil, nil
	}
	snap := pl.Snapshot()
	snap.PageTitle = "Slack"
	var list []model.Incident
	if hParsed {
		var since time.Time
		list, since = normaliseSlackList(history)
		snap.Listings = []model.Listing{
			{Kind: model.KindIncident, Since: since},
			{Kind: model.KindMaintenance, Since: since},
		}
	}
	if cParsed {
		open, _ := normaliseSlackList(current)
		list = mergeSlackCurrent(list, open, history, current)
	}
	snap.Incidents = list
	return snap, nil
}

// ---- Decoding ----

type slIncident struct {
	ID          payload.FlexID `json:"id"`
	Title       string         `json:"title"`
	Type        string         `json:"type"`
	Status      string         `json:"status"`
	URL         string         `json:"url"`
	DateCreated string         `json:"date_created"`
	DateUpdated string         `json:"date_updated"`
	Notes       []slNote       `json:"notes"`
	Services    []string       `json:"services"`
}

type slNote struct {
	Body        string `json:"body"`
	DateCreated string `json:"date_created"`
}

type slCurrent struct {
	Status          *string      `json:"status"`
	ActiveIncidents []slIncident `json:"active_incidents"`
}

// decodeSlackHistory decodes /history: a JSON array of incidents. An empty array is
// well-formed (the archive decides whether it is suspicious); anything else that is not an
// array is malformed.
func decodeSlackHistory(contentType string, body []byte) ([]slIncident, error) {
	var list []slIncident
	if err := payload.DecodeJSONArray(contentType, body, &list); err != nil {
		return nil, err
	}
	return list, checkSlackIDs(list)
}

// decodeSlackCurrent decodes /current: {"status": "ok"|"active"|…, "active_incidents": […]}.
// Without "status" it is not the answer of that endpoint.
func decodeSlackCurrent(contentType string, body []byte) ([]slIncident, error) {
	cur, err := payload.Object(contentType, body, `"status"`, func(c *slCurrent) bool { return c.Status != nil })
	if err != nil {
		return nil, err
	}
	return cur.ActiveIncidents, checkSlackIDs(cur.ActiveIncidents)
}

func checkSlackIDs(list []slIncident) error {
	return payload.Require(list, "incident %d has no id", func(in *slIncident) bool { return in.ID != "" })
}

// ---- Normalisation ----

// normaliseSlackList maps a decoded list, an id listed twice taken once (first wins), and
// returns the start of its window: the oldest incident listed. Slack documents no size for
// the history; whatever caps it (a count or an age), what dropped out started before the
// oldest item still listed, so taking that as the window is never wrong. Zero when empty.
func normaliseSlackList(list []slIncident) ([]model.Incident, time.Time) {
	out := make([]model.Incident, 0, len(list))
	seen := make(map[payload.FlexID]bool, len(list))
	var oldest time.Time
	for i := range list {
		if seen[list[i].ID] {
			continue
		}
		seen[list[i].ID] = true
		inc := list[i].normalise()
		if !inc.StartedAt.IsZero() && (oldest.IsZero() || inc.StartedAt.Before(oldest)) {
			oldest = inc.StartedAt
		}
		out = append(out, inc)
	}
	return out, oldest
}

// mergeSlackCurrent adds the open incidents of /current to the history's. An incident in
// both is taken from the answer updated last (date_updated), the history on a tie: both
// are the same page, and whichever moved last is the fresher.
func mergeSlackCurrent(list, open []model.Incident, history, current []slIncident) []model.Incident {
	updated := func(src []slIncident, id string) time.Time {
		for i := range src {
			if string(src[i].ID) == id {
				return payload.ParseTime(src[i].DateUpdated)
			}
		}
		return time.Time{}
	}
	at := make(map[string]int, len(list))
	for i, inc := range list {
		at[inc.ID] = i
	}
	for _, inc := range open {
		i, ok := at[inc.ID]
		if !ok {
			at[inc.ID] = len(list)
			list = append(list, inc)
			continue
		}
		if updated(current, inc.ID).After(updated(history, inc.ID)) {
			list[i] = inc
		}
	}
	return list
}

// normalise maps one Slack incident to the model.
func (in *slIncident) normalise() model.Incident {
	id := string(in.ID)
	typ := strings.ToLower(strings.TrimSpace(in.Type))
	kind, impact := model.KindIncident, model.ImpactUnknown
	switch typ {
	case "maintenance":
		kind, impact = model.KindMaintenance, model.ImpactMaintenance
	case "outage":
		impact = model.ImpactMajor
	case "incident":
		impact = model.ImpactMinor
	case "notice":
		impact = model.ImpactNone
	}
	inc := model.Incident{
		ID:         id,
		Kind:       kind,
		Status:     slackStatus(in.Status, kind),
		StatusRaw:  in.Status,
		Impact:     impact,
		ImpactRaw:  in.Type,
		Title:      strings.TrimSpace(in.Title),
		StartedAt:  payload.ParseTime(in.DateCreated),
		Components: fetch.SortedNames(in.Services),
		URL:        in.URL,
	}
	inc.Updates = slackNotes(id, in.Notes)
	if !inc.Status.Open() {
		// The last note is the one that closed it; date_updated moves on every edit, so it
		// is only the fallback for an incident closed without a note.
		if n := len(inc.Updates); n > 0 {
			inc.ResolvedAt = inc.Updates[n-1].PostedAt
		} else {
			inc.ResolvedAt = payload.ParseTime(in.DateUpdated)
		}
	}
	return inc
}

// slackStatus maps Slack's status words (see poll).
func slackStatus(raw string, kind model.Kind) model.Status {
	w := strings.ToLower(strings.TrimSpace(raw))
	if kind == model.KindMaintenance {
		switch w {
		case "active", "in_progress", "in progress":
			return model.StatusInProgress
		case "completed", "resolved", "ok":
			return model.StatusCompleted
		}
		return model.StatusScheduled
	}
	switch w {
	case "resolved", "completed", "ok":
		return model.StatusResolved
	}
	if s, ok := fetch.KnownStatus(w); ok && s != model.StatusScheduled && s != model.StatusInProgress {
		return s
	}
	return model.StatusInvestigating
}

// slackNotes returns the notes oldest first (by time, then as listed), keyed as updates without id are.
// The key's timestamp is the note's time in UTC RFC 3339, so a change of the offset Slack
// writes its times in (-07:00 in summer, -08:00 in winter) keeps every key.
func slackNotes(incidentID string, notes []slNote) []model.Update {
	out := make([]model.Update, len(notes))
	stamps := make([]string, len(notes))
	for i, n := range notes {
		body, format, html := fetch.VendorBody(n.Body, model.FormatText)
		out[i] = model.Update{Body: body, Format: format, HTML: html, PostedAt: payload.ParseTime(n.DateCreated)}
		stamps[i] = fetch.StableStamp(n.DateCreated)
	}
	return fetch.KeyUpdates(incidentID, out, stamps)
}

// checkSlackCurrent accepts Slack's /api/v2.0.0/current: status, active_incidents[] and
// its dates; listed incidents have Slack's type, status and notes.
func checkSlackCurrent(contentType string, body []byte) (string, string, string) {
	m, why := fetch.DecodeObject(contentType, body)
	if m == nil {
		return "", "", why
	}
	st, ok := fetch.StrAt(m, "status")
	list, hasList := fetch.ArrAt(m, "active_incidents")
	if !ok || !hasList {
		return "", "", "JSON without status and active_incidents[]"
	}
	if _, ok := fetch.StrAt(m, "date_updated"); !ok {
		if _, ok := fetch.StrAt(m, "date_created"); !ok {
			return "", "", "status and active_incidents[] without date_created/date_updated"
		}
	}
	items, ok := fetch.Objects(list)
	if !ok {
		return "", "", "active_incidents[] holds a non-object"
	}
	for _, it := range items {
		_, hasTitle := fetch.StrAt(it, "title")
		_, hasType := fetch.StrAt(it, "type")
		if !fetch.IsNumber(it["id"]) || !hasTitle || !hasType || !fetch.HasAny(it, "notes", "services") {
			return "", "", "active_incidents[] unlike Slack's (id, title, type, notes)"
		}
	}
	if _, err := decodeSlackCurrent(contentType, body); err != nil {
		return "", "", "Slack-like, but " + fetch.JSONWhy(err)
	}
	return Kind, fmt.Sprintf("has status %s and active_incidents[] (Slack shape)", fetch.QuoteShort(st)), ""
}
