package cachet

// The Cachet adapter. No real Cachet payload exists (testdata/SOURCES.md
// lists it as searched for and not found), so testdata/cachet holds synthetic-* fixtures
// written from Cachet's API v1 documentation (https://docs.cachethq.io/reference#get-incidents,
// #get-components: data + meta.pagination) and from Cachet 2.4's source, which fixes the
// fields: the incident model's casts and eager-loaded "updates", the presenters' added
// human_status/permalink and "Y-m-d H:i:s" times (github.com/cachethq/cachet,
// app/Models/Incident.php, app/Presenters/Incident*Presenter.php). Incident 9, status 0
// "scheduled", is the Cachet ≤ 2.3 shape of a maintenance, kept among the incidents there.
// synthetic-cachet-component-groups.json is /api/v1/components/groups in the same shape
// (data + meta.pagination; the group model's id, name, order, collapsed, visible).

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

var cachetBase, _ = url.Parse("https://status.example.org/")

func cachetNames(t *testing.T) map[string]string {
	t.Helper()
	cl, err := decodeCachetComponents("application/json", fetchtest.Testdata(t, "cachet", "synthetic-cachet-components.json"))
	if err != nil {
		t.Fatal(err)
	}
	return cl.names()
}

func decodeCachetFixture(t *testing.T, body []byte, names map[string]string) ([]model.Incident, []model.Listing) {
	t.Helper()
	l, err := decodeCachetIncidents("application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	incs, listings := l.normalise(names, cachetBase, fetchtest.PollNow)
	fetchtest.CheckIncidents(t, incs)
	return incs, listings
}

func TestCachetIncidents(t *testing.T) {
	names := cachetNames(t)
	if want := map[string]string{"3": "API", "4": "Dashboard", "5": "Database"}; !reflect.DeepEqual(names, want) {
		t.Errorf("got component names %v, want %v", names, want)
	}
	incs, listings := decodeCachetFixture(t, fetchtest.Testdata(t, "cachet", "synthetic-cachet-incidents.json"), names)
	if want := []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}; !reflect.DeepEqual(listings, want) {
		t.Errorf("got listings %+v, want the whole history (3 of 3)", listings)
	}
	type upd struct {
		id     string
		status model.Status
		posted string
		body   string
	}
	want := []struct {
		id, title  string
		kind       model.Kind
		status     model.Status
		raw        string
		impact     model.Impact
		components []string
		started    string
		resolved   string
		scheduled  string
		updates    []upd
	}{
		{"12", "Elevated API error rates", model.KindIncident, model.StatusMonitoring, "3", model.ImpactUnknown, []string{"API"},
			"2026-08-17T14:02:00Z", "", "", []upd{
				{fetch.UpdateKey("12", "2026-08-17T14:05:11Z", 0), "", "2026-08-17T14:05:11Z", "We are seeing **elevated error rates** on the public API."},
				{"30", model.StatusIdentified, "2026-08-17T14:40:00Z", "The cause is a faulty deploy of the API gateway; we are rolling it back."},
				{"31", model.StatusMonitoring, "2026-08-17T15:10:00Z", "A fix has been deployed and we are monitoring the results."},
			}},
		{"11", "Dashboard login failures", model.KindIncident, model.StatusResolved, "4", model.ImpactUnknown, []string{},
			"2026-08-10T08:50:00Z", "2026-08-10T09:30:00Z", "", []upd{
				{fetch.UpdateKey("11", "2026-08-10T08:55:00Z", 0), "", "2026-08-10T08:55:00Z", "Some users cannot log in to the dashboard."},
				{"28", model.StatusInvestigating, "2026-08-10T09:05:00Z", "We are still investigating."},
				{"29", model.StatusResolved, "2026-08-10T09:30:00Z", "Logins work again for everyone."},
			}},
		{"9", "Database maintenance", model.KindMaintenance, model.StatusScheduled, "0", model.ImpactMaintenance, []string{"Database"},
			"2026-08-05T12:00:00Z", "", "2026-08-20T02:00:00Z", []upd{
				{fetch.UpdateKey("9", "2026-08-05T12:00:00Z", 0), model.StatusScheduled, "2026-08-05T12:00:00Z", "The primary database is upgraded; writes pause for up to 10 minutes."},
			}},
	}
	if len(incs) != len(want) {
		t.Fatalf("got %d incidents, want %d", len(incs), len(want))
	}
	opt := func(s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		return fetchtest.MustTime(s)
	}
	for i, w := range want {
		got := incs[i]
		t.Run(w.id, func(t *testing.T) {
			if got.ID != w.id || got.Title != w.title || got.Kind != w.kind || got.Status != w.status || got.StatusRaw != w.raw || got.Impact != w.impact || got.ImpactRaw != "" {
				t.Errorf("got %s %q %s %s (%s) %s, want %s %q %s %s (%s) %s", got.ID, got.Title, got.Kind, got.Status, got.StatusRaw, got.Impact, w.id, w.title, w.kind, w.status, w.raw, w.impact)
			}
			if !reflect.DeepEqual(got.Components, w.components) {
				t.Errorf("got components %q, want %q", got.Components, w.components)
			}
			if !got.StartedAt.Equal(opt(w.started)) || !got.ResolvedAt.Equal(opt(w.resolved)) || !got.ScheduledFor.Equal(opt(w.scheduled)) {
				t.Errorf("got started %v resolved %v scheduled %v, want %s %s %s", got.StartedAt, got.ResolvedAt, got.ScheduledFor, w.started, w.resolved, w.scheduled)
			}
			if got.URL != "https://status.example.org/incidents/"+w.id {
				t.Errorf("got URL %q", got.URL)
			}
			var gotU []upd
			for _, u := range got.Updates {
				gotU = append(gotU, upd{u.ID, u.Status, u.PostedAt.Format(time.RFC3339), u.Body})
				if u.Format != model.FormatMarkdown {
					t.Errorf("update %s: got format %s, want markdown", u.ID, u.Format)
				}
			}
			if !reflect.DeepEqual(gotU, w.updates) {
				t.Errorf("got updates\n%v\nwant\n%v", gotU, w.updates)
			}
		})
	}
}

func TestCachetStatuses(t *testing.T) {
	for _, tc := range []struct {
		code string
		kind model.Kind
		want model.Status
	}{
		{"0", model.KindMaintenance, model.StatusScheduled},
		{"1", model.KindIncident, model.StatusInvestigating},
		{"2", model.KindIncident, model.StatusIdentified},
		{"3", model.KindIncident, model.StatusMonitoring},
		{"4", model.KindIncident, model.StatusResolved},
		{"9", model.KindIncident, model.StatusInvestigating},
		{"", model.KindIncident, model.StatusInvestigating},
	} {
		t.Run(tc.code, func(t *testing.T) {
			in := ctIncident{ID: "1", Name: "x", Status: payload.FlexID(tc.code), Message: "m", CreatedAt: "2026-01-01 00:00:00"}
			got := in.normalise(nil, cachetBase)
			if got.Kind != tc.kind || got.Status != tc.want || got.StatusRaw != tc.code {
				t.Errorf("got %s %s (%s), want %s %s (%s)", got.Kind, got.Status, got.StatusRaw, tc.kind, tc.want, tc.code)
			}
			// Without updates (Cachet ≤ 2.3) the message carries the incident's status.
			if got.Updates[0].Status != tc.want {
				t.Errorf("got message status %s, want %s", got.Updates[0].Status, tc.want)
			}
		})
	}
}

func TestCachetTimes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2026-08-17 14:02:00", "2026-08-17T14:02:00Z"},
		{"2026-08-17T14:02:00.000000Z", "2026-08-17T14:02:00Z"},
		{"2026-08-17T16:02:00+02:00", "2026-08-17T14:02:00Z"},
		{" 2026-08-17 14:02:00 ", "2026-08-17T14:02:00Z"},
	} {
		if got := parseCachetTime(tc.in); !got.Equal(fetchtest.MustTime(tc.want)) || got.Location() != time.UTC {
			t.Errorf("parseCachetTime(%q): got %v, want %s UTC", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "2026-13-45 99:00:00"} {
		if got := parseCachetTime(bad); !got.IsZero() {
			t.Errorf("parseCachetTime(%q): got %v, want zero", bad, got)
		}
	}
}

// TestCachetStableKeys: the incident's own message has no id; rewording it keeps its key.
func TestCachetStableKeys(t *testing.T) {
	body := fetchtest.Testdata(t, "cachet", "synthetic-cachet-incidents.json")
	incs, _ := decodeCachetFixture(t, body, nil)
	edited := bytes.Replace(body, []byte("Some users cannot log in"), []byte("Many users cannot log in"), 1)
	incs2, _ := decodeCachetFixture(t, edited, nil)
	a, b := fetchtest.ByID(t, incs, "11"), fetchtest.ByID(t, incs2, "11")
	for i := range a.Updates {
		if a.Updates[i].ID != b.Updates[i].ID {
			t.Errorf("update %d: id %s became %s", i, a.Updates[i].ID, b.Updates[i].ID)
		}
	}
	if b.Updates[0].Body != "Many users cannot log in to the dashboard." || a.Updates[0].Body == b.Updates[0].Body {
		t.Errorf("got bodies %q, %q", a.Updates[0].Body, b.Updates[0].Body)
	}
}

func TestCachetListing(t *testing.T) {
	doc := func(total int, ids ...string) []byte {
		var items []string
		for i, id := range ids {
			items = append(items, `{"id":`+id+`,"name":"n","status":4,"message":"m","occurred_at":"2026-08-1`+string(rune('1'+i))+` 10:00:00","created_at":"2026-08-10 10:00:00","updates":[]}`)
		}
		return []byte(`{"meta":{"pagination":{"total":` + strconv.Itoa(total) + `,"count":` + strconv.Itoa(len(ids)) + `,"per_page":50,"current_page":1,"total_pages":` + strconv.Itoa((total+49)/50) + `}},"data":[` + strings.Join(items, ",") + `]}`)
	}
	for _, tc := range []struct {
		name  string
		body  []byte
		since time.Time
	}{
		{"all of it", doc(3, "30", "20", "10"), time.Time{}},
		{"newest of more", doc(120, "30", "20", "10"), fetchtest.MustTime("2026-08-11T10:00:00Z")},
		// A Cachet that ignored sort=id&order=desc answered its oldest page: that covers nothing.
		{"oldest of more", doc(120, "10", "20", "30"), fetchtest.PollNow},
		{"no pagination, full page", []byte(`{"data":[` + strings.Repeat(`{"id":1},`, cachetListSize-1) + `{"id":1}]}`), fetchtest.PollNow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, listings := decodeCachetFixture(t, tc.body, nil)
			if listings[0].Since != tc.since || listings[1].Since != tc.since {
				t.Errorf("got listings %+v, want since %v", listings, tc.since)
			}
		})
	}
}

func TestCachetMalformed(t *testing.T) {
	real := fetchtest.Testdata(t, "cachet", "synthetic-cachet-incidents.json")
	for _, tc := range []struct {
		name, ct string
		body     []byte
	}{
		{"html", "text/html", []byte("<!DOCTYPE html><html><body>Cachet</body></html>")},
		{"empty", "application/json", []byte{}},
		{"truncated", "application/json", real[:len(real)/3]},
		{"no data", "application/json", []byte(`{"meta":{}}`)},
		{"data null", "application/json", []byte(`{"data":null}`)},
		{"error answer", "application/json", []byte(`{"errors":[{"status":404,"title":"Not Found"}]}`)},
		{"incident without id", "application/json", []byte(`{"data":[{"name":"x"}]}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeCachetIncidents(tc.ct, tc.body); !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("incidents: got %v, want ErrMalformed", err)
			}
			if _, err := decodeCachetComponents(tc.ct, tc.body); tc.name != "incident without id" && !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("components: got %v, want ErrMalformed", err)
			}
		})
	}
}

// queryLog wraps a handler and records each request's path and query.
type queryLog struct {
	h   http.Handler
	mu  sync.Mutex
	got []string
}

func (q *queryLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q.mu.Lock()
	q.got = append(q.got, r.URL.RequestURI())
	q.mu.Unlock()
	q.h.ServeHTTP(w, r)
}

func (q *queryLog) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.got
	q.got = nil
	return out
}

func TestCachetPoll(t *testing.T) {
	const (
		pInc    = "/api/v1/incidents"
		pComp   = "/api/v1/components"
		pGroups = "/api/v1/components/groups"
		qInc    = pInc + "?sort=id&order=desc&per_page=50"
		qComp   = pComp + "?per_page=1000"
		qGroups = pGroups + "?per_page=1000"
	)
	page := fetchtest.NewFakePage()
	incidents := fetchtest.Testdata(t, "cachet", "synthetic-cachet-incidents.json")
	components := fetchtest.Testdata(t, "cachet", "synthetic-cachet-components.json")
	page.Set(pInc, fetchtest.Route{Body: incidents, ETag: `"i1"`})
	page.Set(pComp, fetchtest.Route{Body: components, ETag: `"c1"`})
	page.Set(pGroups, fetchtest.Route{Body: fetchtest.Testdata(t, "cachet", "synthetic-cachet-component-groups.json")})
	log := &queryLog{h: page}
	srv := fetchtest.NewServer(t, log)
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	src := model.Source{Name: "acme", URL: srv.URL, Kind: Kind}

	// First poll: the incidents, the component list (their names, and the component
	// states) and, as the list is new, the groups' names.
	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := log.take(), []string{qInc, qComp, qGroups}; !slices.Equal(got, want) {
		t.Fatalf("first poll: got requests %v, want %v", got, want)
	}
	page.Requests()
	if s := r1.Snapshot; s == nil || len(s.Incidents) != 3 || !reflect.DeepEqual(fetchtest.ByID(t, s.Incidents, "12").Components, []string{"API"}) {
		t.Fatalf("first poll: got %+v", s)
	}
	if r1.Requests != 3 || len(r1.Bodies) != 3 || r1.Bodies[1].Endpoint != EndpointComponents || r1.Bodies[1].Data == nil {
		t.Errorf("first poll: got %d requests, bodies %+v", r1.Requests, r1.Bodies)
	}
	wantStates := &model.Components{List: []model.Component{
		{ID: "3", Name: "API", Group: "Platform", Status: model.ComponentPartialOutage, StatusRaw: "3"},
		{ID: "4", Name: "Dashboard", Group: "Platform", Status: model.ComponentOperational, StatusRaw: "1"},
		{ID: "5", Name: "Database", Group: "Storage", Status: model.ComponentOperational, StatusRaw: "1"},
	}}
	if !reflect.DeepEqual(r1.Snapshot.Components, wantStates) {
		t.Errorf("first poll: got components %+v, want %+v", r1.Snapshot.Components, wantStates)
	}

	// Second poll: the incidents and the component list answer 304: nothing parsed.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	reqs := page.Requests()
	log.take()
	if len(reqs) != 2 || reqs[0].Path != pInc || reqs[0].IfNoneMatch != `"i1"` || reqs[1].Path != pComp || reqs[1].IfNoneMatch != `"c1"` {
		t.Errorf("second poll: got requests %+v", reqs)
	}
	if r2.Snapshot != nil || r2.Requests != 2 || r2.StateChanged(r1.State) {
		t.Errorf("second poll: got %+v", r2)
	}

	// Third poll: the incidents changed; the component list (304) is read again, without
	// validators, for the names, and its bytes go with the evidence (the archive keeps one
	// copy per hash; that their hash is remembered does not mean an earlier poll stored
	// them). Its states did not change: none read.
	page.Set(pInc, fetchtest.Route{Body: bytes.Replace(incidents, []byte("monitoring the results"), []byte("watching the results"), 1), ETag: `"i2"`})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	reqs = page.Requests()
	log.take()
	if len(reqs) != 3 || reqs[1].Path != pComp || reqs[1].IfNoneMatch != `"c1"` || reqs[2].Path != pComp || reqs[2].IfNoneMatch != "" {
		t.Errorf("third poll: got requests %+v", reqs)
	}
	if r3.Snapshot == nil || len(r3.Bodies) != 2 || r3.Bodies[1].Data == nil || r3.Bodies[0].Data == nil || r3.Snapshot.Components != nil {
		t.Errorf("third poll: got %+v", r3)
	}
	if u := fetchtest.ByID(t, r3.Snapshot.Incidents, "12").Updates[2]; u.ID != "31" || u.Body != "A fix has been deployed and we are watching the results." {
		t.Errorf("third poll: got update %+v", u)
	}

	// Fourth poll: no incident names a component: the list is only asked whether it
	// changed (304), and its state is kept.
	page.Set(pInc, fetchtest.Route{Body: []byte(`{"meta":{"pagination":{"total":1,"count":1,"total_pages":1}},"data":[{"id":1,"component_id":0,"name":"x","status":1,"message":"m","created_at":"2026-08-18 10:00:00","updates":[]}]}`), ETag: `"i3"`})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pInc, pComp}) || r4.Snapshot == nil || r4.Snapshot.Components != nil {
		t.Errorf("fourth poll: got requests %v, snapshot %+v", got, r4.Snapshot)
	}
	log.take()
	if !r4.State[EndpointComponents].Equal(r3.State[EndpointComponents]) {
		t.Error("fourth poll: lost the state of the component list")
	}

	// Fifth poll: a component changed state without an incident: the states alone.
	page.Set(pComp, fetchtest.Route{Body: bytes.Replace(components, []byte(`"status": 3,`), []byte(`"status": 1,`), 1), ETag: `"c2"`})
	r5, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r4.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := log.take(), []string{qInc, qComp, qGroups}; !slices.Equal(got, want) {
		t.Errorf("fifth poll: got requests %v, want %v", got, want)
	}
	page.Requests()
	if s := r5.Snapshot; s == nil || len(s.Listings) != 0 || s.Components == nil || s.Components.List[0].Status != model.ComponentOperational {
		t.Errorf("fifth poll: got %+v, want the component states only", s)
	}

	// The groups failing: the states are left out, and the list is read again next time.
	page.Set(pComp, fetchtest.Route{Body: components, ETag: `"c3"`})
	page.Set(pGroups, fetchtest.Route{Status: http.StatusBadGateway})
	r6, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r5.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if r6.Snapshot != nil || !r6.State[EndpointComponents].Equal(r5.State[EndpointComponents]) {
		t.Errorf("groups failing: got %+v, state %+v; want no snapshot, the list's state kept", r6.Snapshot, r6.State[EndpointComponents])
	}

	// The component list failing fails the poll when the incidents need its names.
	page.Set(pInc, fetchtest.Route{Body: incidents})
	page.Set(pComp, fetchtest.Route{Body: []byte("<html>login</html>"), ContentType: "text/html"})
	r7, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if !errors.Is(err, payload.ErrMalformed) || r7.Snapshot != nil || r7.Requests != 2 {
		t.Errorf("bad components: got %+v, %v", r7, err)
	}
	page.Requests()

	// When they do not, the poll goes on without the states; a 404 is remembered.
	page.Set(pInc, fetchtest.Route{Body: []byte(`{"data":[{"id":1,"component_id":0,"name":"x","status":1,"message":"m","created_at":"2026-08-18 10:00:00","updates":[]}]}`)})
	page.Set(pComp, fetchtest.Route{Status: http.StatusNotFound})
	r8, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil || r8.Snapshot == nil || r8.Snapshot.Components != nil || r8.State[EndpointComponents].Absent.IsZero() {
		t.Errorf("no component list: got %+v, %v; want the incidents, the list remembered absent", r8, err)
	}
}

// TestCachetComponentWords: every component status code of Cachet, the words a Cachet
// may send instead, and what is neither.
func TestCachetComponentWords(t *testing.T) {
	for raw, want := range map[string]model.ComponentStatus{
		"1": model.ComponentOperational, "operational": model.ComponentOperational,
		"2": model.ComponentDegraded, "performance_issues": model.ComponentDegraded,
		"3": model.ComponentPartialOutage, "partial_outage": model.ComponentPartialOutage,
		"4": model.ComponentMajorOutage, "major_outage": model.ComponentMajorOutage,
		"under_maintenance": model.ComponentMaintenance,
		"0":                 fetch.UnknownComponentStatus,
		"":                  fetch.UnknownComponentStatus,
	} {
		if got := ctComponentWords.Status(raw); got != want {
			t.Errorf("%q: got %s, want %s", raw, got, want)
		}
	}
	// A status or group sent as an object is "not given", not a failed list; a disabled
	// component is not on the page.
	cl, err := decodeCachetComponents("application/json", []byte(`{"data":[{"id":1,"name":"A","status":{"value":2},"group_id":null,"enabled":1},
		{"id":2,"name":"B","status":"4","enabled":false},{"id":3,"name":"C","status":1,"enabled":0},{"id":4,"name":"D","status":1,"enabled":"yes"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if cs := cl.states().List; len(cs) != 2 || cs[0].Status != fetch.UnknownComponentStatus || cs[0].Group != "" || cs[1].Name != "D" {
		t.Errorf("got %+v, want A (status not given) and D", cs)
	}
}

// FuzzCachet feeds arbitrary bytes to both Cachet decoders, seeded with the synthetic
// fixtures. They must reject what they cannot read and never panic.
func FuzzCachet(f *testing.F) {
	fetchtest.AddSeeds(f, "cachet")
	f.Add([]byte(`{"data":[{"id":"a","status":"x","component_id":"7","updates":[{"id":null,"status":2},{"created_at":"bad"}]}]}`))
	f.Add([]byte(`{"data":[{"id":1,"name":"A","status":{"value":2},"group_id":[1]},{"id":1,"name":"A","status":"4","enabled":false},{"id":"2","name":"B","status":7,"group_id":"1"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var names map[string]string
		if cl, err := decodeCachetComponents("application/json", data); err == nil {
			names = cl.names()
			cl.groups, _ = decodeCachetGroups("application/json", data)
			fetchtest.CheckComponents(t, cl.states())
		}
		l, err := decodeCachetIncidents("application/json", data)
		if err != nil {
			return
		}
		incs, _ := l.normalise(names, cachetBase, fetchtest.PollNow)
		fetchtest.CheckIncidents(t, incs)
	})
}

// TestCachetContract: the contract every platform keeps.
func TestCachetContract(t *testing.T) {
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "cachet", URL: base} },
		Routes: map[string]fetchtest.Route{
			"/api/v1/incidents":  {Body: fetchtest.Testdata(t, "cachet", "synthetic-cachet-incidents.json")},
			"/api/v1/components": {Body: fetchtest.Testdata(t, "cachet", "synthetic-cachet-components.json")},
		},
		Main: "/api/v1/incidents",
	}.Run(t)
}
