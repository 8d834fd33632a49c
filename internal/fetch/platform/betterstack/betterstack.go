// The Better Stack adapter reads a Better Stack (formerly Better Uptime) status page's public
// JSON, /index.json, documented at
// https://betterstack.com/docs/uptime/status-pages/subscribing-to-status-updates/subscribing-to-api/
// with the report fields of https://betterstack.com/docs/uptime/api/status-page-reports-api-response-params/.
// It is JSON:API: data is the status page, and included holds its sections, resources
// (components), status reports (incidents and maintenance) and their status updates.

package betterstack

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of Better Stack status pages.
const Kind = "betterstack"

// EndpointIndex is the endpoint name of /index.json.
const EndpointIndex = "index"

func init() {
	fetch.Register(fetch.Platform{
		Kind:         Kind,
		Poll:         poll,
		Endpoints:    []string{EndpointIndex},
		Components:   EndpointIndex,
		HostSuffixes: []string{".betteruptime.com", ".betterstack.com"},
		NotPages: []string{"www.betteruptime.com", "api.betteruptime.com",
			"www.betterstack.com", "api.betterstack.com", "uptime.betterstack.com",
			"docs.betterstack.com", "logs.betterstack.com", "telemetry.betterstack.com"},
		EndpointPaths: []string{"/index.json"},
		Probes:        []fetch.Probe{{Order: 30, Rel: "index.json", Check: checkBetterStack}},
	})
}

// poll reads /index.json conditionally, and nothing else.
//
// Better Stack is a history provider: index.json lists the page's recent reports, open or
// not.
//
// Mapping:
//   - a status report is an incident; report_type "maintenance" makes it a maintenance
//     ("manual" and "automatic" are incidents).
//   - impact: the worst resource status the report ever gave, over the report and every
//     update: "degraded" → minor, "downtime" → major. A resolved report's own statuses
//     all read "resolved", so reading only those would downgrade every incident to
//     nothing at its end. ImpactRaw keeps that worst word. Maintenance is "maintenance".
//   - status: aggregate_state "resolved"/"operational" → resolved (maintenance: completed);
//     otherwise an incident is investigating (Better Stack has no finer stages) and a
//     maintenance scheduled before starts_at, in_progress after. StatusRaw keeps
//     aggregate_state.
//   - components: the public names of the resources named by the report and its updates.
//   - component states: every resource, its status by bsComponentWords, under its
//     section's name; the page status is the page's aggregate_state.
//   - updates: the status updates, with their ids, oldest first; an update whose resources
//     all read "resolved" has status resolved (completed), one naming degraded or downtime
//     investigating, one naming maintenance in_progress, else none.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	base, err := fetch.BaseURL(pl.Req.Source.URL)
	if err != nil {
		return nil, err
	}
	doc, parsed, err := fetch.ReadEndpoint(ctx, pl, EndpointIndex, "index.json", decodeBetterStack)
	if err != nil || !parsed {
		return nil, err
	}
	snap := pl.Snapshot()
	snap.PageTitle = doc.title
	snap.Incidents, snap.Listings = doc.normalise(base, pl.Req.Now)
	snap.Components = doc.components
	return snap, nil
}

// ---- Decoding ----

type bsDoc struct {
	Data     *bsResource   `json:"data"`
	Included *[]bsResource `json:"included"`
}

// bsResource is one JSON:API resource object. Its attributes are the union of the fields
// used from the status page, its resources, reports and updates: one pass of the decoder
// reads them all and skips the rest (the resources' 90-day status history included).
type bsResource struct {
	ID            payload.FlexID  `json:"id"`
	Type          string          `json:"type"`
	Attributes    bsAttributes    `json:"attributes"`
	Relationships bsRelationships `json:"relationships"`
}

type bsAttributes struct {
	CompanyName string `json:"company_name"` // status_page
	PublicName  string `json:"public_name"`  // status_page_resource
	// A resource's status and section, and a section's name, are read for the component
	// states only: whatever they hold, they never fail the reports read beside them.
	Status    payload.LooseText `json:"status"`                 // status_page_resource
	SectionID payload.LooseText `json:"status_page_section_id"` // status_page_resource
	Name      payload.LooseText `json:"name"`                   // status_page_section

	Title             string       `json:"title"`           // status_report
	ReportType        string       `json:"report_type"`     // status_report
	StartsAt          string       `json:"starts_at"`       // status_report
	EndsAt            string       `json:"ends_at"`         // status_report
	AggregateState    string       `json:"aggregate_state"` // status_page, status_report
	AffectedResources []bsAffected `json:"affected_resources"`

	Message     string `json:"message"`      // status_update
	PublishedAt string `json:"published_at"` // status_update
}

type bsAffected struct {
	ResourceID payload.FlexID `json:"status_page_resource_id"`
	Status     string         `json:"status"`
}

type bsRelationships struct {
	StatusReports bsRefs `json:"status_reports"` // status_page
	StatusUpdates bsRefs `json:"status_updates"` // status_report
}

type bsRefs struct {
	Data []bsRef `json:"data"`
}

type bsRef struct {
	ID   payload.FlexID `json:"id"`
	Type string         `json:"type"`
}

// bsPage is a decoded index.json, its included resources indexed.
type bsPage struct {
	title     string
	reports   []*bsResource // in the page's order
	updates   map[payload.FlexID]*bsResource
	resources map[payload.FlexID]string // status_page_resource id → public name
	// components are the resources' states, under their sections' names.
	components *model.Components
}

// decodeBetterStack decodes index.json. A document without a status page in "data" is
// not the answer of that endpoint; a report without id is malformed.
func decodeBetterStack(contentType string, body []byte) (*bsPage, error) {
	doc, err := payload.Object(contentType, body, `status_page in "data"`, func(d *bsDoc) bool {
		return d.Data != nil && (d.Data.Type == "" || d.Data.Type == "status_page")
	})
	if err != nil {
		return nil, err
	}
	page := &bsPage{
		title:     strings.TrimSpace(doc.Data.Attributes.CompanyName),
		updates:   map[payload.FlexID]*bsResource{},
		resources: map[payload.FlexID]string{},
	}
	var included []bsResource
	if doc.Included != nil {
		included = *doc.Included
	}
	reports := map[payload.FlexID]*bsResource{}
	var inOrder []*bsResource
	for i := range included {
		r := &included[i]
		switch r.Type {
		case "status_report":
			if r.ID == "" {
				return nil, fmt.Errorf("%w: included[%d] is a status_report without id", payload.ErrMalformed, i)
			}
			if reports[r.ID] == nil {
				reports[r.ID] = r
				inOrder = append(inOrder, r)
			}
		case "status_update":
			page.updates[r.ID] = r
		case "status_page_resource":
			page.resources[r.ID] = strings.TrimSpace(r.Attributes.PublicName)
		}
	}
	page.components = bsComponents(doc.Data.Attributes.AggregateState, included)
	// The page's own list gives the order; a report it does not name is still a report
	// the page published (included holds nothing else), so it is kept, after the others.
	taken := map[payload.FlexID]bool{}
	for _, ref := range doc.Data.Relationships.StatusReports.Data {
		if r := reports[ref.ID]; r != nil && !taken[ref.ID] {
			taken[ref.ID] = true
			page.reports = append(page.reports, r)
		}
	}
	for _, r := range inOrder {
		if !taken[r.ID] {
			page.reports = append(page.reports, r)
		}
	}
	return page, nil
}

// ---- Normalisation ----

// normalise maps every report and describes the listing. index.json lists the page's
// recent reports; Better Stack documents neither a count nor an age for it. Whatever caps
// it, what dropped out started before the oldest report still listed, so the listing covers
// what started since then, which is never wrong. (The real page of testdata lists 5 reports
// over 6 weeks: the cap, if any, is not reached, and the claim costs nothing.) An empty list
// claims the whole history: a page that suddenly lists nothing is for the archive to doubt.
func (pg *bsPage) normalise(base *url.URL, now time.Time) ([]model.Incident, []model.Listing) {
	out := make([]model.Incident, 0, len(pg.reports))
	var oldest time.Time
	for _, r := range pg.reports {
		inc := pg.report(r, base, now)
		if !inc.StartedAt.IsZero() && (oldest.IsZero() || inc.StartedAt.Before(oldest)) {
			oldest = inc.StartedAt
		}
		out = append(out, inc)
	}
	return out, []model.Listing{
		{Kind: model.KindIncident, Since: oldest},
		{Kind: model.KindMaintenance, Since: oldest},
	}
}

// report maps one status report (see poll for the mapping).
func (pg *bsPage) report(r *bsResource, base *url.URL, now time.Time) model.Incident {
	a := &r.Attributes
	kind := model.KindIncident
	if strings.EqualFold(strings.TrimSpace(a.ReportType), "maintenance") {
		kind = model.KindMaintenance
	}
	starts, ends := payload.ParseTime(a.StartsAt), payload.ParseTime(a.EndsAt)
	state := strings.ToLower(strings.TrimSpace(a.AggregateState))
	closed := state == "resolved" || state == "operational"
	inc := model.Incident{
		ID:        string(r.ID),
		Kind:      kind,
		StatusRaw: a.AggregateState,
		Title:     strings.TrimSpace(a.Title),
		StartedAt: starts,
		URL:       base.JoinPath("incident", string(r.ID)).String(),
	}

	// Updates, oldest first, and everything the report and they name.
	var names []string
	worst, worstRaw := model.ImpactUnknown, ""
	see := func(aff []bsAffected) {
		for _, x := range aff {
			if n := pg.resources[x.ResourceID]; n != "" {
				names = append(names, n)
			}
			if i := bsImpact(x.Status); i.Worse(worst) {
				worst, worstRaw = i, x.Status
			}
		}
	}
	see(a.AffectedResources)
	for _, ref := range r.Relationships.StatusUpdates.Data {
		su := pg.updates[ref.ID]
		if su == nil || su.ID == "" {
			continue
		}
		see(su.Attributes.AffectedResources)
		body, format, html := fetch.VendorBody(su.Attributes.Message, model.FormatText)
		inc.Updates = append(inc.Updates, model.Update{
			ID:       string(su.ID),
			Status:   bsUpdateStatus(su.Attributes.AffectedResources, kind),
			Body:     body,
			Format:   format,
			HTML:     html,
			PostedAt: payload.ParseTime(su.Attributes.PublishedAt),
		})
	}
	// Better Stack lists a report's updates in no useful order (the real page has the
	// last one first); ids break ties so the order is the same on every poll.
	slices.SortStableFunc(inc.Updates, func(x, y model.Update) int {
		if c := x.PostedAt.Compare(y.PostedAt); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	inc.Updates = slices.CompactFunc(inc.Updates, func(x, y model.Update) bool { return x.ID == y.ID })
	if inc.Updates == nil {
		inc.Updates = []model.Update{}
	}
	inc.Components = fetch.SortedNames(names)

	if kind == model.KindMaintenance {
		inc.Impact, inc.ImpactRaw = model.ImpactMaintenance, ""
		inc.ScheduledFor, inc.ScheduledUntil = starts, ends
		switch {
		case closed:
			inc.Status = model.StatusCompleted
		case !starts.IsZero() && now.Before(starts):
			inc.Status = model.StatusScheduled
		default:
			inc.Status = model.StatusInProgress
		}
	} else {
		inc.Impact, inc.ImpactRaw = worst, worstRaw
		if worst == model.ImpactUnknown {
			// The report never named a degraded or down resource: its state is all
			// there is to go by.
			if i := bsImpact(a.AggregateState); i != model.ImpactUnknown {
				inc.Impact, inc.ImpactRaw = i, a.AggregateState
			}
		}
		inc.Status = model.StatusInvestigating
		if closed {
			inc.Status = model.StatusResolved
		}
	}
	if closed {
		// ends_at when the vendor set it, else the last update: Better Stack leaves
		// ends_at empty on incidents it resolves (all of the real page's are).
		inc.ResolvedAt = ends
		if inc.ResolvedAt.IsZero() && len(inc.Updates) > 0 {
			inc.ResolvedAt = inc.Updates[len(inc.Updates)-1].PostedAt
		}
	}
	return inc
}

// bsComponentWords maps a Better Stack resource status. "not_monitored" (a paused
// monitor, shown grey) claims no trouble and is operational, its word kept.
var bsComponentWords = fetch.ComponentWords{
	"operational":   model.ComponentOperational,
	"not_monitored": model.ComponentOperational,
	"maintenance":   model.ComponentMaintenance,
	"degraded":      model.ComponentDegraded,
	"downtime":      model.ComponentMajorOutage,
}

// bsComponents reads every resource of the page as a component, under the name of its
// section (the page's heading over it). A resource group ("ResourceGroup") is one row of
// the page, whose status Better Stack rolls up: it is listed as one component.
func bsComponents(pageState string, included []bsResource) *model.Components {
	sections := map[string]string{}
	for _, r := range included {
		if r.Type == "status_page_section" {
			sections[string(r.ID)] = string(r.Attributes.Name)
		}
	}
	var list []model.Component
	for _, r := range included {
		if r.Type != "status_page_resource" {
			continue
		}
		a := r.Attributes
		list = append(list, bsComponentWords.Component(string(r.ID), a.PublicName, sections[string(a.SectionID)], string(a.Status)))
	}
	return fetch.NewComponents(pageState, "", list)
}

// bsImpact maps a Better Stack resource status to an impact (degraded → minor,
// downtime → major); other words (operational, resolved, maintenance) carry none.
func bsImpact(status string) model.Impact {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "degraded":
		return model.ImpactMinor
	case "downtime":
		return model.ImpactMajor
	}
	return model.ImpactUnknown
}

// bsUpdateStatus reads an update's status from the resource statuses it set.
func bsUpdateStatus(aff []bsAffected, kind model.Kind) model.Status {
	if len(aff) == 0 {
		return ""
	}
	resolved, down, maint := 0, false, false
	for _, x := range aff {
		switch strings.ToLower(strings.TrimSpace(x.Status)) {
		case "resolved", "operational":
			resolved++
		case "degraded", "downtime":
			down = true
		case "maintenance":
			maint = true
		}
	}
	switch {
	case resolved == len(aff) && kind == model.KindMaintenance:
		return model.StatusCompleted
	case resolved == len(aff):
		return model.StatusResolved
	case maint && kind == model.KindMaintenance:
		return model.StatusInProgress
	case down:
		return model.StatusInvestigating
	}
	return ""
}

// checkBetterStack accepts Better Stack's /index.json: JSON:API whose data is the
// status_page resource, with its aggregate_state.
func checkBetterStack(contentType string, body []byte) (string, string, string) {
	m, data, why := fetch.DecodeObjectAt(contentType, body, `a JSON:API "data" object`, "data")
	if m == nil {
		return "", "", why
	}
	if t, _ := fetch.StrAt(data, "type"); t != "status_page" {
		return "", "", fmt.Sprintf("JSON:API data.type is %s, not \"status_page\"", fetch.QuoteShort(t))
	}
	attrs := fetch.ObjAt(data, "attributes")
	if id, _ := fetch.StrAt(data, "id"); (id == "" && !fetch.IsNumber(data["id"])) || attrs == nil {
		return "", "", "data.type \"status_page\" without an id and attributes"
	}
	if _, ok := fetch.StrAt(attrs, "aggregate_state"); !ok {
		return "", "", "data.type \"status_page\" without attributes.aggregate_state"
	}
	if inc, present := m["included"]; present && inc != nil {
		if _, ok := inc.([]any); !ok {
			return "", "", `"included" is no list`
		}
	}
	if _, err := decodeBetterStack(contentType, body); err != nil {
		return "", "", "Better Stack-like, but " + fetch.JSONWhy(err)
	}
	return Kind, `is JSON:API with data.type "status_page" and aggregate_state (Better Stack shape)`, ""
}
