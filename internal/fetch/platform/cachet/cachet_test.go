package cachet

// The Cachet adapter. No real Cachet payload exists (testdata/SOURCES.md
// lists it as searched for and not found), so testdata/cachet holds synthetic-* fixtures
// written from Cachet's API v1 documentation (https://docs.cachethq.io/reference#get-incidents,
// #get-components: data + meta.pagination) and from Cachet 2.4's source, which fixes the
// fields: the incident model's casts and eager-loaded "updates", the presenters' added
// human_status/permalink and "Y-m-d H:i:s" times (github.com/cachethq/cachet,
// app/Models/Incident.php, app/Presenters/Incident*Presenter.php). Incident 9, status 0
// "scheduled", is the Cachet ≤ 2.3 shape of a maintenance, kept among the incidents there.

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
	"github.com/statuswatch/statuswatch/internal/model"
)

var cachetBase, _ = url.Parse("https://status.example.org/")

func cachetNames(t *testing.T) map[string]string {
	t.Helper()
	names, err := decodeCachetComponents("application/json", fetchtest.Testdata(t, "cachet", "synthetic-cachet-components.json"))
	if err != nil {
		t.Fatal(err)
	}
	return names
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
			in := ctIncident{ID: "1", Name: "x", Status: fetch.FlexID(tc.code), Message: "m", CreatedAt: "2026-01-01 00:00:00"}
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
			if _, err := decodeCachetIncidents(tc.ct, tc.body); !errors.Is(err, fetch.ErrMalformed) {
				t.Errorf("incidents: got %v, want ErrMalformed", err)
			}
			if _, err := decodeCachetComponents(tc.ct, tc.body); tc.name != "incident without id" && !errors.Is(err, fetch.ErrMalformed) {
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
		pInc  = "/api/v1/incidents"
		pComp = "/api/v1/components"
		qInc  = pInc + "?sort=id&order=desc&per_page=50"
		qComp = pComp + "?per_page=1000"
	)
	page := fetchtest.NewFakePage()
	incidents := fetchtest.Testdata(t, "cachet", "synthetic-cachet-incidents.json")
	page.Set(pInc, fetchtest.Route{Body: incidents, ETag: `"i1"`})
	page.Set(pComp, fetchtest.Route{Body: fetchtest.Testdata(t, "cachet", "synthetic-cachet-components.json"), ETag: `"c1"`})
	log := &queryLog{h: page}
	srv := fetchtest.NewServer(t, log)
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	src := model.Source{Name: "acme", URL: srv.URL, Kind: Kind}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := log.take(); !slices.Equal(got, []string{qInc, qComp}) {
		t.Fatalf("first poll: got requests %v, want %v", got, []string{qInc, qComp})
	}
	page.Requests()
	if s := r1.Snapshot; s == nil || len(s.Incidents) != 3 || !reflect.DeepEqual(fetchtest.ByID(t, s.Incidents, "12").Components, []string{"API"}) {
		t.Fatalf("first poll: got %+v", s)
	}
	if r1.Requests != 2 || len(r1.Bodies) != 2 || r1.Bodies[1].Endpoint != EndpointComponents || r1.Bodies[1].Data == nil {
		t.Errorf("first poll: got %d requests, bodies %+v", r1.Requests, r1.Bodies)
	}

	// Second poll: the incidents answer 304; the components are not read at all.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	reqs := page.Requests()
	log.take()
	if len(reqs) != 1 || reqs[0].Path != pInc || reqs[0].IfNoneMatch != `"i1"` {
		t.Errorf("second poll: got requests %+v", reqs)
	}
	if r2.Snapshot != nil || r2.Requests != 1 || r2.StateChanged(r1.State) {
		t.Errorf("second poll: got %+v", r2)
	}

	// Third poll: the incidents changed; the components are read again, without
	// validators, and their bytes go with the evidence (the archive keeps one copy per
	// hash; that their hash is remembered does not mean an earlier poll stored them).
	page.Set(pInc, fetchtest.Route{Body: bytes.Replace(incidents, []byte("monitoring the results"), []byte("watching the results"), 1), ETag: `"i2"`})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	reqs = page.Requests()
	log.take()
	if len(reqs) != 2 || reqs[1].Path != pComp || reqs[1].IfNoneMatch != "" {
		t.Errorf("third poll: got requests %+v", reqs)
	}
	if r3.Snapshot == nil || len(r3.Bodies) != 2 || r3.Bodies[1].Data == nil || r3.Bodies[0].Data == nil {
		t.Errorf("third poll: got %+v", r3)
	}
	if u := fetchtest.ByID(t, r3.Snapshot.Incidents, "12").Updates[2]; u.ID != "31" || u.Body != "A fix has been deployed and we are watching the results." {
		t.Errorf("third poll: got update %+v", u)
	}

	// Fourth poll: no incident names a component: no second request.
	page.Set(pInc, fetchtest.Route{Body: []byte(`{"meta":{"pagination":{"total":1,"count":1,"total_pages":1}},"data":[{"id":1,"component_id":0,"name":"x","status":1,"message":"m","created_at":"2026-08-18 10:00:00","updates":[]}]}`)})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pInc}) || r4.Snapshot == nil {
		t.Errorf("fourth poll: got requests %v, snapshot %v", got, r4.Snapshot)
	}
	if _, kept := r4.State[EndpointComponents]; kept {
		t.Error("fourth poll: kept the state of components no longer read")
	}

	// The component list failing fails the poll: names cannot be guessed.
	page.Set(pInc, fetchtest.Route{Body: incidents})
	page.Set(pComp, fetchtest.Route{Body: []byte("<html>login</html>"), ContentType: "text/html"})
	r5, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if !errors.Is(err, fetch.ErrMalformed) || r5.Snapshot != nil || r5.Requests != 2 {
		t.Errorf("bad components: got %+v, %v", r5, err)
	}
}

// FuzzCachet feeds arbitrary bytes to both Cachet decoders, seeded with the synthetic
// fixtures. They must reject what they cannot read and never panic.
func FuzzCachet(f *testing.F) {
	fetchtest.AddSeeds(f, "cachet")
	f.Add([]byte(`{"data":[{"id":"a","status":"x","component_id":"7","updates":[{"id":null,"status":2},{"created_at":"bad"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		names, _ := decodeCachetComponents("application/json", data)
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
