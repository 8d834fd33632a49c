// Package statuspagev2 reads the Statuspage public page API v2
// (https://doers.statuspage.io/api/v2/): its documents decoded and normalised (the
// incident lists, the per-incident document, the summary's page name and component
// states), and the shape of its summary.json judged. Atlassian's own pages serve it (platform/statuspage),
// and incident.io serves a compatible copy (platform/incidentio); both platforms read it
// with this code, each under its Options, as the feed-based platforms share historyfeed.
package statuspagev2

import (
	"bytes"
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

// EndpointMaintenances names /api/v2/scheduled-maintenances.json, on both platforms
// (their incident list and summary are fetch.EndpointIncidents and fetch.EndpointSummary).
const EndpointMaintenances = "scheduled-maintenances"

// Options hold what differs between the platforms that serve the Statuspage v2 JSON, so
// they share its decoder and normaliser: Atlassian's own pages and incident.io's
// compatible API.
type Options struct {
	// ListSize is how many items a list holds at most; a full list covers only what
	// started since its oldest item.
	ListSize int
	// LenientLists: a document with a page object but without the list is an empty list
	// (incident.io leaves empty lists out) rather than a malformed answer.
	LenientLists bool
	// Format is how update bodies are written.
	Format model.Format
}

// ---- Decoding ----

// The types hold only the fields we use, so the decoder skips the rest of each object
// without building it. Times stay strings until normalised; a time we cannot
// read is "not given" rather than a failed page.

type document struct {
	Page                  *page       `json:"page"`
	Incidents             *[]Incident `json:"incidents"`
	ScheduledMaintenances *[]Incident `json:"scheduled_maintenances"`
}

// List is a decoded list endpoint: the page's name and the list.
type List struct {
	Page string
	List []Incident
}

type page struct {
	Name string `json:"name"`
}

type summary struct {
	Page       *page              `json:"page"`
	Status     *pageStatus        `json:"status"`
	Components []summaryComponent `json:"components"`
}

// pageStatus is the summary's status object: the page's overall indicator (none, minor,
// major, critical, maintenance) and its sentence ("Partial System Outage").
type pageStatus struct {
	Indicator   string `json:"indicator"`
	Description string `json:"description"`
}

// summaryComponent is one component of the summary. Atlassian's pages list a group as a
// component with group true, whose members name it by group_id; incident.io's copy has
// neither field.
type summaryComponent struct {
	ID      payload.FlexID `json:"id"`
	Name    string         `json:"name"`
	Status  string         `json:"status"`
	Group   bool           `json:"group"`
	GroupID payload.FlexID `json:"group_id"`
}

// Summary is what summary.json says: the page's name and its component states.
type Summary struct {
	Page       string
	Components *model.Components
}

type incidentDocument struct {
	Incident *Incident `json:"incident"`
}

// Incident is one incident or maintenance as a list or per-incident document has it.
type Incident struct {
	ID                    string      `json:"id"`
	Name                  string      `json:"name"`
	Status                string      `json:"status"`
	Impact                string      `json:"impact"`
	Shortlink             string      `json:"shortlink"`
	CreatedAt             string      `json:"created_at"`
	StartedAt             string      `json:"started_at"`
	ResolvedAt            string      `json:"resolved_at"`
	ScheduledFor          string      `json:"scheduled_for"`
	ScheduledUntil        string      `json:"scheduled_until"`
	PostmortemBody        string      `json:"postmortem_body"`
	PostmortemPublishedAt looseTime   `json:"postmortem_published_at"`
	Components            []Component `json:"components"`
	Updates               []Update    `json:"incident_updates"`
}

// Component is a component the incident lists, by id and current name.
type Component struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Update is one update of an incident's timeline.
type Update struct {
	ID                 string     `json:"id"`
	Status             string     `json:"status"`
	Body               string     `json:"body"`
	CreatedAt          string     `json:"created_at"`
	DisplayAt          string     `json:"display_at"`
	AffectedComponents []Affected `json:"affected_components"`
}

// Affected is a component an update names, as it was named when the update was posted.
type Affected struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// DecodeList decodes a list endpoint whose list is under key ("incidents" or
// "scheduled_maintenances"). A document without that array is malformed, unless
// o.LenientLists and it has a page object: then it is an empty list. An empty array is
// well-formed (the archive decides whether it is suspicious).
func (o Options) DecodeList(contentType string, body []byte, key string) (*List, error) {
	var doc document
	if err := payload.DecodeJSONObject(contentType, body, &doc); err != nil {
		return nil, err
	}
	list := doc.Incidents
	if key == "scheduled_maintenances" {
		list = doc.ScheduledMaintenances
	}
	if list == nil {
		if !o.LenientLists || doc.Page == nil {
			return nil, fmt.Errorf("%w: no %q array", payload.ErrMalformed, key)
		}
		list = &[]Incident{}
	}
	if err := payload.Require(*list, key+"[%d] has no id", func(in *Incident) bool { return in.ID != "" }); err != nil {
		return nil, err
	}
	l := &List{List: *list}
	if doc.Page != nil {
		l.Page = strings.TrimSpace(doc.Page.Name)
	}
	return l, nil
}

// ReadSummary reads summary.json, conditionally, on every poll the page is not
// remembered to have none: the page's name and its component states, which change without
// an incident and so cannot wait for one. nil when there was nothing to parse (304,
// byte-identical) or nothing to read: the summary is optional, so a page without one
// (404, 410) is remembered so for AbsentRetry, and one that cannot be read or decoded is
// logged, its body kept as evidence, and the poll goes on. The error is only that of a
// poll cut short.
func ReadSummary(ctx context.Context, pl *fetch.Poll) (*Summary, error) {
	if fetch.SkipAbsent(pl.Req.State[fetch.EndpointSummary], pl.Req.Now) {
		return nil, nil
	}
	s, _, err := fetch.ReadEndpoint(ctx, pl, fetch.EndpointSummary, "api/v2/summary.json", DecodeSummary)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case fetch.Gone(err):
		pl.Absent(fetch.EndpointSummary, "summary", err)
	case err != nil:
		pl.GoesOnWithout(fetch.EndpointSummary, "summary", err)
	}
	return s, nil
}

// DecodeSummary decodes summary.json: the page's name and its components (an absent
// list is none: incident.io leaves empty lists out). A summary whose components or status
// do not decode (a field of an odd type) still gives the page's name, as it did before
// the components were read, with no components (nil: not read).
func DecodeSummary(contentType string, body []byte) (*Summary, error) {
	s, err := payload.Object(contentType, body, `"page" object`, func(s *summary) bool { return s.Page != nil })
	if err != nil {
		var named struct {
			Page *page `json:"page"`
		}
		if payload.DecodeJSONObject(contentType, body, &named) != nil || named.Page == nil {
			return nil, err
		}
		return &Summary{Page: strings.TrimSpace(named.Page.Name)}, nil
	}
	var st pageStatus
	if s.Status != nil {
		st = *s.Status
	}
	return &Summary{Page: strings.TrimSpace(s.Page.Name), Components: components(st, s.Components)}, nil
}

// ComponentWords are the component states of the Statuspage v2 API (incident.io's copy
// uses the same words).
var ComponentWords = fetch.ComponentWords{
	"operational":          model.ComponentOperational,
	"under_maintenance":    model.ComponentMaintenance,
	"degraded_performance": model.ComponentDegraded,
	"partial_outage":       model.ComponentPartialOutage,
	"major_outage":         model.ComponentMajorOutage,
}

// components normalises the summary's components. A group (group true) is not listed
// itself: Statuspage shows it as a heading over its members whose state is the worst of
// theirs, so listed beside them it would report each change twice, and alert on a name
// that is no service. (The Prometheus statuspage exporter exports every entry, groups
// included, one series each; here a member carries its group's name instead.) A member
// names its group by group_id; one whose group is not in the list has none.
func components(st pageStatus, list []summaryComponent) *model.Components {
	groups := map[payload.FlexID]string{}
	for _, c := range list {
		if c.Group && c.ID != "" {
			groups[c.ID] = c.Name
		}
	}
	out := make([]model.Component, 0, len(list))
	for _, c := range list {
		if c.Group {
			continue
		}
		group := ""
		if c.GroupID != "" {
			group = groups[c.GroupID]
		}
		out = append(out, ComponentWords.Component(string(c.ID), c.Name, group, c.Status))
	}
	return fetch.NewComponents(st.Indicator, st.Description, out)
}

// DecodeIncident decodes a per-incident document, {"incident": {...}}.
func DecodeIncident(contentType string, body []byte) (*Incident, error) {
	d, err := payload.Object(contentType, body, `"incident" object with an id`, func(d *incidentDocument) bool { return d.Incident != nil && d.Incident.ID != "" })
	if err != nil {
		return nil, err
	}
	return d.Incident, nil
}

// ---- Normalisation ----

// NormaliseList maps a decoded list to incidents of the given kind and describes the
// listing: a full list covers only what started since its oldest item. An id listed twice
// is taken once, first wins: a snapshot holds each incident once.
func (o Options) NormaliseList(list []Incident, kind model.Kind, base *url.URL) ([]model.Incident, model.Listing) {
	out := make([]model.Incident, 0, len(list))
	seen := make(map[string]bool, len(list))
	var oldest time.Time
	for i := range list {
		if seen[list[i].ID] {
			continue
		}
		seen[list[i].ID] = true
		inc := o.Normalise(&list[i], kind, base)
		if !inc.StartedAt.IsZero() && (oldest.IsZero() || inc.StartedAt.Before(oldest)) {
			oldest = inc.StartedAt
		}
		out = append(out, inc)
	}
	l := model.Listing{Kind: kind}
	if len(list) >= o.ListSize {
		l.Since = oldest
	}
	return out, l
}

// Normalise maps one incident or maintenance to the model. kind is the kind its endpoint
// lists; an item with scheduled_for set is a maintenance wherever it appears.
func (o Options) Normalise(in *Incident, kind model.Kind, base *url.URL) model.Incident {
	scheduledFor := payload.ParseTime(in.ScheduledFor)
	if !scheduledFor.IsZero() {
		kind = model.KindMaintenance
	}
	resolvedAt := payload.ParseTime(in.ResolvedAt)
	inc := model.Incident{
		ID:             in.ID,
		Kind:           kind,
		Status:         spStatus(in.Status, kind, !resolvedAt.IsZero()),
		StatusRaw:      in.Status,
		Impact:         spImpact(in.Impact, kind),
		ImpactRaw:      in.Impact,
		Title:          strings.TrimSpace(in.Name),
		StartedAt:      payload.ParseTime(in.StartedAt),
		ResolvedAt:     resolvedAt,
		ScheduledFor:   scheduledFor,
		ScheduledUntil: payload.ParseTime(in.ScheduledUntil),
		Postmortem:     in.Postmortem(),
		URL:            in.Shortlink,
	}
	// Incidents created before Statuspage added started_at (2020) start when created.
	if inc.StartedAt.IsZero() {
		inc.StartedAt = payload.ParseTime(in.CreatedAt)
	}
	if inc.URL == "" && base != nil {
		inc.URL = base.JoinPath("incidents", in.ID).String()
	}
	inc.Components = in.components()
	inc.Updates = in.updates(o.Format)
	return inc
}

// components is the sorted set of the incident's components and every update's affected
// components. An affected component is named by its current name, the incident's
// component with the same id, when there is one: affected_components keep the name a
// component had when the update was posted (GitHub's "GitHub Actions" is now "Actions"),
// and a rename is not an edit of the incident (current names).
func (in *Incident) components() []string {
	names := make([]string, 0, len(in.Components))
	for _, c := range in.Components {
		if n := strings.TrimSpace(c.Name); n != "" {
			names = append(names, n)
		}
	}
	for _, u := range in.Updates {
	next:
		for _, a := range u.AffectedComponents {
			if a.Code != "" {
				for _, c := range in.Components {
					if c.ID == a.Code {
						continue next // already named by its current name
					}
				}
			}
			if n := strings.TrimSpace(a.Name); n != "" {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// updates returns the timeline oldest first: by posted time (display_at, else created_at),
// then created_at, then id, so the order is the same on every poll.
func (in *Incident) updates(format model.Format) []model.Update {
	n := len(in.Updates)
	out := make([]model.Update, n)
	// keys holds, per update, what orders it besides PostedAt and ID, and the provider's
	// timestamp that keys an update without id.
	type key struct {
		created time.Time
		stamp   string
	}
	keys := make([]key, n)
	// Statuspage lists updates newest first: walking them backwards usually yields the
	// final order, and the sort below is then only a check.
	for j := range n {
		su := &in.Updates[n-1-j]
		created := payload.ParseTime(su.CreatedAt)
		posted, stamp := created, su.CreatedAt
		if su.DisplayAt != su.CreatedAt { // usually equal: parse once
			if t := payload.ParseTime(su.DisplayAt); !t.IsZero() {
				posted, stamp = t, su.DisplayAt
			}
		}
		out[j] = model.Update{
			ID:       su.ID,
			Status:   UpdateStatus(su.Status),
			Body:     fetch.CleanBody(su.Body),
			Format:   format,
			PostedAt: posted,
		}
		keys[j] = key{created, stamp}
	}
	cmp := func(a, b int) int {
		if c := out[a].PostedAt.Compare(out[b].PostedAt); c != 0 {
			return c
		}
		if c := keys[a].created.Compare(keys[b].created); c != 0 {
			return c
		}
		return strings.Compare(out[a].ID, out[b].ID)
	}
	sorted := true
	for j := 1; j < n && sorted; j++ {
		sorted = cmp(j-1, j) <= 0
	}
	if !sorted {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		slices.SortStableFunc(perm, cmp)
		out2, keys2 := make([]model.Update, n), make([]key, n)
		for i, p := range perm {
			out2[i], keys2[i] = out[p], keys[p]
		}
		out, keys = out2, keys2
	}
	var seen map[string]int
	for i := range out {
		if out[i].ID != "" {
			continue
		}
		// An update without a provider id is keyed by its incident, its
		// timestamp and its ordinal among updates with that timestamp.
		if seen == nil {
			seen = map[string]int{}
		}
		st := keys[i].stamp
		out[i].ID = fetch.UpdateKey(in.ID, st, seen[st])
		seen[st]++
	}
	return out
}

// Postmortem returns the postmortem the JSON carries, nil if none.
func (in *Incident) Postmortem() *model.Postmortem {
	body := fetch.CleanBody(in.PostmortemBody)
	if body == "" {
		return nil
	}
	return &model.Postmortem{Body: body, Format: model.FormatMarkdown, PublishedAt: in.PostmortemPublishedAt.t}
}

// spStatus maps a Statuspage status. Both vocabularies are accepted whatever the kind (an
// incident can be turned into a maintenance and back); an unknown word is read from
// whether the item is resolved, and kept in StatusRaw.
func spStatus(raw string, kind model.Kind, resolved bool) model.Status {
	if s, ok := fetch.KnownStatus(raw); ok {
		return s
	}
	switch {
	case kind == model.KindMaintenance && resolved:
		return model.StatusCompleted
	case kind == model.KindMaintenance:
		return model.StatusScheduled
	case resolved:
		return model.StatusResolved
	}
	return model.StatusInvestigating
}

// UpdateStatus maps an update's status; an unknown word is kept as given, since an
// update has no raw field to keep it in.
func UpdateStatus(raw string) model.Status {
	if s, ok := fetch.KnownStatus(raw); ok {
		return s
	}
	return model.Status(strings.TrimSpace(raw))
}

// spImpact maps a Statuspage impact; maintenance is always "maintenance".
func spImpact(raw string, kind model.Kind) model.Impact {
	if kind == model.KindMaintenance {
		return model.ImpactMaintenance
	}
	switch i := model.Impact(strings.ToLower(strings.TrimSpace(raw))); i {
	case model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical, model.ImpactMaintenance:
		return i
	}
	return model.ImpactUnknown
}

// looseTime reads a time that has been seen as a string, null and a boolean
// (postmortem_published_at: true in Atlassian's own example). Anything but a readable
// RFC 3339 string is "not given", never an error.
type looseTime struct{ t time.Time }

// UnmarshalJSON implements json.Unmarshaler for both encoding/json and json v2.
func (lt *looseTime) UnmarshalJSON(b []byte) error {
	lt.t = time.Time{}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0 {
		lt.t = payload.ParseTime(string(b[1 : len(b)-1]))
	}
	return nil
}

// ---- Joining the lists ----

// WithoutMaintenance drops the maintenances from a list, in place.
func WithoutMaintenance(list []model.Incident) []model.Incident {
	return slices.DeleteFunc(list, func(inc model.Incident) bool { return inc.Kind == model.KindMaintenance })
}

// MergeMaintenances adds the maintenance list to the incident list. An id in both is one
// item, and the maintenance endpoint's version wins: it is the authority on maintenance.
func MergeMaintenances(incidents, maint []model.Incident) []model.Incident {
	if len(incidents) == 0 {
		return maint
	}
	at := make(map[string]int, len(incidents))
	for i, inc := range incidents {
		at[inc.ID] = i
	}
	for _, m := range maint {
		if i, ok := at[m.ID]; ok {
			incidents[i] = m
			continue
		}
		incidents = append(incidents, m)
	}
	return incidents
}

// ---- Detection ----

// SummaryShape reads what every platform serving the Statuspage v2 JSON has in its
// /api/v2/summary.json: an object with a page, a Statuspage status.indicator, the summary
// decodable, and components (if any) a list of objects. m is the document, id the page's
// id; why says what is amiss instead. Each platform's probe judges the rest.
func SummaryShape(contentType string, body []byte) (m, page map[string]any, id string, comps []map[string]any, why string) {
	if m, page, why = fetch.DecodeObjectAt(contentType, body, `a "page" object`, "page"); m == nil {
		return nil, nil, "", nil, why
	}
	id, _ = fetch.StrAt(page, "id")
	status := fetch.ObjAt(m, "status")
	indicator, _ := fetch.StrAt(status, "indicator")
	if !indicators[indicator] {
		return nil, nil, "", nil, fmt.Sprintf("page.id %s without a Statuspage status.indicator", fetch.QuoteShort(id))
	}
	if _, err := DecodeSummary(contentType, body); err != nil {
		return nil, nil, "", nil, fetch.JSONWhy(err)
	}
	list, ok := fetch.ArrAt(m, "components")
	if !ok && m["components"] != nil {
		return nil, nil, "", nil, `"components" is no list`
	}
	cs, ok := fetch.Objects(list)
	if !ok {
		return nil, nil, "", nil, "components[] holds a non-object"
	}
	return m, page, id, cs, ""
}

// indicators are the page status indicators of the Statuspage v2 API (shared by
// incident.io's compatible copy).
var indicators = map[string]bool{"none": true, "minor": true, "major": true, "critical": true, "maintenance": true}

// StatuspageOnlyComponentKeys are component fields Atlassian's summary has and incident.io's
// compatible copy lacks (see the captures in platform/statuspage/testdata and
// platform/incidentio/testdata).
var StatuspageOnlyComponentKeys = []string{"group", "only_show_if_degraded", "showcase", "group_id"}
