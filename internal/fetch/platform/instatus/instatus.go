// The Instatus adapter reads Instatus status pages through their public data, documented
// at https://instatus.com/help/api/public-data: <page>/summary.json lists what is open now
// (activeIncidents, activeMaintenances), and <page>/history.atom, the page's public
// history feed (its Subscribe menu; Instatus documents no schema for it, see
// testdata/instatus/synthetic-instatus-history.atom), gives each incident's timeline.
//
// How the two make one snapshot. The summary is the truth for what is open: the snapshot
// is OpenOnly, so an open incident it stops listing is resolved by inference after two
// polls (internal/archive/record.go), and an empty summary is a healthy page. The feed is
// the timeline: an incident the summary lists takes its updates and components from its
// entry; an entry the summary does not list joins the snapshot only once the feed itself
// says it is over (resolved, completed), so the archive records how it ended; an entry
// still open in the feed but gone from the summary is left out, so the summary's word
// (and the inference) decides. Including closed incidents does not disturb the
// inference: the archive infers resolution only for incidents it holds as open. What the
// feed cannot say of a closed incident (impact, kind, precise start, schedule) is carried
// over from its archived version, so that resolution is not read as an impact change.

package instatus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/historyfeed"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of Instatus status pages.
const Kind = "instatus"

// Endpoint names besides the summary, EndpointSummary (/summary.json).
const (
	EndpointHistory    = "history"    // /history.atom
	EndpointComponents = "components" // /v2/components.json
)

// State kept beside the endpoints' (model.FetchState) so that an open item that vanished
// gets its second miss. The archive resolves an open-only incident after two well-formed
// polls in a row without it, but a poll whose answers are byte-identical to the last is
// not parsed and records nothing; after the summary dropped an item, its next answer is
// typically identical, and the inference would wait for the page's next change, which may
// be weeks. So when the set of open items changes, the next poll parses even unchanged
// answers, once.
const (
	// instatusOpenSet holds, as its Hash, a hash of the ids the last parsed summary listed.
	instatusOpenSet = "open-set"
	// instatusRecheck is present when the next poll must parse whatever it reads.
	instatusRecheck = "open-set/recheck"
)

func init() {
	fetch.Register(fetch.Platform{
		Kind:          Kind,
		Poll:          poll,
		Endpoints:     []string{fetch.EndpointSummary, EndpointHistory, EndpointComponents},
		Components:    EndpointComponents,
		HostSuffixes:  []string{".instatus.com"},
		NotPages:      []string{"www.instatus.com", "api.instatus.com", "dashboard.instatus.com"},
		EndpointPaths: []string{"/summary.json"},
		// Instatus answers Statuspage's /api/v2/summary.json too: that probe tells them apart.
		Probes: []fetch.Probe{
			// Instatus answers Statuspage's path too: judged before Statuspage, on the same request.
			{Order: 9, Rel: "api/v2/summary.json", Check: checkInstatusV2},
			{Order: 20, Rel: "summary.json", Check: checkInstatusOnly},
		},
	})
}

// poll reads summary.json, history.atom and v2/components.json, each conditionally, and
// when one of them changed the others again in full, so the snapshot joins bodies of the
// same moment (the component states with the summary's page status). A page without
// history feed (a 4xx) is read from its summary alone; the component list is optional: one
// that cannot be read leaves the component states out (a 404 is remembered for
// fetch.AbsentRetry). The poll after the
// set of open items changed parses both even when unchanged (instatusRecheck). Instatus
// snapshots are open-only.
func poll(r *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	req := r.Req
	src := req.Source
	base, err := fetch.BaseURL(src.URL)
	if err != nil {
		return nil, err
	}
	sum := &fetch.GroupRead{Name: fetch.EndpointSummary}
	if sum.URL, err = fetch.EndpointURL(src, fetch.EndpointSummary, "summary.json", ""); err != nil {
		return nil, err
	}
	if sum.Resp, err = r.Read(ctx, sum.Name, sum.URL); err != nil {
		return nil, err
	}
	group := []*fetch.GroupRead{sum}
	hist := &fetch.GroupRead{Name: EndpointHistory}
	if hist.URL, err = fetch.EndpointURL(src, EndpointHistory, "history.atom", ""); err != nil {
		return nil, err
	}
	hist.Resp, err = r.Read(ctx, hist.Name, hist.URL)
	switch {
	case err == nil:
		group = append(group, hist)
	case fetch.Permanent(err):
		r.Forget(EndpointHistory)
		hist = nil
	default:
		return nil, err
	}
	comps := readInstatusComponents(r, ctx)
	// The component states are new when their list or the summary (the page status) is;
	// a list read again only for the feed says nothing new of them.
	statesChanged := fetch.ToParse(sum.Resp)
	if comps != nil {
		group = append(group, comps)
		statesChanged = statesChanged || fetch.ToParse(comps.Resp)
	}
	if err := r.RereadGroup(ctx, group); err != nil {
		return nil, err
	}
	if !fetch.ToParse(sum.Resp) {
		if _, due := req.State[instatusRecheck]; !due {
			return nil, nil
		}
		for _, g := range group {
			if g.Resp, err = r.Reread(ctx, g.Name, g.URL); err != nil {
				return nil, err
			}
		}
	}

	s, err := decodeInstatusSummary(sum.Resp.ContentType, sum.Resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", sum.Name, fetch.RedactURL(sum.URL), err)
	}
	open := s.open(base)
	set := instatusSetHash(open)
	delete(r.Res.State, instatusRecheck)
	if prev := req.State[instatusOpenSet].Hash; prev != "" && prev != set {
		r.Res.State[instatusRecheck] = model.EndpointState{}
	}
	r.Res.State[instatusOpenSet] = model.EndpointState{Hash: set}

	now := req.Now.UTC()
	var history []model.Incident
	if hist != nil {
		f, err := historyfeed.Parse(hist.Resp.Body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", hist.Name, fetch.RedactURL(hist.URL), err)
		}
		history = instatusHistory(f, now)
	}
	snap := &model.Snapshot{
		Source:    src.Name,
		FetchedAt: now,
		PageTitle: s.pageName(),
		OpenOnly:  true,
		Listings:  []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}},
		Incidents: joinInstatus(open, history, req.Archived),
	}
	if comps != nil && statesChanged {
		if list, err := decodeInstatusComponents(comps.Resp.ContentType, comps.Resp.Body); err != nil {
			r.GoesOnWithout(EndpointComponents, "component list", fmt.Errorf("%s %s: %w", comps.Name, fetch.RedactURL(comps.URL), err))
		} else {
			snap.Components = list.states(s.Page.Status)
		}
	}
	return snap, nil
}

// readInstatusComponents reads v2/components.json conditionally; nil when the page is
// remembered to have none or it could not be read (see poll).
func readInstatusComponents(r *fetch.Poll, ctx context.Context) *fetch.GroupRead {
	if fetch.SkipAbsent(r.Req.State[EndpointComponents], r.Req.Now) {
		return nil
	}
	g := &fetch.GroupRead{Name: EndpointComponents}
	var err error
	if g.URL, err = fetch.EndpointURL(r.Req.Source, EndpointComponents, "v2/components.json", ""); err != nil {
		r.GoesOnWithout(EndpointComponents, "component list", err)
		return nil
	}
	if g.Resp, err = r.Read(ctx, g.Name, g.URL); err != nil {
		if fetch.Gone(err) {
			r.Absent(EndpointComponents, "component list", err)
		} else if ctx.Err() == nil {
			r.GoesOnWithout(EndpointComponents, "component list", err)
		}
		return nil
	}
	return g
}

// insComponents is v2/components.json: every component, a group's members naming it.
type insComponents struct {
	Components *[]struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Status string `json:"status"`
		Group  *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"group"`
	} `json:"components"`
}

// decodeInstatusComponents decodes v2/components.json; without its list it is malformed.
func decodeInstatusComponents(contentType string, body []byte) (*insComponents, error) {
	return payload.Object(contentType, body, `"components" array`, func(c *insComponents) bool { return c.Components != nil })
}

// insComponentWords are Instatus's component states.
var insComponentWords = fetch.ComponentWords{
	"operational":         model.ComponentOperational,
	"undermaintenance":    model.ComponentMaintenance,
	"degradedperformance": model.ComponentDegraded,
	"partialoutage":       model.ComponentPartialOutage,
	"majoroutage":         model.ComponentMajorOutage,
}

// states are the components' states under their groups' names, the page status the
// summary's page.status. A group is listed as a component too, its state the worst of
// its members': like Statuspage's, it is not a component of its own (it would report each
// change twice).
func (c *insComponents) states(pageStatus string) *model.Components {
	groups := map[string]bool{}
	for _, x := range *c.Components {
		if x.Group != nil && x.Group.ID != "" {
			groups[x.Group.ID] = true
		}
	}
	list := make([]model.Component, 0, len(*c.Components))
	for _, x := range *c.Components {
		if groups[x.ID] {
			continue
		}
		group := ""
		if x.Group != nil {
			group = x.Group.Name
		}
		list = append(list, insComponentWords.Component(x.ID, x.Name, group, x.Status))
	}
	return fetch.NewComponents(pageStatus, "", list)
}

// instatusSetHash is a hash of the ids of the open items, in any order.
func instatusSetHash(open []model.Incident) string {
	ids := make([]string, len(open))
	for i := range open {
		ids[i] = open[i].ID
	}
	slices.Sort(ids)
	sum := sha256.Sum256([]byte(strings.Join(ids, "\x00")))
	return hex.EncodeToString(sum[:])
}

// instatusHistory normalises the feed's entries, each keyed by the id the summary uses
// (the last segment of its URL, https://<page>/<id> or …/incident/<id>).
func instatusHistory(f *historyfeed.Feed, now time.Time) []model.Incident {
	out := make([]model.Incident, 0, len(f.Entries))
	seen := map[string]bool{}
	for _, e := range f.Entries {
		id := e.LastSegment()
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		e.ID = id
		if inc, ok := e.Incident(now); ok {
			out = append(out, inc)
		}
	}
	return out
}

// joinInstatus makes the snapshot's incidents from the summary's open items and the
// feed's entries, as the file comment explains. archived may be nil.
func joinInstatus(open, history []model.Incident, archived func(string) *model.Incident) []model.Incident {
	byID := make(map[string]*model.Incident, len(history))
	for i := range history {
		byID[history[i].ID] = &history[i]
	}
	prev := func(id string) *model.Incident {
		if archived == nil {
			return nil
		}
		return archived(id)
	}
	out := make([]model.Incident, 0, len(open)+len(history))
	listed := make(map[string]bool, len(open))
	for _, inc := range open {
		if listed[inc.ID] {
			continue
		}
		listed[inc.ID] = true
		if h := byID[inc.ID]; h != nil {
			inc.Updates, inc.Components, inc.Postmortem = h.Updates, h.Components, h.Postmortem
		} else if a := prev(inc.ID); a != nil {
			// Not (or no longer) in the feed: keep the timeline we have.
			inc.Updates, inc.Components, inc.Postmortem = a.Updates, a.Components, a.Postmortem
		}
		out = append(out, inc)
	}
	for _, h := range history {
		if listed[h.ID] || h.Status.Open() {
			continue
		}
		if a := prev(h.ID); a != nil {
			h.Kind, h.Impact, h.ImpactRaw = a.Kind, a.Impact, a.ImpactRaw
			if !a.StartedAt.IsZero() {
				h.StartedAt = a.StartedAt
			}
			if !a.ScheduledFor.IsZero() {
				h.ScheduledFor, h.ScheduledUntil = a.ScheduledFor, a.ScheduledUntil
			}
			if h.URL == "" {
				h.URL = a.URL
			}
		}
		if h.Kind == model.KindMaintenance {
			h.Impact = model.ImpactMaintenance
			if h.Status == model.StatusResolved {
				h.Status = model.StatusCompleted
			}
		}
		out = append(out, h)
	}
	for i := range out {
		// An archived version decoded from JSON may hold nil for an empty list.
		if out[i].Components == nil {
			out[i].Components = []string{}
		}
		if out[i].Updates == nil {
			out[i].Updates = []model.Update{}
		}
	}
	return out
}

// ---- summary.json ----

type insSummary struct {
	Page *struct {
		Name string `json:"name"`
		URL  string `json:"url"`
		// Status is the page's: UP, HASISSUES, UNDERMAINTENANCE by the documentation, and
		// undocumented words in the wild (ONEMAJOROUTAGE). It says nothing an incident
		// does not, so it is read as a string whatever it holds, and kept only as the
		// page status of the component states.
		Status string `json:"status"`
	} `json:"page"`
	// The lists are left out when empty (Perplexity's page has no activeMaintenances):
	// missing or null is empty.
	ActiveIncidents    []insItem `json:"activeIncidents"`
	ActiveMaintenances []insItem `json:"activeMaintenances"`
}

type insItem struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Started  insTime     `json:"started"` // incidents
	Start    insTime     `json:"start"`   // maintenances
	Status   string      `json:"status"`
	Impact   string      `json:"impact"`
	URL      string      `json:"url"`
	Duration insDuration `json:"duration"` // maintenances, minutes
}

// decodeInstatusSummary decodes summary.json. A document without its page object is
// malformed, and so is an item that has neither id nor URL to know it by.
func decodeInstatusSummary(contentType string, body []byte) (*insSummary, error) {
	s, err := payload.Object(contentType, body, `"page" object`, func(s *insSummary) bool { return s.Page != nil })
	if err != nil {
		return nil, err
	}
	for i, list := range [][]insItem{s.ActiveIncidents, s.ActiveMaintenances} {
		key := [...]string{"activeIncidents", "activeMaintenances"}[i]
		if err := payload.Require(list, key+"[%d] has neither id nor url", func(it *insItem) bool { return it.id() != "" }); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *insSummary) pageName() string { return strings.TrimSpace(s.Page.Name) }

// id is the item's id, else the last segment of its URL (the documentation's example has
// no id: …/incident/cl4a8n3070721qtmzvts760c4).
func (it *insItem) id() string {
	if id := strings.TrimSpace(it.ID); id != "" {
		return id
	}
	return fetch.LastURLSegment(it.URL)
}

// open normalises the open items, incidents then maintenances.
func (s *insSummary) open(base *url.URL) []model.Incident {
	out := make([]model.Incident, 0, len(s.ActiveIncidents)+len(s.ActiveMaintenances))
	for i := range s.ActiveIncidents {
		out = append(out, s.ActiveIncidents[i].normalise(model.KindIncident, base))
	}
	for i := range s.ActiveMaintenances {
		out = append(out, s.ActiveMaintenances[i].normalise(model.KindMaintenance, base))
	}
	return out
}

func (it *insItem) normalise(kind model.Kind, base *url.URL) model.Incident {
	inc := model.Incident{
		ID:         it.id(),
		Kind:       kind,
		Status:     instatusStatus(it.Status, kind),
		StatusRaw:  it.Status,
		Impact:     instatusImpact(it.Impact, kind),
		ImpactRaw:  it.Impact,
		Title:      strings.TrimSpace(it.Name),
		StartedAt:  it.Started.t,
		URL:        it.URL,
		Components: []string{},
		Updates:    []model.Update{},
	}
	if kind == model.KindMaintenance {
		inc.ScheduledFor = it.Start.t
		if !inc.ScheduledFor.IsZero() && it.Duration.minutes > 0 {
			inc.ScheduledUntil = inc.ScheduledFor.Add(time.Duration(it.Duration.minutes) * time.Minute)
		}
		if inc.StartedAt.IsZero() {
			inc.StartedAt = inc.ScheduledFor
		}
	}
	if inc.URL == "" && base != nil {
		inc.URL = base.JoinPath(inc.ID).String()
	}
	return inc
}

// instatusStatus maps an Instatus status (INVESTIGATING, IDENTIFIED, MONITORING, RESOLVED;
// maintenances NOTSTARTEDYET, INPROGRESS, COMPLETED). An unknown word is read as the
// kind's first status: the item is listed, so it is open.
func instatusStatus(raw string, kind model.Kind) model.Status {
	switch strings.ToUpper(strings.TrimSpace(raw)) {
	case "NOTSTARTEDYET":
		return model.StatusScheduled
	case "INPROGRESS":
		return model.StatusInProgress
	}
	if s, ok := fetch.KnownStatus(raw); ok {
		return s
	}
	if kind == model.KindMaintenance {
		return model.StatusScheduled
	}
	return model.StatusInvestigating
}

// instatusImpact maps an Instatus impact to the nearest of the model's: MINOROUTAGE (and
// DEGRADEDPERFORMANCE) minor, PARTIALOUTAGE major, MAJOROUTAGE critical, OPERATIONAL none.
// Undocumented words are read by what they contain (ONEMAJOROUTAGE is a major outage,
// critical); anything else is unknown. Maintenance is always "maintenance".
func instatusImpact(raw string, kind model.Kind) model.Impact {
	if kind == model.KindMaintenance {
		return model.ImpactMaintenance
	}
	r := strings.ToUpper(strings.TrimSpace(raw))
	switch r {
	case "MINOROUTAGE", "DEGRADEDPERFORMANCE":
		return model.ImpactMinor
	case "PARTIALOUTAGE":
		return model.ImpactMajor
	case "MAJOROUTAGE":
		return model.ImpactCritical
	case "OPERATIONAL":
		return model.ImpactNone
	}
	switch {
	case strings.Contains(r, "MAJOR"):
		return model.ImpactCritical
	case strings.Contains(r, "PARTIAL"):
		return model.ImpactMajor
	case strings.Contains(r, "MINOR"), strings.Contains(r, "DEGRADED"):
		return model.ImpactMinor
	}
	return model.ImpactUnknown
}

// insTime reads a time Instatus writes as RFC 3339 ("2026-07-23T17:48:28.028Z"), as a
// JavaScript Date string (the documentation's "Sat Jun 11 2022 18:55:50 GMT+0000
// (Coordinated Universal Time)"), or as epoch milliseconds. Anything else is "not given",
// never an error.
type insTime struct{ t time.Time }

// UnmarshalJSON implements json.Unmarshaler for both encoding/json and json v2.
func (it *insTime) UnmarshalJSON(b []byte) error {
	it.t = time.Time{}
	b = bytes.TrimSpace(b)
	switch {
	case len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0:
		it.t = parseInstatusTime(string(b[1 : len(b)-1]))
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		if ms, err := strconv.ParseInt(string(b), 10, 64); err == nil && ms > 0 && ms < 1e14 {
			it.t = time.UnixMilli(ms).UTC()
		}
	}
	return nil
}

// parseInstatusTime reads the string forms of insTime.
func parseInstatusTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if t := payload.ParseTime(s); !t.IsZero() {
		return t
	}
	if i := strings.IndexByte(s, '('); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	for _, layout := range []string{"Mon Jan 02 2006 15:04:05 GMT-0700", "Mon Jan 2 2006 15:04:05 GMT-0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// insDuration reads a maintenance's duration in minutes, a number or a string of one
// ("60" in the documentation); anything else is zero.
type insDuration struct{ minutes int }

// UnmarshalJSON implements json.Unmarshaler for both encoding/json and json v2.
func (d *insDuration) UnmarshalJSON(b []byte) error {
	d.minutes = 0
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 && f < 1e7 {
		d.minutes = int(f)
	}
	return nil
}

// checkInstatusOnly accepts Instatus's documented /summary.json and nothing else.
func checkInstatusOnly(contentType string, body []byte) (string, string, string) {
	kind, ev, why := checkInstatusV2(contentType, body)
	if kind == "" && why == "" {
		why = "not Instatus's shape (page.status is no upper-case word)"
	}
	return kind, ev, why
}

// checkInstatusV2 accepts Instatus's summary on Statuspage's /api/v2/summary.json; any
// other object with a page is left to Statuspage's check.
func checkInstatusV2(contentType string, body []byte) (string, string, string) {
	m, page, why := fetch.DecodeObjectAt(contentType, body, `a "page" object`, "page")
	if m == nil {
		return "", "", why
	}
	kind, ev := instatusShape(m, page)
	if kind == "" {
		return "", "", ""
	}
	if _, err := decodeInstatusSummary(contentType, body); err != nil {
		return "", "", "Instatus-like, but " + fetch.JSONWhy(err)
	}
	return kind, ev, ""
}

// statusWord is Instatus's page status: one upper-case word (UP, HASISSUES,
// UNDERMAINTENANCE, and ONEMAJOROUTAGE in the wild).
var statusWord = regexp.MustCompile(`^[A-Z]{2,32}$`)

// instatusShape recognises Instatus's summary: page.status one upper-case word, page.name,
// no Statuspage page id or status object, and active items (when listed) with a name,
// an upper-case status and an id or URL.
func instatusShape(m, page map[string]any) (kind, evidence string) {
	st, _ := fetch.StrAt(page, "status")
	if !statusWord.MatchString(st) {
		return "", ""
	}
	if _, ok := fetch.StrAt(page, "name"); !ok {
		return "", ""
	}
	if fetch.ObjAt(m, "status") != nil {
		return "", ""
	}
	if id, _ := fetch.StrAt(page, "id"); fetch.StatuspageID.MatchString(id) || fetch.ULID.MatchString(id) {
		return "", ""
	}
	var lists []string
	for _, key := range []string{"activeIncidents", "activeMaintenances"} {
		v, present := m[key]
		if !present || v == nil {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return "", ""
		}
		items, ok := fetch.Objects(list)
		if !ok {
			return "", ""
		}
		for _, it := range items {
			_, hasName := fetch.StrAt(it, "name")
			s, _ := fetch.StrAt(it, "status")
			if !hasName || !statusWord.MatchString(s) || !fetch.HasAny(it, "id", "url") {
				return "", ""
			}
		}
		lists = append(lists, key+"[]")
	}
	ev := fmt.Sprintf("has page.status %q", st)
	if len(lists) > 0 {
		ev += " and " + strings.Join(lists, " and ")
	}
	return Kind, ev + " (Instatus shape)"
}
