package incidentio

// incident.io against the real payloads of testdata/incident.io (copied byte for byte from
// the real captures of testdata/incident.io; provenance in testdata/SOURCES.md): the compatible
// /api/v2/summary.json of OpenAI's and Cohere's pages. They are summary captures, but the
// compatible incidents.json has the same "page" and "incidents" shape, so the polls below
// serve them there too; neither has a "scheduled_maintenances" list (left out when empty).
//
// No real feed or proxy answer exists, so those are synthetic and say where their shape
// comes from at their top:
//   - synthetic-incidentio-feed.atom: the page's /feed.atom, in the shape of a public
//     capture of status.openai.com/feed.rss (one entry per incident, "Status: X", the latest
//     message, "Affected components" list);
//   - synthetic-incidentio-proxy.json: the page's /proxy/<host>, written from the fields
//     public clients of it read (summary.structure.items[].group.components[] with
//     component_id and name, summary.affected_components, summary.ongoing_incidents[] with
//     component_impacts and updates[].message.text_node / published_at / to_status): the
//     OneUptime external-status-page monitor, an OpenAI status extension's model builder,
//     codex's status-widget test and a Swift status client, found with the search tool.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

const (
	pIncidents    = "/api/v2/incidents.json"
	pMaintenances = "/api/v2/scheduled-maintenances.json"
	pSummary      = "/api/v2/summary.json"
	pIIOFeed      = "/feed.atom"
	pIIOProxy     = "/proxy/127.0.0.1"
)

func iioData(tb testing.TB, name string) []byte { return fetchtest.Testdata(tb, "incident.io", name) }

var iioBase, _ = url.Parse("https://status.openai.com/")

func TestIncidentIORealPayloads(t *testing.T) {
	for _, tc := range []struct {
		file, page, id, title, status, impact, update, body, created string
	}{
		{"openai-statuspage-compat-summary-2026-07-22.json", "OpenAI", "01KY54SWGRK806N6TJ495MYPDD",
			"Elevated errors for Workspace Agent", "investigating", "minor", "01KY54SWGR43Q7BTSK3CSKW85P",
			"We are investigating the issue for the listed services.", "2026-07-22T14:48:46Z"},
		{"cohere-statuspage-compat-summary-2026-07-23.json", "Cohere Status Page", "01KY8K3GWWJTSJTRC17GHEH08Z",
			"Dashboard Login Service Disruption", "investigating", "major", "01KY8K3GWW5NX61DRV3P57CX89",
			"🔎 We are currently investigating an issue affecting the Cohere Dashboard ([dashboard.cohere.com](http://dashboard.cohere.com \"dashboard.cohere.com\")). Users may experience a continuous refresh loop on the login page, preventing successful authentication.", "2026-07-23T22:56:25Z"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body := iioData(t, tc.file)
			doc, err := incidentIOOptions.DecodeList("application/json", body, "incidents")
			if err != nil {
				t.Fatal(err)
			}
			incs, listing := incidentIOOptions.NormaliseList(doc.List, model.KindIncident, iioBase)
			if doc.Page != tc.page || listing != (model.Listing{Kind: model.KindIncident}) || len(incs) != 1 {
				t.Fatalf("got page %q, listing %+v, %d incidents", doc.Page, listing, len(incs))
			}
			inc := incs[0]
			if inc.ID != tc.id || inc.Title != tc.title || string(inc.Status) != tc.status || inc.StatusRaw != tc.status ||
				string(inc.Impact) != tc.impact || inc.ImpactRaw != tc.impact || inc.Kind != model.KindIncident {
				t.Errorf("got %+v", inc)
			}
			// No started_at in incident.io's JSON: the incident starts when created. No
			// shortlink: the URL is the page's incident page.
			if !inc.StartedAt.Equal(fetchtest.MustTime(tc.created)) || inc.StartedAt.Location() != time.UTC {
				t.Errorf("got started %v, want created_at %s in UTC", inc.StartedAt, tc.created)
			}
			if inc.URL != "https://status.openai.com/incidents/"+tc.id || len(inc.Components) != 0 || inc.Components == nil {
				t.Errorf("got URL %q components %q", inc.URL, inc.Components)
			}
			if len(inc.Updates) != 1 || inc.Updates[0].ID != tc.update || inc.Updates[0].Body != tc.body ||
				inc.Updates[0].Format != model.FormatMarkdown || inc.Updates[0].Status != model.StatusInvestigating {
				t.Errorf("got updates %+v", inc.Updates)
			}
			// The same document at scheduled-maintenances.json has no list: empty, not
			// malformed.
			m, err := incidentIOOptions.DecodeList("application/json", body, "scheduled_maintenances")
			if err != nil || len(m.List) != 0 {
				t.Errorf("missing maintenance list: got %v, %v", m, err)
			}
			// Statuspage's decoder (strict lists) stays strict.
			if _, err := (statuspagev2.Options{}).DecodeList("application/json", body, "scheduled_maintenances"); !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("statuspage: got %v, want ErrMalformed for a missing list", err)
			}
			if sum, err := statuspagev2.DecodeSummary("application/json", body); err != nil || sum.Page != tc.page {
				t.Errorf("summary: got %+v, %v", sum, err)
			}
		})
	}
}

func TestIncidentIOListSize(t *testing.T) {
	var list []map[string]any
	for i := range incidentIOOptions.ListSize {
		inc := fetchtest.RawIncident(string(rune('a'+i)), "resolved")
		inc["created_at"] = "2026-03-" + string(rune('0'+(i+1)/10)) + string(rune('0'+(i+1)%10)) + "T10:00:00Z"
		delete(inc, "started_at")
		list = append(list, inc)
	}
	doc, err := incidentIOOptions.DecodeList("", fetchtest.IncidentsBody(t, "incidents", list...), "incidents")
	if err != nil {
		t.Fatal(err)
	}
	_, listing := incidentIOOptions.NormaliseList(doc.List, model.KindIncident, iioBase)
	if !listing.Since.Equal(fetchtest.MustTime("2026-03-01T10:00:00Z")) {
		t.Errorf("25 items: got since %v, want the oldest (incident.io lists the 25 newest)", listing.Since)
	}
	_, listing = incidentIOOptions.NormaliseList(doc.List[1:], model.KindIncident, iioBase)
	if !listing.Since.IsZero() {
		t.Errorf("24 items: got since %v, want the whole history", listing.Since)
	}
}

func TestIncidentIOMalformed(t *testing.T) {
	for _, tc := range []struct{ name, ct, body string }{
		{"html page", "text/html", "<!DOCTYPE html><html><body>Not found</body></html>"},
		{"empty", "application/json", ""},
		{"no page and no list", "application/json", `{}`},
		{"an error object", "application/json", `{"error":"not found"}`},
		{"truncated", "application/json", string(iioData(t, "openai-statuspage-compat-summary-2026-07-22.json")[:3000])},
		{"list of the wrong type", "application/json", `{"page":{"name":"X"},"incidents":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := incidentIOOptions.DecodeList(tc.ct, []byte(tc.body), "incidents"); !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
		})
	}
	for _, body := range []string{"", "<html></html>", `{"incidents":[]}`, `{"summary":[]}`} {
		if _, err := decodeIncidentIOProxy("application/json", []byte(body)); !errors.Is(err, payload.ErrMalformed) {
			t.Errorf("proxy %q: got %v, want ErrMalformed", body, err)
		}
	}
}

func TestIncidentIOProxy(t *testing.T) {
	enr, err := decodeIncidentIOProxy("application/json", iioData(t, "synthetic-incidentio-proxy.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := enr["01KY54SWGRK806N6TJ495MYPDD"]
	if !ok || len(enr) != 1 {
		t.Fatalf("got %+v, want the one ongoing incident", enr)
	}
	if want := []string{"ChatGPT Work"}; !reflect.DeepEqual(e.components, want) {
		t.Errorf("got components %q, want %q (component_impacts and affected_components, named by the structure)", e.components, want)
	}
	if len(e.updates) != 1 || e.updates[0].ID != "01KY54SWGR43Q7BTSK3CSKW85P" || e.updates[0].Status != model.StatusInvestigating ||
		e.updates[0].Body != "We are investigating the issue for the listed services." || !e.updates[0].PostedAt.Equal(fetchtest.MustTime("2026-07-22T14:48:46Z")) {
		t.Errorf("got updates %+v", e.updates)
	}
}

func TestIncidentIOProxyURL(t *testing.T) {
	for _, tc := range []struct{ src, override, want string }{
		{"https://status.openai.com", "", "https://status.openai.com/proxy/status.openai.com"},
		{"https://status.openai.com/", "", "https://status.openai.com/proxy/status.openai.com"},
		{"https://statuspage.incident.io/openai-1", "", "https://statuspage.incident.io/proxy/openai-1"},
		{"http://127.0.0.1:8080/", "", "http://127.0.0.1:8080/proxy/127.0.0.1"},
		{"https://status.openai.com", "http://cache.local/openai", "http://cache.local/openai"},
	} {
		src := model.Source{URL: tc.src}
		if tc.override != "" {
			src.Endpoints = map[string]string{EndpointProxy: tc.override}
		}
		base, err := fetch.BaseURL(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := incidentIOProxyURL(src, base); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.src, got, tc.want)
		}
	}
}

// iioPage serves OpenAI's real summary capture as the compatible API and the synthetic
// feed, without validators, as incident.io does.
func iioPage(t *testing.T) *fetchtest.FakePage {
	page := fetchtest.NewFakePage()
	real := iioData(t, "openai-statuspage-compat-summary-2026-07-22.json")
	page.Set(pIncidents, fetchtest.Route{Body: real})
	page.Set(pMaintenances, fetchtest.Route{Body: real})
	page.Set(pSummary, fetchtest.Route{Body: real})
	page.Set(pIIOFeed, fetchtest.Route{Body: iioData(t, "synthetic-incidentio-feed.atom"), ContentType: "application/atom+xml"})
	return page
}

func iioProvider(t *testing.T) fetch.Provider {
	t.Helper()
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{UserAgent: "statuswatch/test"}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIncidentIOPoll(t *testing.T) {
	page := iioPage(t)
	srv := fetchtest.NewServer(t, page)
	p := iioProvider(t)
	src := model.Source{Name: "openai", URL: srv.URL, Kind: Kind, Maintenance: true}
	ctx := context.Background()

	r1, err := p.Poll(ctx, fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pIncidents, pMaintenances, pIIOFeed, pSummary}; !slices.Equal(got, want) {
		t.Fatalf("first poll: got requests %v, want %v", got, want)
	}
	s := r1.Snapshot
	if s == nil || s.PageTitle != "OpenAI" || s.OpenOnly || len(s.Incidents) != 1 || !s.FetchedAt.Equal(fetchtest.PollNow) {
		t.Fatalf("first poll: got %+v", s)
	}
	if want := []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}; !reflect.DeepEqual(s.Listings, want) {
		t.Errorf("got listings %+v, want %+v", s.Listings, want)
	}
	inc := s.Incidents[0]
	if want := []string{"ChatGPT Work", "Compliance API"}; !reflect.DeepEqual(inc.Components, want) {
		t.Errorf("got components %q, want the feed's %q", inc.Components, want)
	}
	if len(inc.Updates) != 1 || inc.Updates[0].ID != "01KY54SWGR43Q7BTSK3CSKW85P" || inc.Updates[0].Format != model.FormatMarkdown {
		t.Errorf("got updates %+v, want the JSON's timeline", inc.Updates)
	}
	if r1.Requests != 4 || len(r1.Bodies) != 4 {
		t.Errorf("first poll: got %d requests, %d bodies", r1.Requests, len(r1.Bodies))
	}
	for _, ep := range []string{fetch.EndpointIncidents, statuspagev2.EndpointMaintenances, fetch.EndpointFeed, fetch.EndpointSummary} {
		if st := r1.State[ep]; st.Hash == "" || st.ETag != "" {
			t.Errorf("state of %s: got %+v, want a hash and no ETag", ep, st)
		}
	}

	if s.Components == nil || len(s.Components.List) != 25 || s.Components.PageStatus != "minor" {
		t.Errorf("first poll: got components %+v, want the summary's 25", s.Components)
	}

	// Second poll, identical: no validators, so every body comes back (the summary too,
	// read on every poll for the component states) and is recognised by its hash;
	// nothing is parsed.
	r2, err := p.Poll(ctx, fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pIncidents, pMaintenances, pIIOFeed, pSummary}; !slices.Equal(got, want) {
		t.Errorf("second poll: got requests %v, want %v", got, want)
	}
	if r2.Snapshot != nil || r2.StateChanged(r1.State) || r2.Requests != 4 {
		t.Errorf("second poll: got snapshot %v, state changed %v, %d requests", r2.Snapshot, r2.StateChanged(r1.State), r2.Requests)
	}
	for _, b := range r2.Bodies {
		if b.Data != nil {
			t.Errorf("second poll: body %s has data", b.Endpoint)
		}
	}

	// Third poll: only the feed changed (a component added). The lists are read again in
	// full so the incident is built whole.
	feed := strings.Replace(string(iioData(t, "synthetic-incidentio-feed.atom")),
		"<li>Compliance API (Degraded performance)</li>", "<li>Compliance API (Degraded performance)</li><li>Login (Partial outage)</li>", 2)
	page.Set(pIIOFeed, fetchtest.Route{Body: []byte(feed), ContentType: "application/atom+xml"})
	r3, err := p.Poll(ctx, fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pIncidents, pMaintenances, pIIOFeed, pIncidents, pMaintenances, pSummary}; !slices.Equal(got, want) {
		t.Errorf("feed changed: got requests %v, want %v", got, want)
	}
	if r3.Snapshot == nil || !reflect.DeepEqual(r3.Snapshot.Incidents[0].Components, []string{"ChatGPT Work", "Compliance API", "Login"}) {
		t.Fatalf("feed changed: got %+v", r3.Snapshot)
	}
	if r3.Snapshot.Components != nil {
		t.Errorf("feed changed: got components %+v from an unchanged summary, want none read", r3.Snapshot.Components)
	}
	if len(r3.Bodies) != 4 || r3.Requests != 6 {
		t.Errorf("feed changed: got %d bodies, %d requests; want one body per endpoint", len(r3.Bodies), r3.Requests)
	}
	for _, b := range r3.Bodies {
		if b.Data == nil && b.Endpoint != fetch.EndpointSummary {
			t.Errorf("feed changed: body %s without data: every body of the group was parsed", b.Endpoint)
		}
	}

	// Fourth poll: only the incidents changed (an update's body edited). The feed is read
	// again; the update keeps its id, so the archive sees an edit.
	edited := strings.Replace(string(iioData(t, "openai-statuspage-compat-summary-2026-07-22.json")),
		"We are investigating the issue for the listed services.", "We are investigating elevated errors for Workspace Agent.", 1)
	page.Set(pIncidents, fetchtest.Route{Body: []byte(edited)})
	r4, err := p.Poll(ctx, fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pIncidents, pMaintenances, pIIOFeed, pMaintenances, pIIOFeed, pSummary}; !slices.Equal(got, want) {
		t.Errorf("incidents changed: got requests %v, want %v", got, want)
	}
	u := r4.Snapshot.Incidents[0].Updates[0]
	if u.ID != "01KY54SWGR43Q7BTSK3CSKW85P" || u.Body != "We are investigating elevated errors for Workspace Agent." {
		t.Errorf("edited update: got %+v, want the same id with the new body", u)
	}
	if !reflect.DeepEqual(r4.Snapshot.Incidents[0].Components, []string{"ChatGPT Work", "Compliance API", "Login"}) {
		t.Errorf("incidents changed: got components %q, want the feed's still", r4.Snapshot.Incidents[0].Components)
	}
}

func TestIncidentIOConditional(t *testing.T) {
	page := iioPage(t)
	real := iioData(t, "cohere-statuspage-compat-summary-2026-07-23.json")
	page.Set(pIncidents, fetchtest.Route{Body: real, ETag: `W/"i1"`})
	page.Set(pMaintenances, fetchtest.Route{Body: real, ETag: `W/"m1"`})
	page.Set(pSummary, fetchtest.Route{Body: real, ETag: `W/"s1"`})
	page.Set(pIIOFeed, fetchtest.Route{Status: http.StatusNotFound, Body: []byte("not found"), ContentType: "text/plain"})
	srv := fetchtest.NewServer(t, page)
	p := iioProvider(t)
	src := model.Source{Name: "cohere", URL: srv.URL + "/", Maintenance: true}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	// No feed and no proxy (404): both tried, both remembered as absent; the incidents
	// stand alone.
	if got, want := page.Paths(), []string{pIncidents, pMaintenances, pIIOFeed, pIIOProxy, pSummary}; !slices.Equal(got, want) {
		t.Errorf("first poll: got requests %v, want %v", got, want)
	}
	if r1.Snapshot == nil || r1.Snapshot.PageTitle != "Cohere Status Page" || len(r1.Snapshot.Incidents) != 1 || len(r1.Snapshot.Incidents[0].Components) != 0 {
		t.Fatalf("first poll: got %+v", r1.Snapshot)
	}
	for _, ep := range []string{fetch.EndpointFeed, EndpointProxy} {
		if st := r1.State[ep]; !st.Absent.Equal(fetchtest.PollNow) || st.Hash != "" {
			t.Errorf("got state %+v for the absent %s, want absent since %v", st, ep, fetchtest.PollNow)
		}
	}
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	got := page.Requests()
	if len(got) != 3 || got[0].IfNoneMatch != `W/"i1"` || got[1].IfNoneMatch != `W/"m1"` || got[2].IfNoneMatch != `W/"s1"` {
		t.Errorf("second poll: got %+v, want conditional GETs of the lists and the summary only", got)
	}
	if r2.Snapshot != nil || r2.StateChanged(r1.State) {
		t.Errorf("second poll: got %+v, want nothing parsed", r2.Snapshot)
	}
	// After AbsentRetry both are asked again.
	if _, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow.Add(fetch.AbsentRetry)}); err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pIncidents, pMaintenances, pIIOFeed, pIIOProxy, pSummary}; !slices.Equal(got, want) {
		t.Errorf("after %v: got requests %v, want %v", fetch.AbsentRetry, got, want)
	}
}

func TestIncidentIOProxyFallback(t *testing.T) {
	page := iioPage(t)
	page.Set(pIIOFeed, fetchtest.Route{Status: http.StatusNotFound, Body: []byte("<html>404</html>"), ContentType: "text/html"})
	page.Set(pIIOProxy, fetchtest.Route{Body: iioData(t, "synthetic-incidentio-proxy.json")})
	srv := fetchtest.NewServer(t, page)
	p := iioProvider(t)
	src := model.Source{Name: "openai", URL: srv.URL}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pIncidents, pIIOFeed, pIIOProxy, pSummary}; !slices.Equal(got, want) {
		t.Errorf("got requests %v, want %v (no maintenance: not read)", got, want)
	}
	inc := r1.Snapshot.Incidents[0]
	if !reflect.DeepEqual(inc.Components, []string{"ChatGPT Work"}) || inc.Updates[0].ID != "01KY54SWGR43Q7BTSK3CSKW85P" {
		t.Errorf("got %+v, want the proxy's components and the JSON's timeline", inc)
	}
	if st := r1.State[EndpointProxy]; st.Hash == "" {
		t.Errorf("got proxy state %+v", st)
	}

	// The incident no longer ongoing: the proxy does not cover it, and it keeps what its
	// archived version had rather than losing its components.
	page.Set(pIIOProxy, fetchtest.Route{Body: []byte(`{"summary":{"name":"OpenAI","ongoing_incidents":[]}}`)})
	archived := func(id string) *model.Incident {
		if id == inc.ID {
			return &inc
		}
		return nil
	}
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Archived: archived, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if r2.Snapshot == nil || !reflect.DeepEqual(r2.Snapshot.Incidents[0].Components, []string{"ChatGPT Work"}) {
		t.Errorf("uncovered: got %+v, want the archived components", r2.Snapshot)
	}

	// A proxy that fails for a reason that may pass fails the poll.
	page.Set(pIIOProxy, fetchtest.Route{Status: http.StatusServiceUnavailable, RetryAfter: "30"})
	_, err = p.Poll(context.Background(), fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if d, ok := fetch.RetryAfter(err); !ok || d.Seconds() != 30 {
		t.Errorf("proxy 503: got %v, want the error with its Retry-After", err)
	}
}

// An incident whose JSON has no updates takes the feed's message as its timeline.
func TestIncidentIOFeedTimeline(t *testing.T) {
	page := iioPage(t)
	noUpdates := strings.Replace(string(iioData(t, "openai-statuspage-compat-summary-2026-07-22.json")), `"incident_updates":[`, `"incident_updates":[],"x":[`, 1)
	if !strings.Contains(noUpdates, `"x":[`) {
		t.Fatal("fixture changed: the edit did not apply")
	}
	page.Set(pIncidents, fetchtest.Route{Body: []byte(noUpdates)})
	srv := fetchtest.NewServer(t, page)
	res, err := iioProvider(t).Poll(context.Background(), fetch.Request{Source: model.Source{Name: "openai", URL: srv.URL}, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	inc := res.Snapshot.Incidents[0]
	if len(inc.Updates) != 1 {
		t.Fatalf("got updates %+v", inc.Updates)
	}
	u := inc.Updates[0]
	if u.Status != model.StatusInvestigating || u.Body != "We are investigating the issue for the listed services." || u.Format != model.FormatHTML ||
		!u.PostedAt.Equal(fetchtest.MustTime("2026-07-22T14:48:46Z")) || u.ID != fetch.UpdateKey(inc.ID, "2026-07-22T14:48:46Z", 0) {
		t.Errorf("got %+v, want the feed's message keyed by the incident's id and the entry's time", u)
	}
}

func TestIncidentIOMalformedPoll(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		r          fetchtest.Route
	}{
		{"incidents html", pIncidents, fetchtest.Route{Body: []byte("<!DOCTYPE html><html>Just a moment...</html>"), ContentType: "text/html"}},
		{"incidents empty", pIncidents, fetchtest.Route{Body: []byte{}}},
		{"feed html", pIIOFeed, fetchtest.Route{Body: []byte("<!DOCTYPE html><html>Just a moment...</html>"), ContentType: "text/html"}},
		{"feed truncated", pIIOFeed, fetchtest.Route{Body: iioData(t, "synthetic-incidentio-feed.atom")[:900]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := iioPage(t)
			page.Set(tc.path, tc.r)
			srv := fetchtest.NewServer(t, page)
			res, err := iioProvider(t).Poll(context.Background(), fetch.Request{Source: model.Source{Name: "x", URL: srv.URL, Maintenance: true}, Now: fetchtest.PollNow})
			if !errors.Is(err, payload.ErrMalformed) || res == nil || res.Snapshot != nil || res.Requests != 3 {
				t.Errorf("got %v, %+v; want ErrMalformed after 3 requests", err, res)
			}
		})
	}
}

func TestIncidentIOMaps(t *testing.T) {
	for _, tc := range []struct {
		status, impact string
		kind           model.Kind
		wantStatus     model.Status
		wantImpact     model.Impact
	}{
		{"investigating", "none", model.KindIncident, model.StatusInvestigating, model.ImpactNone},
		{"identified", "minor", model.KindIncident, model.StatusIdentified, model.ImpactMinor},
		{"monitoring", "major", model.KindIncident, model.StatusMonitoring, model.ImpactMajor},
		{"resolved", "critical", model.KindIncident, model.StatusResolved, model.ImpactCritical},
		{"postmortem", "weird", model.KindIncident, model.StatusPostmortem, model.ImpactUnknown},
		{"scheduled", "maintenance", model.KindMaintenance, model.StatusScheduled, model.ImpactMaintenance},
		{"in_progress", "", model.KindMaintenance, model.StatusInProgress, model.ImpactMaintenance},
		{"completed", "none", model.KindMaintenance, model.StatusCompleted, model.ImpactMaintenance},
	} {
		doc, err := incidentIOOptions.DecodeList("", fetchtest.IncidentsBody(t, "incidents", map[string]any{"id": "01KY", "status": tc.status, "impact": tc.impact}), "incidents")
		if err != nil {
			t.Fatal(err)
		}
		incs, _ := incidentIOOptions.NormaliseList(doc.List, tc.kind, iioBase)
		if len(incs) != 1 {
			t.Fatalf("%s/%s: got %d incidents, want 1", tc.status, tc.impact, len(incs))
		}
		got := incs[0]
		if got.Status != tc.wantStatus || got.Impact != tc.wantImpact || got.StatusRaw != tc.status || got.ImpactRaw != tc.impact {
			t.Errorf("%s/%s: got %s/%s (%s/%s)", tc.status, tc.impact, got.Status, got.Impact, got.StatusRaw, got.ImpactRaw)
		}
	}
}

// FuzzIncidentIO feeds arbitrary bytes to incident.io's decoders (the compatible lists,
// leniently; the proxy; the feed as enrichment), seeded with every incident.io fixture.
// They must reject what they cannot read with an error and never panic.
func FuzzIncidentIO(f *testing.F) {
	fetchtest.AddSeeds(f, "incident.io")
	f.Add([]byte(`{"page":{},"scheduled_maintenances":[{"id":"a","scheduled_for":"x","incident_updates":[{}]}]}`))
	f.Add([]byte(`{"summary":{"ongoing_incidents":[{"id":"a","updates":[{"message":{"text_node":{"content":[{"type":"paragraph"}]}}}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, key := range []string{"incidents", "scheduled_maintenances"} {
			l, err := incidentIOOptions.DecodeList("application/json", data, key)
			if err != nil {
				if !errors.Is(err, payload.ErrMalformed) {
					t.Fatalf("got %v, want ErrMalformed", err)
				}
				continue
			}
			incs, _ := incidentIOOptions.NormaliseList(l.List, model.KindIncident, iioBase)
			for _, inc := range incs {
				if inc.ID == "" || !slices.IsSorted(inc.Components) {
					t.Fatalf("bad incident %+v", inc)
				}
			}
		}
		if s, err := statuspagev2.DecodeSummary("application/json", data); err == nil {
			fetchtest.CheckComponents(t, s.Components)
		}
		if _, err := decodeIncidentIOProxy("application/json", data); err != nil && !errors.Is(err, payload.ErrMalformed) {
			t.Fatalf("proxy: got %v, want ErrMalformed", err)
		}
		g := &fetch.GroupRead{Name: fetch.EndpointFeed, Resp: &fetch.Response{Body: data}}
		if _, err := parseEnrichment(g, fetchtest.PollNow); err != nil && !errors.Is(err, payload.ErrMalformed) {
			t.Fatalf("feed: got %v, want ErrMalformed", err)
		}
	})
}

// TestIncidentIOContract: the contract every platform keeps.
func TestIncidentIOContract(t *testing.T) {
	real := iioData(t, "openai-statuspage-compat-summary-2026-07-22.json")
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "openai", URL: base, Maintenance: true} },
		Routes: map[string]fetchtest.Route{
			pIncidents:    {Body: real},
			pMaintenances: {Body: real},
			pSummary:      {Body: real},
			pIIOFeed:      {Body: iioData(t, "synthetic-incidentio-feed.atom"), ContentType: "application/atom+xml"},
		},
		Main: pIncidents,
	}.Run(t)
}

// TestIncidentIOSummaryComponents: incident.io's compatible summaries carry the v2
// component states (no groups); two components of one name stay two, by their ids.
func TestIncidentIOSummaryComponents(t *testing.T) {
	for _, tc := range []struct {
		file, indicator, description string
		n                            int
		notOperational               map[string]model.ComponentStatus
		twice                        string
	}{
		{"openai-statuspage-compat-summary-2026-07-22.json", "minor", "Partial System Degradation", 25, nil, "Login"},
		{"cohere-statuspage-compat-summary-2026-07-23.json", "major", "Partial System Outage", 24,
			map[string]model.ComponentStatus{"Playground": model.ComponentPartialOutage}, ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			sum, err := statuspagev2.DecodeSummary("application/json", iioData(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			cs := sum.Components
			if cs.PageStatus != tc.indicator || cs.PageDescription != tc.description || len(cs.List) != tc.n {
				t.Fatalf("got %q %q and %d components, want %q %q and %d", cs.PageStatus, cs.PageDescription, len(cs.List), tc.indicator, tc.description, tc.n)
			}
			names := map[string]int{}
			for _, c := range cs.List {
				names[c.Name]++
				want, ok := tc.notOperational[c.Name]
				if !ok {
					want = model.ComponentOperational
				}
				if c.Status != want || c.StatusRaw == "" || !fetch.ULID.MatchString(c.ID) || c.Group != "" {
					t.Errorf("%s: got %+v, want %s with its raw word and ULID, no group", c.Name, c, want)
				}
			}
			if tc.twice != "" && names[tc.twice] != 2 {
				t.Errorf("got %d components named %s, want 2", names[tc.twice], tc.twice)
			}
		})
	}
}
