package instatus

// Instatus against the real payload of testdata/instatus (copied byte for byte from
// the real captures of testdata/instatus; provenance in testdata/SOURCES.md): Perplexity's
// summary.json with one open incident and the undocumented page status ONEMAJOROUTAGE.
//
// The other fixtures are synthetic:
//   - synthetic-instatus-summary-doc-example.json is the example response of Instatus's
//     documentation, https://instatus.com/help/api/public-data (items without ids, times as
//     JavaScript Date strings, a maintenance with a duration);
//   - synthetic-instatus-history.atom is a page's /history.atom, for which Instatus
//     documents no schema; its top says what its shape rests on;
//   - synthetic-instatus-components.json is a page's /v2/components.json, the public
//     component list beside the summary: no real capture was found, so its shape (a
//     "components" list of id, name, upper-case status, and group {id, name} naming the
//     group a member is listed under, the group itself listed too) rests on the clients
//     that read it, such as the Instatus provider of the home-assistant statuspage monitor
//     integrations, and Instatus's status words (OPERATIONAL, UNDERMAINTENANCE,
//     DEGRADEDPERFORMANCE, PARTIALOUTAGE, MAJOROUTAGE).

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/historyfeed"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

const (
	pInsSummary    = "/summary.json"
	pInsHistory    = "/history.atom"
	pInsComponents = "/v2/components.json"
	insOpenID      = "cmrxt1rlu000f0zlcv4dzmdlr"
)

// insBase is the page the items' URLs are made under.
var insBase, _ = url.Parse("https://status.openai.com/")

func insData(tb testing.TB, name string) []byte { return fetchtest.Testdata(tb, "instatus", name) }

func TestInstatusRealSummary(t *testing.T) {
	s, err := decodeInstatusSummary("application/json", insData(t, "perplexity-summary-2026-07-23.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.pageName() != "Perplexity" || s.Page.Status != "ONEMAJOROUTAGE" {
		t.Errorf("got page %+v", s.Page)
	}
	open := s.open(insBase)
	if len(open) != 1 {
		t.Fatalf("got %d open items, want 1 (no activeMaintenances list: none)", len(open))
	}
	inc := open[0]
	want := model.Incident{
		ID:         insOpenID,
		Kind:       model.KindIncident,
		Status:     model.StatusMonitoring,
		StatusRaw:  "MONITORING",
		Impact:     model.ImpactCritical,
		ImpactRaw:  "MAJOROUTAGE",
		Title:      "Computer sandbox issues",
		StartedAt:  fetchtest.MustTime("2026-07-23T17:48:28.028Z"),
		URL:        "https://status.perplexity.com/" + insOpenID,
		Components: []string{},
		Updates:    []model.Update{},
	}
	if !reflect.DeepEqual(inc, want) {
		t.Errorf("got\n%+v\nwant\n%+v", inc, want)
	}
}

func TestInstatusDocExample(t *testing.T) {
	s, err := decodeInstatusSummary("application/json", insData(t, "synthetic-instatus-summary-doc-example.json"))
	if err != nil {
		t.Fatal(err)
	}
	open := s.open(insBase)
	if len(open) != 2 {
		t.Fatalf("got %d items, want an incident and a maintenance", len(open))
	}
	inc, mnt := open[0], open[1]
	if inc.ID != "cl4a8n3070721qtmzvts760c4" || inc.Status != model.StatusInvestigating || inc.Impact != model.ImpactCritical ||
		!inc.StartedAt.Equal(fetchtest.MustTime("2022-06-11T18:55:50Z")) {
		t.Errorf("incident: got %+v, want the id from its URL and the JavaScript date read", inc)
	}
	if mnt.ID != "cl4a8nlv50918qtmzdlw60ivu" || mnt.Kind != model.KindMaintenance || mnt.Status != model.StatusScheduled ||
		mnt.StatusRaw != "NOTSTARTEDYET" || mnt.Impact != model.ImpactMaintenance ||
		!mnt.ScheduledFor.Equal(fetchtest.MustTime("2022-06-11T18:55:54Z")) || !mnt.ScheduledUntil.Equal(fetchtest.MustTime("2022-06-11T19:55:54Z")) ||
		!mnt.StartedAt.Equal(mnt.ScheduledFor) {
		t.Errorf("maintenance: got %+v, want scheduled for an hour", mnt)
	}
}

func TestInstatusMaps(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		kind model.Kind
		want model.Impact
	}{
		{"MINOROUTAGE", model.KindIncident, model.ImpactMinor},
		{"PARTIALOUTAGE", model.KindIncident, model.ImpactMajor},
		{"MAJOROUTAGE", model.KindIncident, model.ImpactCritical},
		{"DEGRADEDPERFORMANCE", model.KindIncident, model.ImpactMinor},
		{"OPERATIONAL", model.KindIncident, model.ImpactNone},
		{"ONEMAJOROUTAGE", model.KindIncident, model.ImpactCritical},
		{"SOMEPARTIALOUTAGES", model.KindIncident, model.ImpactMajor},
		{"majoroutage", model.KindIncident, model.ImpactCritical},
		{"", model.KindIncident, model.ImpactUnknown},
		{"UNDERMAINTENANCE", model.KindIncident, model.ImpactUnknown},
		{"MAJOROUTAGE", model.KindMaintenance, model.ImpactMaintenance},
	} {
		if got := instatusImpact(tc.raw, tc.kind); got != tc.want {
			t.Errorf("impact %q (%s): got %s, want %s", tc.raw, tc.kind, got, tc.want)
		}
	}
	for _, tc := range []struct {
		raw  string
		kind model.Kind
		want model.Status
	}{
		{"INVESTIGATING", model.KindIncident, model.StatusInvestigating},
		{"IDENTIFIED", model.KindIncident, model.StatusIdentified},
		{"MONITORING", model.KindIncident, model.StatusMonitoring},
		{"RESOLVED", model.KindIncident, model.StatusResolved},
		{"NOTSTARTEDYET", model.KindMaintenance, model.StatusScheduled},
		{"INPROGRESS", model.KindMaintenance, model.StatusInProgress},
		{"COMPLETED", model.KindMaintenance, model.StatusCompleted},
		{"SOMETHINGNEW", model.KindIncident, model.StatusInvestigating},
		{"SOMETHINGNEW", model.KindMaintenance, model.StatusScheduled},
	} {
		if got := instatusStatus(tc.raw, tc.kind); got != tc.want {
			t.Errorf("status %q (%s): got %s, want %s", tc.raw, tc.kind, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{`"2026-07-23T17:48:28.028Z"`, fetchtest.MustTime("2026-07-23T17:48:28.028Z")},
		{`"Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)"`, fetchtest.MustTime("2022-06-11T18:55:50Z")},
		{`"Sat Jun 11 2022 20:55:50 GMT+0200 (Central European Summer Time)"`, fetchtest.MustTime("2022-06-11T18:55:50Z")},
		{`1654973750000`, fetchtest.MustTime("2022-06-11T18:55:50Z")},
		{`"yesterday"`, time.Time{}},
		{`null`, time.Time{}},
		{`true`, time.Time{}},
	} {
		var it insTime
		if err := it.UnmarshalJSON([]byte(tc.in)); err != nil || !it.t.Equal(tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.in, it.t, err, tc.want)
		}
	}
}

func TestInstatusMalformed(t *testing.T) {
	for _, tc := range []struct{ name, ct, body string }{
		{"html", "text/html", "<!DOCTYPE html><html><body>Status</body></html>"},
		{"empty", "application/json", ""},
		{"truncated", "application/json", string(insData(t, "perplexity-summary-2026-07-23.json")[:200])},
		{"no page", "application/json", `{"activeIncidents":[]}`},
		{"list of the wrong type", "application/json", `{"page":{"name":"X"},"activeIncidents":{}}`},
		{"item without id or url", "application/json", `{"page":{"name":"X"},"activeIncidents":[{"name":"down"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeInstatusSummary(tc.ct, []byte(tc.body)); !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
		})
	}
	// Healthy: the lists left out, or null.
	for _, body := range []string{`{"page":{"name":"X","status":"UP"}}`, `{"page":{"name":"X"},"activeIncidents":null,"activeMaintenances":[]}`} {
		s, err := decodeInstatusSummary("application/json", []byte(body))
		if err != nil || len(s.open(insBase)) != 0 {
			t.Errorf("%s: got %v, %v; want a healthy page", body, s, err)
		}
	}
}

func TestInstatusHistory(t *testing.T) {
	f, err := historyfeed.Parse(insData(t, "synthetic-instatus-history.atom"))
	if err != nil {
		t.Fatal(err)
	}
	hist := instatusHistory(f, fetchtest.PollNow)
	var got []string
	for _, inc := range hist {
		fetchtest.CheckFeedIncident(t, inc)
		got = append(got, inc.ID+" "+string(inc.Kind)+" "+string(inc.Status))
	}
	want := []string{
		insOpenID + " incident monitoring",
		"cmrx0qv2k000a0zlc3pd7f1ab incident resolved",
		"cmrw8mnt0000b0zlc5kq2e9zz maintenance completed",
		"cmrxs9e7d000c0zlc8hn4w2cd incident identified",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q (ids as the summary has them)", got, want)
	}
	// Oldest first in the document: the first paragraph is the oldest update.
	if u := hist[0].Updates; len(u) != 2 || u[0].Status != model.StatusInvestigating || !u[0].PostedAt.Equal(fetchtest.MustTime("2026-07-23T17:48:00Z")) {
		t.Errorf("got updates %+v", u)
	}
}

// insPage serves the real summary and the synthetic history.
func insPage(t *testing.T) *fetchtest.FakePage {
	page := fetchtest.NewFakePage()
	page.Set(pInsSummary, fetchtest.Route{Body: insData(t, "perplexity-summary-2026-07-23.json")})
	page.Set(pInsHistory, fetchtest.Route{Body: insData(t, "synthetic-instatus-history.atom"), ContentType: "application/atom+xml"})
	page.Set(pInsComponents, fetchtest.Route{Body: insData(t, "synthetic-instatus-components.json")})
	return page
}

func insProvider(t *testing.T) fetch.Provider {
	t.Helper()
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func snapshotIDs(s *model.Snapshot) []string {
	var ids []string
	for _, inc := range s.Incidents {
		ids = append(ids, inc.ID+" "+string(inc.Status))
	}
	return ids
}

func TestInstatusPoll(t *testing.T) {
	page := insPage(t)
	srv := fetchtest.NewServer(t, page)
	p := insProvider(t)
	src := model.Source{Name: "perplexity", URL: srv.URL, Kind: Kind, Maintenance: true}
	ctx := context.Background()

	r1, err := p.Poll(ctx, fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pInsSummary, pInsHistory, pInsComponents}; !slices.Equal(got, want) {
		t.Fatalf("first poll: got requests %v, want %v", got, want)
	}
	s := r1.Snapshot
	if s == nil || !s.OpenOnly || s.PageTitle != "Perplexity" || !s.FetchedAt.Equal(fetchtest.PollNow) {
		t.Fatalf("first poll: got %+v", s)
	}
	if want := []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}; !reflect.DeepEqual(s.Listings, want) {
		t.Errorf("got listings %+v, want the whole (open) page", s.Listings)
	}
	// The open incident, then the entries the feed says are over; the entry the feed has
	// as open but the summary does not list is left to the summary (and the inference).
	want := []string{insOpenID + " monitoring", "cmrx0qv2k000a0zlc3pd7f1ab resolved", "cmrw8mnt0000b0zlc5kq2e9zz completed"}
	if got := snapshotIDs(s); !reflect.DeepEqual(got, want) {
		t.Errorf("got incidents %q, want %q", got, want)
	}
	open := s.Incidents[0]
	if open.Impact != model.ImpactCritical || open.StatusRaw != "MONITORING" || !open.StartedAt.Equal(fetchtest.MustTime("2026-07-23T17:48:28.028Z")) || len(open.Updates) != 2 {
		t.Errorf("open incident: got %+v, want the summary's fields with the feed's timeline", open)
	}
	closed := s.Incidents[1]
	if closed.Impact != model.ImpactUnknown || !closed.ResolvedAt.Equal(fetchtest.MustTime("2026-07-22T10:15:00Z")) || len(closed.Updates) != 3 {
		t.Errorf("closed incident: got %+v", closed)
	}
	if mnt := s.Incidents[2]; mnt.Kind != model.KindMaintenance || mnt.Impact != model.ImpactMaintenance {
		t.Errorf("maintenance: got %+v", mnt)
	}
	if cs := s.Components; cs == nil || cs.PageStatus != "ONEMAJOROUTAGE" || len(cs.List) != 5 {
		t.Errorf("first poll: got components %+v, want the list's five with the summary's page status", cs)
	}
	if r1.Requests != 3 || len(r1.Bodies) != 3 || r1.State[instatusOpenSet].Hash == "" {
		t.Errorf("first poll: got %d requests, %d bodies, state %+v", r1.Requests, len(r1.Bodies), r1.State)
	}

	// Second poll, identical: nothing parsed.
	r2, err := p.Poll(ctx, fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pInsSummary, pInsHistory, pInsComponents}) {
		t.Errorf("second poll: got requests %v", got)
	}
	if r2.Snapshot != nil || r2.StateChanged(r1.State) {
		t.Errorf("second poll: got %+v, want nothing parsed", r2.Snapshot)
	}

	// Third poll: the feed changed; the summary and the component list are read again in
	// full, the component states not taken from them (neither changed).
	page.Set(pInsHistory, fetchtest.Route{Body: []byte(strings.Replace(string(insData(t, "synthetic-instatus-history.atom")), "we are monitoring the results", "we keep monitoring", 1))})
	r3, err := p.Poll(ctx, fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pInsSummary, pInsHistory, pInsComponents, pInsSummary, pInsComponents}; !slices.Equal(got, want) {
		t.Errorf("feed changed: got requests %v, want %v", got, want)
	}
	if r3.Snapshot == nil || r3.Snapshot.Incidents[0].Updates[1].Body != "A fix has been deployed and we keep monitoring." {
		t.Fatalf("feed changed: got %+v", r3.Snapshot)
	}
	if r3.Snapshot.Components != nil {
		t.Errorf("feed changed: got components %+v, want none read", r3.Snapshot.Components)
	}
	if u1, u3 := s.Incidents[0].Updates[1], r3.Snapshot.Incidents[0].Updates[1]; u1.ID != u3.ID {
		t.Errorf("edited update: got id %s, want %s kept", u3.ID, u1.ID)
	}

	// Conditional GET: validators are sent and a 304 is not parsed.
	page.Set(pInsSummary, fetchtest.Route{Body: insData(t, "perplexity-summary-2026-07-23.json"), ETag: `"s1"`})
	r4, err := p.Poll(ctx, fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	r5, err := p.Poll(ctx, fetch.Request{Source: src, State: r4.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Requests(); len(got) != 3 || got[0].IfNoneMatch != `"s1"` || r5.Snapshot != nil {
		t.Errorf("conditional: got requests %+v, snapshot %v", got, r5.Snapshot)
	}

	// A component changed state alone: the states are read, with the summary and feed
	// read again in full.
	page.Set(pInsComponents, fetchtest.Route{Body: []byte(strings.Replace(string(insData(t, "synthetic-instatus-components.json")), `"MAJOROUTAGE"`, `"OPERATIONAL"`, 1))})
	r6, err := p.Poll(ctx, fetch.Request{Source: src, State: r5.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if r6.Snapshot == nil || r6.Snapshot.Components == nil || slices.ContainsFunc(r6.Snapshot.Components.List, func(c model.Component) bool { return c.Status == model.ComponentMajorOutage }) {
		t.Errorf("component changed: got %+v", r6.Snapshot)
	}
}

// TestInstatusComponents: the component list's states, by Instatus's words; a group is not
// a component of its own, its members carry its name; the page status is the summary's.
func TestInstatusComponents(t *testing.T) {
	c, err := decodeInstatusComponents("application/json", insData(t, "synthetic-instatus-components.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.states("HASISSUES")
	want := &model.Components{PageStatus: "HASISSUES", List: []model.Component{
		{ID: "cmcmp0000000000000000006", Name: "Billing", Status: model.ComponentMaintenance, StatusRaw: "UNDERMAINTENANCE"},
		{ID: "cmcmp0000000000000000005", Name: "Computer", Status: model.ComponentMajorOutage, StatusRaw: "MAJOROUTAGE"},
		{ID: "cmcmp0000000000000000004", Name: "Website", Status: model.ComponentDegraded, StatusRaw: "DEGRADEDPERFORMANCE"},
		{ID: "cmcmp0000000000000000003", Name: "Chat API", Group: "API", Status: model.ComponentOperational, StatusRaw: "OPERATIONAL"},
		{ID: "cmcmp0000000000000000002", Name: "Search API", Group: "API", Status: model.ComponentPartialOutage, StatusRaw: "PARTIALOUTAGE"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if w := insComponentWords.Status("REROUTED"); w != fetch.UnknownComponentStatus {
		t.Errorf("unknown word: got %s", w)
	}
	for _, bad := range []string{`{"page":{}}`, `<html></html>`, ``} {
		if _, err := decodeInstatusComponents("application/json", []byte(bad)); !errors.Is(err, payload.ErrMalformed) {
			t.Errorf("%q: got %v, want ErrMalformed", bad, err)
		}
	}
}

func TestInstatusWithoutHistory(t *testing.T) {
	page := insPage(t)
	page.Set(pInsHistory, fetchtest.Route{Status: http.StatusNotFound, Body: []byte("no"), ContentType: "text/plain"})
	page.Set(pInsSummary, fetchtest.Route{Body: []byte(`{"page":{"name":"Perplexity","url":"https://status.perplexity.com","status":"UP"}}`)})
	srv := fetchtest.NewServer(t, page)
	res, err := insProvider(t).Poll(context.Background(), fetch.Request{Source: model.Source{Name: "p", URL: srv.URL}, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	// An empty summary is a healthy page: a snapshot with its listings and no incident.
	if s := res.Snapshot; s == nil || !s.OpenOnly || len(s.Incidents) != 0 || len(s.Listings) != 2 {
		t.Errorf("got %+v, want a healthy open-only snapshot", s)
	}
	if _, ok := res.State[EndpointHistory]; ok {
		t.Errorf("got state for the absent history: %+v", res.State)
	}
	// Failures that may pass fail the poll; HTML is malformed.
	page.Set(pInsHistory, fetchtest.Route{Status: http.StatusBadGateway})
	if _, err := insProvider(t).Poll(context.Background(), fetch.Request{Source: model.Source{Name: "p", URL: srv.URL}, Now: fetchtest.PollNow}); err == nil {
		t.Error("history 502: got no error")
	}
	page.Set(pInsHistory, fetchtest.Route{Body: insData(t, "synthetic-instatus-history.atom")})
	page.Set(pInsSummary, fetchtest.Route{Body: []byte("<!DOCTYPE html><html>Just a moment...</html>"), ContentType: "text/html"})
	if _, err := insProvider(t).Poll(context.Background(), fetch.Request{Source: model.Source{Name: "p", URL: srv.URL}, Now: fetchtest.PollNow}); !errors.Is(err, payload.ErrMalformed) {
		t.Errorf("html summary: got %v, want ErrMalformed", err)
	}
}

// insArchive polls Instatus and records each result in a real archive, as the daemon
// does: the fetch state and Archived come from the archive.
type insArchive struct {
	t     *testing.T
	store *archive.Store
	prov  fetch.Provider
	src   model.Source
	state model.FetchState
	now   time.Time
}

func newInsArchive(t *testing.T, url string) *insArchive {
	store, err := archive.Open(filepath.Join(t.TempDir(), "watcher.db"), archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &insArchive{t: t, store: store, prov: insProvider(t), src: model.Source{Name: "perplexity", URL: url}, now: fetchtest.PollNow}
}

func (a *insArchive) poll() (*fetch.Result, archive.Result) {
	a.t.Helper()
	defer func() { a.now = a.now.Add(2 * time.Minute) }()
	res, err := a.prov.Poll(context.Background(), fetch.Request{
		Source: a.src,
		State:  a.state,
		Archived: func(id string) *model.Incident {
			inc, err := a.store.Latest(a.src.Name, id)
			if err != nil {
				a.t.Fatal(err)
			}
			return inc
		},
		Now: a.now,
	})
	if err != nil {
		a.t.Fatal(err)
	}
	if res.Snapshot == nil && !res.StateChanged(a.state) {
		return res, archive.Result{}
	}
	r, err := a.store.Record(a.src.Name, res.Snapshot, res.State, res.Bodies, archive.Policy{})
	if err != nil {
		a.t.Fatal(err)
	}
	a.state = res.State
	return res, r
}

func (a *insArchive) latest(id string) *model.Incident {
	inc, err := a.store.Latest(a.src.Name, id)
	if err != nil || inc == nil {
		a.t.Fatalf("latest %s: %v, %v", id, inc, err)
	}
	return inc
}

// The summary stops listing the incident while the feed still has it open: the summary
// decides, and the archive resolves it by inference after two polls without it, although
// the answers after the first are byte-identical.
func TestInstatusArchiveInference(t *testing.T) {
	page := insPage(t)
	srv := fetchtest.NewServer(t, page)
	a := newInsArchive(t, srv.URL)
	if _, r := a.poll(); r.Changed != 3 {
		t.Fatalf("first poll: got %+v, want 3 incidents archived", r)
	}
	page.Set(pInsSummary, fetchtest.Route{Body: []byte(`{"page":{"name":"Perplexity","url":"https://status.perplexity.com","status":"UP"}}`)})
	if res, r := a.poll(); res.Snapshot == nil || r.Changed != 0 || r.Resolved != 0 {
		t.Fatalf("first miss: got %+v, %+v", res.Snapshot, r)
	}
	if a.latest(insOpenID).Status != model.StatusMonitoring {
		t.Error("first miss: resolved already")
	}
	page.Requests()
	res, r := a.poll()
	if got, want := page.Paths(), []string{pInsSummary, pInsHistory, pInsComponents, pInsSummary, pInsHistory, pInsComponents}; !slices.Equal(got, want) {
		t.Errorf("second miss: got requests %v, want the unchanged answers read again in full", got)
	}
	if res.Snapshot == nil || r.Resolved != 1 {
		t.Fatalf("second miss: got %+v, %+v; want the incident resolved", res.Snapshot, r)
	}
	inc := a.latest(insOpenID)
	if inc.Status != model.StatusResolved || !inc.ResolvedInferred || !inc.ResolvedAt.Equal(fetchtest.PollNow.Add(2*time.Minute)) || inc.Impact != model.ImpactCritical {
		t.Errorf("got %+v, want resolved by inference at the first miss", inc)
	}
	// Once confirmed, identical answers are not parsed again.
	if res, _ := a.poll(); res.Snapshot != nil {
		t.Errorf("third identical poll: got a snapshot")
	}
}

// The feed says the incident is resolved when the summary drops it: it is recorded as the
// feed has it, with its resolving update, and keeps the summary's impact and start.
func TestInstatusArchiveFeedResolves(t *testing.T) {
	page := insPage(t)
	srv := fetchtest.NewServer(t, page)
	a := newInsArchive(t, srv.URL)
	a.poll()
	history := strings.Replace(string(insData(t, "synthetic-instatus-history.atom")),
		"we are monitoring the results.&lt;/p&gt;</content>",
		"we are monitoring the results.&lt;/p&gt;&lt;p&gt;&lt;small&gt;Jul 23, 2026 18:30 UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Resolved&lt;/strong&gt; - Sandboxes start normally again.&lt;/p&gt;</content>", 1)
	if !strings.Contains(history, "Sandboxes start normally") {
		t.Fatal("fixture changed: the edit did not apply")
	}
	page.Set(pInsHistory, fetchtest.Route{Body: []byte(history)})
	page.Set(pInsSummary, fetchtest.Route{Body: []byte(`{"page":{"name":"Perplexity","url":"https://status.perplexity.com","status":"UP"}}`)})
	if _, r := a.poll(); r.Changed != 1 || r.Resolved != 0 {
		t.Fatalf("got %+v, want one change, not an inference", r)
	}
	inc := a.latest(insOpenID)
	if inc.Status != model.StatusResolved || inc.ResolvedInferred || !inc.ResolvedAt.Equal(fetchtest.MustTime("2026-07-23T18:30:00Z")) ||
		inc.Impact != model.ImpactCritical || inc.ImpactRaw != "MAJOROUTAGE" || !inc.StartedAt.Equal(fetchtest.MustTime("2026-07-23T17:48:28.028Z")) ||
		len(inc.Updates) != 3 {
		t.Errorf("got %+v, want resolved by the feed, impact and start carried over", inc)
	}
	vs, err := a.store.Versions(a.src.Name, insOpenID)
	if err != nil || len(vs) != 2 {
		t.Fatalf("got %d versions, %v", len(vs), err)
	}
	var fields []string
	for _, c := range vs[1].Changes {
		fields = append(fields, c.Field)
	}
	if slices.Contains(fields, "impact") || slices.Contains(fields, "started_at") || !slices.Contains(fields, "status") {
		t.Errorf("got changes %q, want status and the new update, not impact or start", fields)
	}
}

// FuzzInstatus feeds arbitrary bytes to the summary decoder and the join, seeded with every
// Instatus fixture. They must reject what they cannot read with an error and never panic.
func FuzzInstatus(f *testing.F) {
	fetchtest.AddSeeds(f, "instatus")
	f.Add([]byte(`{"page":{"status":7},"activeIncidents":[{"url":"/","started":1e400,"impact":null}],"activeMaintenances":[{"id":"m","duration":"-5","start":"Sat Feb 31 2022"}]}`))
	f.Add([]byte(`{"components":[{"id":"g","name":"G","status":"X"},{"id":"a","name":"A","group":{"id":"g","name":"G"}},{"id":"a","name":"A"},{"name":"","group":{}}]}`))
	hist, err := historyfeed.Parse(insData(f, "synthetic-instatus-history.atom"))
	if err != nil {
		f.Fatal(err)
	}
	history := instatusHistory(hist, fetchtest.PollNow)
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := decodeInstatusComponents("application/json", data); err == nil {
			fetchtest.CheckComponents(t, c.states("UP"))
		}
		s, err := decodeInstatusSummary("application/json", data)
		if err != nil {
			if !errors.Is(err, payload.ErrMalformed) {
				t.Fatalf("got %v, want ErrMalformed", err)
			}
			return
		}
		for _, inc := range joinInstatus(s.open(insBase), history, nil) {
			if inc.ID == "" || !slices.IsSorted(inc.Components) {
				t.Fatalf("bad incident %+v", inc)
			}
		}
	})
}

// TestInstatusContract: the contract every platform keeps.
func TestInstatusContract(t *testing.T) {
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "perplexity", URL: base} },
		Routes: map[string]fetchtest.Route{
			pInsSummary:    {Body: insData(t, "perplexity-summary-2026-07-23.json")},
			pInsHistory:    {Body: insData(t, "synthetic-instatus-history.atom"), ContentType: "application/atom+xml"},
			pInsComponents: {Body: insData(t, "synthetic-instatus-components.json")},
		},
		Main: pInsSummary,
	}.Run(t)
}
