// The Google Cloud adapter reads Google Cloud Service Health's public JSON history,
// https://status.cloud.google.com/incidents.json, whose schema is published at
// https://status.cloud.google.com/incidents.schema.json; the dashboard and its feeds are
// described at https://docs.cloud.google.com/service-health/docs/service-health-fallback.

package gcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of Google Cloud Service Health.
const Kind = "gcp"

func init() {
	fetch.Register(fetch.Platform{
		Kind:          Kind,
		Poll:          poll,
		Endpoints:     []string{fetch.EndpointIncidents},
		Hosts:         []string{"status.cloud.google.com"},
		EndpointPaths: []string{"/incidents.json"},
		Probes:        []fetch.Probe{{Order: 50, Rel: "incidents.json", Check: checkGCP}},
	})
}

// poll reads incidents.json conditionally; a 304 or byte-identical body is not parsed
// and gives no snapshot. The listing covers the whole history (Since zero).
//
// Google Cloud Service Health has one endpoint, incidents.json (endpoint name
// EndpointIncidents): the whole history in one multi-megabyte document, so a poll reads
// it conditionally and parses it only when its bytes changed; the decoder
// then keeps only the fields we use.
//
// Mapping:
//   - id: the incident's id; title: external_desc; started_at: begin (else created);
//     resolved_at: end; components: the affected products' current names.
//   - impact: severity low/medium/high → minor/major/critical, kept in impact_raw.
//   - status: resolved once end is set or the most recent update says AVAILABLE, else
//     investigating (Google has no identified/monitoring stage); status_raw is the most
//     recent update's status word.
//   - updates: markdown bodies without ids, keyed, as every update without id, by (incident id, the
//     update's "when" — else "created" — as UTC RFC 3339, its ordinal among updates
//     with that time counting from the oldest). The key never depends on the body, so
//     an edited update is an edit, never a removal plus an addition.
//   - postmortem: Google posts its reports as updates whose first line is "Preliminary
//     Incident Report", "Mini Incident Report" or "Incident Report"; the latest one is the
//     postmortem (published_at: when it was posted). Reports are kept out of the update
//     list so the postmortem field is their single place: kept in both, each report
//     would be announced twice (a new update and "postmortem published") and every
//     edit of it diffed twice, and the full report replacing the preliminary one would
//     read as one more update rather than as the postmortem being revised. The
//     preliminary text stays in the archive's earlier versions. Report updates still
//     count for the ordinals of the update keys, so classifying one differently later
//     never renumbers the others.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	base, err := fetch.BaseURL(pl.Req.Source.URL)
	if err != nil {
		return nil, err
	}
	list, parsed, err := fetch.ReadEndpoint(ctx, pl, fetch.EndpointIncidents, "incidents.json", decodeGCP)
	if err != nil || !parsed {
		return nil, err
	}
	snap := pl.Snapshot()
	snap.Listings = []model.Listing{{Kind: model.KindIncident}}
	snap.Incidents = normaliseGCP(list, base)
	return snap, nil
}

// ---- Decoding ----

// The gcp* types hold only the fields we use: the decoder skips the rest of each object
// (most_recent_update repeats the longest update; locations, modified, …) without
// building it. Times stay strings until normalised.

type gcpIncident struct {
	ID               string       `json:"id"`
	Begin            string       `json:"begin"`
	Created          string       `json:"created"`
	End              string       `json:"end"`
	ExternalDesc     string       `json:"external_desc"`
	Severity         string       `json:"severity"`
	Updates          []gcpUpdate  `json:"updates"`
	AffectedProducts []gcpProduct `json:"affected_products"`
}

type gcpUpdate struct {
	Created string `json:"created"`
	When    string `json:"when"`
	Text    string `json:"text"`
	Status  string `json:"status"`
}

type gcpProduct struct {
	Title        string `json:"title"`
	CurrentTitle string `json:"current_title"`
}

// decodeGCP decodes incidents.json: a JSON array of incidents, each with an id. An empty
// array is well-formed (the archive decides whether it is suspicious).
func decodeGCP(contentType string, body []byte) ([]gcpIncident, error) {
	var list []gcpIncident
	if err := payload.DecodeJSONArray(contentType, body, &list); err != nil {
		return nil, err
	}
	return list, payload.Require(list, "incident [%d] has no id", func(in *gcpIncident) bool { return in.ID != "" })
}

// ---- Normalisation ----

// normaliseGCP maps the decoded history to incidents; an id listed twice is taken once,
// first wins.
func normaliseGCP(list []gcpIncident, base *url.URL) []model.Incident {
	out := make([]model.Incident, 0, len(list))
	seen := make(map[string]bool, len(list))
	for i := range list {
		if seen[list[i].ID] {
			continue
		}
		seen[list[i].ID] = true
		out = append(out, list[i].normalise(base))
	}
	return out
}

func (in *gcpIncident) normalise(base *url.URL) model.Incident {
	inc := model.Incident{
		ID:         in.ID,
		Kind:       model.KindIncident,
		Title:      strings.TrimSpace(in.ExternalDesc),
		StartedAt:  payload.ParseTime(in.Begin),
		ResolvedAt: payload.ParseTime(in.End),
		ImpactRaw:  in.Severity,
		Impact:     gcpImpact(in.Severity),
		Components: in.components(),
	}
	if inc.StartedAt.IsZero() {
		inc.StartedAt = payload.ParseTime(in.Created)
	}
	if base != nil {
		inc.URL = base.JoinPath("incidents", in.ID).String()
	}
	var latest string // the most recent update's status word
	inc.Updates, inc.Postmortem, latest = in.timeline()
	inc.StatusRaw = latest
	inc.Status = gcpStatus(latest)
	if !inc.ResolvedAt.IsZero() {
		inc.Status = model.StatusResolved
	}
	return inc
}

// components is the sorted set of the affected products' current names.
func (in *gcpIncident) components() []string {
	names := make([]string, 0, len(in.AffectedProducts))
	for _, p := range in.AffectedProducts {
		n := strings.TrimSpace(p.CurrentTitle)
		if n == "" {
			n = strings.TrimSpace(p.Title)
		}
		if n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// timeline returns the updates oldest first without the reports, the latest report as
// the postmortem, and the most recent update's status word.
func (in *gcpIncident) timeline() ([]model.Update, *model.Postmortem, string) {
	n := len(in.Updates)
	type entry struct {
		u      *gcpUpdate
		posted time.Time
		stamp  string
	}
	// Google lists updates newest first: walk them backwards, so that updates with the
	// same time keep the order "oldest first" that their ordinal counts in.
	all := make([]entry, n)
	for j := range n {
		u := &in.Updates[n-1-j]
		raw := u.When
		if raw == "" {
			raw = u.Created
		}
		posted := payload.ParseTime(raw)
		stamp := raw
		if !posted.IsZero() {
			// The normalised time, so a change of format alone ("+00:00" → "Z") does
			// not re-key every update.
			stamp = posted.Format(time.RFC3339Nano)
		}
		all[j] = entry{u: u, posted: posted, stamp: stamp}
	}
	slices.SortStableFunc(all, func(a, b entry) int { return a.posted.Compare(b.posted) })

	updates := make([]model.Update, 0, n)
	var pm *model.Postmortem
	seen := make(map[string]int, n)
	for _, e := range all {
		id := fetch.UpdateKey(in.ID, e.stamp, seen[e.stamp])
		seen[e.stamp]++
		body := fetch.CleanBody(e.u.Text)
		if gcpIsReport(body) {
			// Sorted oldest first: a later report replaces an earlier one.
			pm = &model.Postmortem{Body: body, Format: model.FormatMarkdown, PublishedAt: e.posted}
			continue
		}
		updates = append(updates, model.Update{
			ID:       id,
			Status:   gcpStatus(e.u.Status),
			Body:     body,
			Format:   model.FormatMarkdown,
			PostedAt: e.posted,
		})
	}
	latest := ""
	if n > 0 {
		latest = strings.TrimSpace(all[n-1].u.Status)
	}
	return updates, pm, latest
}

// gcpIsReport reports whether an update is one of Google's incident reports, mini,
// preliminary or full: its first non-empty line — its heading — read without markdown
// heading marks, emphasis, escapes, a trailing colon and any parenthetical, says
// "Incident Report" after at most a few words of qualifier, and then nothing, or what
// the report is ("while full Incident Report is prepared", "for …", "- …"). The real feed
// writes "# Preliminary Incident Report", "## \# Incident Report", "INCIDENT REPORT
// (Combined …)", "Mini Incident Report (Full Incident Report To Follow)" and "Mini
// Incident Report while full Incident Report is prepared". A sentence that mentions a
// report ("We will publish an Incident Report once…") is no heading.
func gcpIsReport(body string) bool {
	line := body
	for line != "" {
		var rest string
		line, rest, _ = strings.Cut(line, "\n")
		if strings.TrimSpace(line) != "" {
			break
		}
		line = rest
	}
	if len(line) > 200 {
		return false
	}
	line = strings.ToLower(strings.ReplaceAll(line, `\`, ""))
	line = gcpStripParens(line)
	line = strings.Join(strings.Fields(strings.Trim(line, " \t\r#*_:")), " ")
	head, tail, ok := strings.Cut(line, "incident report")
	if !ok || len(line) > 100 {
		return false
	}
	words := strings.Fields(head)
	if len(words) > 4 {
		return false
	}
	for _, w := range words {
		switch w {
		case "a", "an", "the", "our", "we", "will", "of", "this", "see", "in", "is":
			return false // a sentence, not a heading
		}
	}
	tail = strings.Trim(tail, " *_:")
	if tail == "" {
		return true
	}
	for _, p := range []string{"while ", "for ", "- ", "– ", "— ", "to follow"} {
		if strings.HasPrefix(tail, p) {
			return true
		}
	}
	return false
}

// gcpStripParens removes every parenthetical from a heading, an unclosed one to the end.
func gcpStripParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// gcpStatus maps an update's status word: AVAILABLE is resolved, every SERVICE_* word
// (and anything unknown) an incident still being worked on.
func gcpStatus(raw string) model.Status {
	if strings.EqualFold(strings.TrimSpace(raw), "AVAILABLE") {
		return model.StatusResolved
	}
	return model.StatusInvestigating
}

// gcpImpact maps Google's severity (low/medium/high → minor/major/critical).
func gcpImpact(raw string) model.Impact {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "low":
		return model.ImpactMinor
	case "medium":
		return model.ImpactMajor
	case "high":
		return model.ImpactCritical
	}
	return model.ImpactUnknown
}

// checkGCP accepts Google Cloud's /incidents.json: an array of incidents with id, number,
// external_desc, begin, updates[] and the affected product or service. Only the first
// few items are decoded: the document is the whole history, megabytes of it.
func checkGCP(contentType string, body []byte) (string, string, string) {
	b, err := payload.CheckJSONArray(contentType, body)
	if err != nil {
		return "", "", fetch.JSONWhy(err)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b), payload.JSONOptions)
	if _, err := dec.ReadToken(); err != nil {
		return "", "", "invalid JSON"
	}
	n := 0
	for ; n < 5 && dec.PeekKind() != ']'; n++ {
		v, err := dec.ReadValue()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return "", "", "truncated JSON"
			}
			return "", "", "invalid JSON"
		}
		var it map[string]any
		if err := json.Unmarshal(v, &it, payload.JSONOptions); err != nil {
			return "", "", "an array of non-objects"
		}
		id, _ := fetch.StrAt(it, "id")
		_, hasDesc := fetch.StrAt(it, "external_desc")
		_, hasBegin := fetch.StrAt(it, "begin")
		_, hasUpdates := fetch.ArrAt(it, "updates")
		_, hasProducts := fetch.ArrAt(it, "affected_products")
		_, hasService := fetch.StrAt(it, "service_name")
		if id == "" || !hasDesc || !hasBegin || !hasUpdates || !(hasProducts || hasService) || !fetch.HasAny(it, "number") {
			return "", "", "an array whose items lack Google Cloud's id, number, external_desc, begin and updates"
		}
	}
	if n == 0 {
		return "", "", "an empty array (nothing to tell its platform by)"
	}
	return Kind, "is an array of incidents with number, external_desc, begin and updates[] (Google Cloud shape)", ""
}
