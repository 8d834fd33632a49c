// The Cachet adapter reads the JSON API v1 of a self-hosted Cachet 2.x status page,
// documented at https://docs.cachethq.io/reference#get-incidents (/api/v1/incidents and
// https://docs.cachethq.io/reference#get-components; lists paginated with meta.pagination). Its shapes were checked against
// Cachet's source (github.com/cachethq/cachet, 2.4): the incident model eager-loads its
// updates (Incident::$with = ['meta', 'updates']), so the list carries every incident's
// timeline and /api/v1/incidents/{id}/updates is never needed.

package cachet

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of Cachet status pages.
const Kind = "cachet"

// Endpoint names besides the incident list, EndpointIncidents ("incidents"), as for
// Statuspage.
const (
	EndpointComponents      = "components"       // /api/v1/components
	EndpointComponentGroups = "component-groups" // /api/v1/components/groups
)

// cachetListSize is how many incidents a poll asks for: the newest, by id.
const cachetListSize = 50

func init() {
	fetch.Register(fetch.Platform{
		Kind:          Kind,
		Poll:          poll,
		Endpoints:     []string{fetch.EndpointIncidents, EndpointComponents, EndpointComponentGroups},
		Components:    EndpointComponents,
		EndpointPaths: []string{"/api/v1/incidents", "/api/v1/components", "/api/v1/components/groups"},
		Probes:        []fetch.Probe{{Order: 40, Rel: "api/v1/incidents?per_page=5", Check: checkCachet}},
	})
}

// poll reads the newest incidents and the component list, each conditionally; the
// component list is read again in full when the incidents changed and one of them names a
// component (the names are needed every time the incidents are parsed), and when it
// changed, the component groups are read for their names. The component list is optional
// for the component states: when no incident needs its names, one that cannot be read
// leaves the states out of the poll (a 404 is remembered for fetch.AbsentRetry).
//
// Cachet is a history provider: the incident
// list holds incidents whatever their state.
//
// Mapping: status codes 0 scheduled (Cachet ≤ 2.3 kept maintenance among the
// incidents; it becomes a maintenance, scheduled_at its start), 1 investigating,
// 2 identified, 3 watching → monitoring, 4 fixed → resolved; StatusRaw keeps the code.
// Cachet has no impact: incidents are "unknown" (which passes every min_impact filter),
// maintenance "maintenance". The incident's own message is its first update (format
// markdown, as Cachet writes it), keyed as every update without id is, since it has none; the incident
// updates follow with their ids. component_id names the one component, by the names of
// /api/v1/components.
//
// Component states: each enabled component of /api/v1/components, its status code by
// ctComponentWords (StatusRaw keeps the code), under the name of its group_id's group;
// Cachet has no page status.
//
// Cachet writes times as "2006-01-02 15:04:05" in the zone it is configured with (UTC by
// default) without saying which: they are read as UTC. RFC 3339 times (newer Laravel) carry
// their zone and are read as such.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	base, err := fetch.BaseURL(pl.Req.Source.URL)
	if err != nil {
		return nil, err
	}
	// Sorted by id, newest first: Cachet's default order is the database's, oldest first,
	// and its first page would then be the oldest incidents.
	rel := "api/v1/incidents?sort=id&order=desc&per_page=" + strconv.Itoa(cachetListSize)
	list, parsed, err := fetch.ReadEndpoint(ctx, pl, fetch.EndpointIncidents, rel, decodeCachetIncidents)
	if err != nil {
		return nil, err
	}
	needNames := parsed && list.namesComponents()
	comps, changed, err := readComponents(ctx, pl, needNames)
	if err != nil {
		return nil, err
	}
	if !parsed && !changed {
		return nil, nil
	}
	snap := pl.Snapshot()
	if parsed {
		snap.Incidents, snap.Listings = list.normalise(comps.names(), base, pl.Req.Now)
	}
	if changed {
		snap.Components = comps.states()
	}
	return snap, nil
}

// readComponents reads the component list conditionally, in full when the incidents need
// its names (needNames: then it failing fails the poll, as names cannot be guessed), and
// when it changed, the groups. changed reports that the component states were read: the
// list had a new body and its groups could be named.
func readComponents(ctx context.Context, pl *fetch.Poll, needNames bool) (cl *ctComponentList, changed bool, err error) {
	prev, hadPrev := pl.Req.State[EndpointComponents]
	if !needNames && fetch.SkipAbsent(prev, pl.Req.Now) {
		return nil, false, nil
	}
	cu, err := fetch.EndpointURL(pl.Req.Source, EndpointComponents, "api/v1/components?per_page=1000", "")
	if err != nil {
		return nil, false, err
	}
	resp, err := pl.Read(ctx, EndpointComponents, cu)
	if err == nil {
		changed = fetch.ToParse(resp)
		if !changed && needNames {
			resp, err = pl.Reread(ctx, EndpointComponents, cu)
		}
	}
	if err == nil && (changed || needNames) {
		if cl, err = decodeCachetComponents(resp.ContentType, resp.Body); err != nil {
			err = fmt.Errorf("%s %s: %w", EndpointComponents, fetch.RedactURL(cu), err)
		}
	}
	switch {
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case err != nil && needNames:
		return nil, false, err
	case fetch.Gone(err):
		pl.Absent(EndpointComponents, "component list", err)
		return nil, false, nil
	case err != nil:
		pl.GoesOnWithout(EndpointComponents, "component list", err)
		return nil, false, nil
	case !changed:
		return cl, false, nil
	}
	if cl.groups, err = readGroups(ctx, pl); err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		// States without their groups' names would read as every component moving out
		// of its group: left out of this poll, the list's state put back to read it again.
		pl.GoesOnWithout(EndpointComponentGroups, "component groups", err)
		if hadPrev {
			pl.Res.State[EndpointComponents] = prev
		} else {
			delete(pl.Res.State, EndpointComponents)
		}
		return cl, false, nil
	}
	return cl, true, nil
}

// readGroups reads the component groups' names in full: they are needed whenever the
// component list changed. A Cachet without the groups endpoint (404, 410) has none.
func readGroups(ctx context.Context, pl *fetch.Poll) (map[string]string, error) {
	u, err := fetch.EndpointURL(pl.Req.Source, EndpointComponentGroups, "api/v1/components/groups?per_page=1000", "")
	if err != nil {
		return nil, err
	}
	resp, err := pl.Lookup(ctx, EndpointComponentGroups, u)
	switch {
	case fetch.Gone(err):
		return map[string]string{}, nil
	case err != nil:
		return nil, err
	}
	groups, err := decodeCachetGroups(resp.ContentType, resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", EndpointComponentGroups, fetch.RedactURL(u), err)
	}
	return groups, nil
}

// ---- Decoding ----

type ctDoc struct {
	Meta *struct {
		Pagination *struct {
			Total      payload.FlexID `json:"total"`
			Count      payload.FlexID `json:"count"`
			TotalPages payload.FlexID `json:"total_pages"`
		} `json:"pagination"`
	} `json:"meta"`
	Data *[]ctIncident `json:"data"`
}

type ctIncident struct {
	ID          payload.FlexID `json:"id"`
	ComponentID payload.FlexID `json:"component_id"`
	Name        string         `json:"name"`
	Status      payload.FlexID `json:"status"`
	Message     string         `json:"message"`
	ScheduledAt string         `json:"scheduled_at"`
	OccurredAt  string         `json:"occurred_at"`
	CreatedAt   string         `json:"created_at"`
	Updates     []ctUpdate     `json:"updates"`
	Component   *ctNamedRef    `json:"component"` // present when the API was asked to include it
}

type ctUpdate struct {
	ID        payload.FlexID `json:"id"`
	Status    payload.FlexID `json:"status"`
	Message   string         `json:"message"`
	CreatedAt string         `json:"created_at"`
}

type ctNamedRef struct {
	ID   payload.FlexID `json:"id"`
	Name string         `json:"name"`
}

// ctComponent is one component of /api/v1/components.
type ctComponent struct {
	ID      payload.FlexID `json:"id"`
	Name    string         `json:"name"`
	Status  ctCode         `json:"status"`
	GroupID ctCode         `json:"group_id"`
	Enabled ctCode         `json:"enabled"` // true, or 1 from a database that has no booleans
}

// ctData is an answer of the API that is one list, under "data".
type ctData[T any] struct {
	Data *[]T `json:"data"`
}

// decodeCachetData decodes an answer that is one list; without a "data" array it is not
// the answer of that endpoint.
func decodeCachetData[T any](contentType string, body []byte) ([]T, error) {
	doc, err := payload.Object(contentType, body, dataArray, func(d *ctData[T]) bool { return d.Data != nil })
	if err != nil {
		return nil, err
	}
	return *doc.Data, nil
}

// dataArray is what an answer of the API lacks when it has no list.
const dataArray = `"data" array`

// ctCode is a code or flag Cachet sends as a number, a string or a boolean; anything else
// (null, or an object from a Cachet that describes its enums) is "not given" rather than
// a failed list, whose names the incidents need.
type ctCode = payload.LooseText

// disabled reports whether a flag says no: false, 0 or "0".
func disabled(c ctCode) bool { return c == "false" || c == "0" }

// ctComponentList is a decoded component list, with its groups' names once read.
type ctComponentList struct {
	list   []ctComponent
	groups map[string]string // group id → name
}

// ctList is a decoded incident list.
type ctList struct {
	incidents []ctIncident
	capped    bool // more incidents exist than the page holds
}

// decodeCachetIncidents decodes /api/v1/incidents. Without a "data" array it is not the
// answer of that endpoint; an incident without id is malformed.
func decodeCachetIncidents(contentType string, body []byte) (*ctList, error) {
	doc, err := payload.Object(contentType, body, dataArray, func(d *ctDoc) bool { return d.Data != nil })
	if err != nil {
		return nil, err
	}
	l := &ctList{incidents: *doc.Data}
	if err := payload.Require(l.incidents, "data[%d] has no id", func(in *ctIncident) bool { return in.ID != "" }); err != nil {
		return nil, err
	}
	if doc.Meta != nil && doc.Meta.Pagination != nil {
		pg := doc.Meta.Pagination
		total, _ := pg.Total.Int()
		pages, _ := pg.TotalPages.Int()
		l.capped = total > len(l.incidents) || pages > 1
	} else {
		// No pagination said: a full page may be a cut one.
		l.capped = len(l.incidents) >= cachetListSize
	}
	return l, nil
}

// decodeCachetComponents decodes /api/v1/components.
func decodeCachetComponents(contentType string, body []byte) (*ctComponentList, error) {
	list, err := decodeCachetData[ctComponent](contentType, body)
	if err != nil {
		return nil, err
	}
	return &ctComponentList{list: list}, nil
}

// decodeCachetGroups decodes /api/v1/components/groups into id → name.
func decodeCachetGroups(contentType string, body []byte) (map[string]string, error) {
	list, err := decodeCachetData[ctNamedRef](contentType, body)
	if err != nil {
		return nil, err
	}
	groups := make(map[string]string, len(list))
	for _, g := range list {
		if n := strings.TrimSpace(g.Name); g.ID != "" && n != "" {
			groups[string(g.ID)] = n
		}
	}
	return groups, nil
}

// names maps the components' ids to their names, for the incidents (nil for none).
func (cl *ctComponentList) names() map[string]string {
	if cl == nil {
		return nil
	}
	names := make(map[string]string, len(cl.list))
	for _, c := range cl.list {
		if n := strings.TrimSpace(c.Name); c.ID != "" && n != "" {
			names[string(c.ID)] = n
		}
	}
	return names
}

// ctComponentWords maps Cachet's component status codes (1 operational, 2 performance
// issues, 3 partial outage, 4 major outage; 0 is Cachet 2's "unknown", left to the
// unknown word's default) and the words a Cachet may send instead of them.
var ctComponentWords = fetch.ComponentWords{
	"1": model.ComponentOperational, "operational": model.ComponentOperational,
	"2": model.ComponentDegraded, "performance_issues": model.ComponentDegraded,
	"3": model.ComponentPartialOutage, "partial_outage": model.ComponentPartialOutage,
	"4": model.ComponentMajorOutage, "major_outage": model.ComponentMajorOutage,
	"under_maintenance": model.ComponentMaintenance,
}

// states are the enabled components' states (a disabled component is not on the page),
// each under its group's name.
func (cl *ctComponentList) states() *model.Components {
	list := make([]model.Component, 0, len(cl.list))
	for _, c := range cl.list {
		if disabled(c.Enabled) {
			continue
		}
		list = append(list, ctComponentWords.Component(string(c.ID), c.Name, cl.groups[string(c.GroupID)], string(c.Status)))
	}
	return fetch.NewComponents("", "", list)
}

// namesComponents reports whether an incident names a component the list does not name
// itself, i.e. whether the component list is needed.
func (l *ctList) namesComponents() bool {
	for i := range l.incidents {
		in := &l.incidents[i]
		if n, ok := in.ComponentID.Int(); ok && n > 0 && (in.Component == nil || strings.TrimSpace(in.Component.Name) == "") {
			return true
		}
	}
	return false
}

// ---- Normalisation ----

// normalise maps the list and describes the listing. A list holding every incident covers
// the whole history. A cut one (more pages) covers what started since its oldest item; but
// only when it really holds the newest incidents: a Cachet that ignored the sort answers
// its oldest page, which covers nothing, and is then said to cover nothing (Since = now).
func (l *ctList) normalise(names map[string]string, base *url.URL, now time.Time) ([]model.Incident, []model.Listing) {
	out := make([]model.Incident, 0, len(l.incidents))
	seen := map[payload.FlexID]bool{}
	var oldest time.Time
	descending, prev := true, -1
	for i := range l.incidents {
		in := &l.incidents[i]
		if n, ok := in.ID.Int(); ok {
			if prev >= 0 && n > prev {
				descending = false
			}
			prev = n
		}
		if seen[in.ID] {
			continue
		}
		seen[in.ID] = true
		inc := in.normalise(names, base)
		if !inc.StartedAt.IsZero() && (oldest.IsZero() || inc.StartedAt.Before(oldest)) {
			oldest = inc.StartedAt
		}
		out = append(out, inc)
	}
	var since time.Time
	if l.capped {
		since = oldest
		if !descending || since.IsZero() {
			since = now.UTC()
		}
	}
	return out, []model.Listing{{Kind: model.KindIncident, Since: since}, {Kind: model.KindMaintenance, Since: since}}
}

// normalise maps one Cachet incident (see poll for the mapping).
func (in *ctIncident) normalise(names map[string]string, base *url.URL) model.Incident {
	id := string(in.ID)
	code, known := in.Status.Int()
	kind, impact := model.KindIncident, model.ImpactUnknown
	if known && code == 0 {
		kind, impact = model.KindMaintenance, model.ImpactMaintenance
	}
	created := parseCachetTime(in.CreatedAt)
	inc := model.Incident{
		ID:        id,
		Kind:      kind,
		Status:    cachetStatus(in.Status, kind),
		StatusRaw: string(in.Status),
		Impact:    impact,
		Title:     strings.TrimSpace(in.Name),
		StartedAt: parseCachetTime(in.OccurredAt),
		URL:       base.JoinPath("incidents", id).String(),
	}
	if inc.StartedAt.IsZero() {
		inc.StartedAt = created
	}
	if kind == model.KindMaintenance {
		inc.ScheduledFor = parseCachetTime(in.ScheduledAt)
	}
	var comps []string
	if n, ok := in.ComponentID.Int(); ok && n > 0 {
		if in.Component != nil && strings.TrimSpace(in.Component.Name) != "" {
			comps = append(comps, in.Component.Name)
		} else if name := names[string(in.ComponentID)]; name != "" {
			comps = append(comps, name)
		}
	}
	inc.Components = fetch.SortedNames(comps)

	// The incident's message first, then the updates (Cachet lists them newest first).
	var ups []model.Update
	var stamps []string
	if body := fetch.CleanBody(in.Message); body != "" {
		st := model.Status("")
		if len(in.Updates) == 0 {
			st = inc.Status
		}
		posted := created
		if posted.IsZero() {
			posted = inc.StartedAt
		}
		ups = append(ups, model.Update{Status: st, Body: body, Format: model.FormatMarkdown, PostedAt: posted})
		stamps = append(stamps, stableCachetStamp(in.CreatedAt))
	}
	updates := slices.Clone(in.Updates)
	slices.SortStableFunc(updates, func(a, b ctUpdate) int {
		if c := parseCachetTime(a.CreatedAt).Compare(parseCachetTime(b.CreatedAt)); c != 0 {
			return c
		}
		x, _ := a.ID.Int()
		y, _ := b.ID.Int()
		return x - y
	})
	for _, u := range updates {
		ups = append(ups, model.Update{
			ID:       string(u.ID),
			Status:   cachetStatus(u.Status, kind),
			Body:     fetch.CleanBody(u.Message),
			Format:   model.FormatMarkdown,
			PostedAt: parseCachetTime(u.CreatedAt),
		})
		stamps = append(stamps, stableCachetStamp(u.CreatedAt))
	}
	ups = fetch.KeyUpdates(id, ups, stamps)
	if ups == nil {
		ups = []model.Update{}
	}
	inc.Updates = ups

	if !inc.Status.Open() {
		// The first update that fixed it; without one, the last thing posted.
		for _, u := range ups {
			if u.Status == model.StatusResolved || u.Status == model.StatusCompleted {
				inc.ResolvedAt = u.PostedAt
				break
			}
		}
		if inc.ResolvedAt.IsZero() && len(ups) > 0 && len(in.Updates) > 0 {
			inc.ResolvedAt = ups[len(ups)-1].PostedAt
		}
	}
	return inc
}

// cachetStatus maps a Cachet status code (see poll). An unknown code of an incident is
// investigating: it is not known to be over.
func cachetStatus(raw payload.FlexID, kind model.Kind) model.Status {
	code, ok := raw.Int()
	if !ok {
		if s, known := fetch.KnownStatus(string(raw)); known {
			return s
		}
		code = -1
	}
	if kind == model.KindMaintenance {
		if code == 4 {
			return model.StatusCompleted
		}
		return model.StatusScheduled
	}
	switch code {
	case 2:
		return model.StatusIdentified
	case 3:
		return model.StatusMonitoring
	case 4:
		return model.StatusResolved
	}
	return model.StatusInvestigating
}

// cachetTimeLayout is how Cachet 2.x writes times (Carbon's toDateTimeString).
const cachetTimeLayout = "2006-01-02 15:04:05"

// parseCachetTime reads a Cachet time: RFC 3339, else Cachet's own layout as UTC; empty
// or unreadable is the zero time.
func parseCachetTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if t := payload.ParseTime(s); !t.IsZero() {
		return t
	}
	t, err := time.Parse(cachetTimeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// stableCachetStamp is StableStamp for Cachet's time format.
func stableCachetStamp(raw string) string {
	if t := parseCachetTime(raw); !t.IsZero() {
		return t.Format(time.RFC3339Nano)
	}
	return strings.TrimSpace(raw)
}

// checkCachet accepts Cachet 2.x's /api/v1/incidents: meta.pagination (Laravel's
// paginator) and data[], incidents with a numeric id and a status code 0–4.
func checkCachet(contentType string, body []byte) (string, string, string) {
	m, pg, why := fetch.DecodeObjectAt(contentType, body, "meta.pagination", "meta", "pagination")
	if m == nil {
		return "", "", why
	}
	for _, k := range []string{"total", "per_page", "current_page", "total_pages"} {
		if !fetch.IsNumber(pg[k]) {
			return "", "", "meta.pagination without " + k
		}
	}
	list, ok := fetch.ArrAt(m, "data")
	if !ok {
		return "", "", "meta.pagination without data[]"
	}
	items, ok := fetch.Objects(list)
	if !ok {
		return "", "", "data[] holds a non-object"
	}
	for _, it := range items {
		_, hasName := fetch.StrAt(it, "name")
		st := it["status"]
		code, _ := st.(float64)
		if s, ok := st.(string); ok && len(s) == 1 {
			code = float64(s[0] - '0')
		}
		if !fetch.IsNumber(it["id"]) || !hasName || !fetch.IsNumber(st) || code < 0 || code > 4 {
			return "", "", "data[] items unlike Cachet incidents (numeric id, name, status 0-4)"
		}
	}
	if _, err := decodeCachetIncidents(contentType, body); err != nil {
		return "", "", "Cachet-like, but " + fetch.JSONWhy(err)
	}
	return Kind, "has meta.pagination and data[] of incidents with status codes (Cachet shape)", ""
}
