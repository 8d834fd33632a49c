package statuspage

// Statuspage polls end to end against an httptest page: what each poll requests, what it
// sends, and how it handles what it gets. Incident payloads are the real files of
// testdata/statuspage; the HTML incident page is the synthetic fixture described there.

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"net/http"
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
)

// realPage serves the real GitHub payloads with ETags and Last-Modified.
func realPage(t *testing.T) *fetchtest.FakePage {
	page := fetchtest.NewFakePage()
	const lm = "Tue, 18 Aug 2026 12:09:11 GMT"
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "github-incidents-2026-08-top5.json"), ETag: `W/"inc-1"`, LastModified: lm})
	page.Set(pMaintenances, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "scheduled_maintenances"), ETag: `W/"mnt-1"`, LastModified: lm})
	page.Set(pSummary, fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "github-summary-2022-11-25.json"), ETag: `W/"sum-1"`, LastModified: lm})
	return page
}

func statuspage(t *testing.T, o fetch.ClientOptions) fetch.Provider {
	t.Helper()
	p, err := fetch.New(Kind, fetchtest.MustClient(t, o))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func source(url string) model.Source {
	return model.Source{Name: "github", URL: url, Kind: "statuspage", Maintenance: true}
}

func TestPollConditional(t *testing.T) {
	page := realPage(t)
	srv := fetchtest.NewServer(t, page)
	p := statuspage(t, fetch.ClientOptions{UserAgent: "statuswatch/test"})
	src := source(srv.URL)

	// First poll, as the daemon makes it: with the summary.
	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Requests(); len(got) != 3 || got[0].IfNoneMatch != "" || got[0].UserAgent != "statuswatch/test" {
		t.Fatalf("first poll: got requests %+v", got)
	}
	s := r1.Snapshot
	if s == nil || s.Source != "github" || !s.FetchedAt.Equal(fetchtest.PollNow) || s.PageTitle != "GitHub" || len(s.Incidents) != 5 {
		t.Fatalf("first poll: got snapshot %+v", s)
	}
	wantListings := []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}
	if !reflect.DeepEqual(s.Listings, wantListings) {
		t.Errorf("got listings %+v, want %+v", s.Listings, wantListings)
	}
	if r1.Requests != 3 || len(r1.Bodies) != 3 {
		t.Errorf("got %d requests, %d bodies; want 3, 3", r1.Requests, len(r1.Bodies))
	}
	for _, b := range r1.Bodies {
		if b.Data == nil || b.Hash != r1.State[b.Endpoint].Hash {
			t.Errorf("body %s: got hash %s with %d bytes, state %+v", b.Endpoint, b.Hash, len(b.Data), r1.State[b.Endpoint])
		}
	}
	for _, ep := range []string{fetch.EndpointIncidents, statuspagev2.EndpointMaintenances, fetch.EndpointSummary} {
		if st := r1.State[ep]; st.ETag == "" || st.LastModified == "" || st.Hash == "" {
			t.Errorf("state of %s: got %+v", ep, st)
		}
	}
	if !r1.StateChanged(nil) {
		t.Error("first poll: StateChanged reports no change")
	}
	if s.Components == nil || len(s.Components.List) != 11 || s.Components.PageStatus != "minor" {
		t.Errorf("first poll: got components %+v, want the summary's 11", s.Components)
	}

	// Second poll: validators sent, every list and the summary (read on every poll, for
	// the component states) 304, nothing parsed.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	got := page.Requests()
	if len(got) != 3 || got[0].Path != pIncidents || got[1].Path != pMaintenances || got[2].Path != pSummary {
		t.Fatalf("second poll: got requests %+v, want incidents, maintenances and the summary", got)
	}
	for _, req := range got {
		if req.IfNoneMatch == "" || req.IfModifiedSince != "Tue, 18 Aug 2026 12:09:11 GMT" {
			t.Errorf("%s: got If-None-Match %q, If-Modified-Since %q", req.Path, req.IfNoneMatch, req.IfModifiedSince)
		}
	}
	if got[0].IfNoneMatch != `W/"inc-1"` {
		t.Errorf("got If-None-Match %q, want the incidents ETag", got[0].IfNoneMatch)
	}
	if r2.Snapshot != nil {
		t.Errorf("all 304: got a snapshot %+v", r2.Snapshot)
	}
	for _, b := range r2.Bodies {
		if b.Data != nil {
			t.Errorf("304 body %s: got %d bytes, want none", b.Endpoint, len(b.Data))
		}
	}
	if r2.Requests != 3 || r2.StateChanged(r1.State) {
		t.Errorf("got %d requests, state changed %v; want 3, false", r2.Requests, r2.StateChanged(r1.State))
	}

	// Third poll: the incidents change, the maintenances do not.
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "github-summary-2022-11-25.json"), ETag: `W/"inc-2"`})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if r3.Snapshot == nil || len(r3.Snapshot.Incidents) != 1 || r3.Snapshot.Incidents[0].ID != "ljwdk6qml8z8" {
		t.Fatalf("third poll: got %+v", r3.Snapshot)
	}
	if want := []model.Listing{{Kind: model.KindIncident}}; !reflect.DeepEqual(r3.Snapshot.Listings, want) {
		t.Errorf("third poll: got listings %+v, want only incidents (maintenances 304)", r3.Snapshot.Listings)
	}
	if r3.Snapshot.Components != nil {
		t.Errorf("third poll: got components %+v from a 304 summary, want none read", r3.Snapshot.Components)
	}
	if r3.State[fetch.EndpointIncidents].ETag != `W/"inc-2"` || r3.State[fetch.EndpointIncidents].LastModified != "" || !r3.StateChanged(r2.State) {
		t.Errorf("third poll: got state %+v", r3.State[fetch.EndpointIncidents])
	}
}

func TestPollUnchangedByHash(t *testing.T) {
	page := fetchtest.NewFakePage()
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "github-incidents-2026-08-top5.json")}) // no validators
	srv := fetchtest.NewServer(t, page)
	p := statuspage(t, fetch.ClientOptions{})
	src := model.Source{Name: "github", URL: srv.URL}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil || r1.Snapshot == nil {
		t.Fatalf("first poll: %v, %+v", err, r1)
	}
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	// One request: the summary answered 404 on the first poll and is left alone for
	// fetch.AbsentRetry.
	if r2.Snapshot != nil || r2.Requests != 1 || r2.StateChanged(r1.State) {
		t.Errorf("byte-identical body: got snapshot %v, %d requests, state changed %v", r2.Snapshot, r2.Requests, r2.StateChanged(r1.State))
	}
	if len(r2.Bodies) != 1 || r2.Bodies[0].Data != nil || r2.Bodies[0].Hash != r1.State[fetch.EndpointIncidents].Hash {
		t.Errorf("got bodies %+v, want the stored hash without data", r2.Bodies)
	}
}

// TestPollRequests: the summary is read on every poll, whether or not the request asks
// for it (Request.Summary): the component states cannot wait for a 10th poll.
func TestPollRequests(t *testing.T) {
	for _, tc := range []struct {
		name        string
		maintenance bool
		want        []string
	}{
		{"incidents", false, []string{pIncidents, pSummary}},
		{"with maintenance", true, []string{pIncidents, pMaintenances, pSummary}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := realPage(t)
			srv := fetchtest.NewServer(t, page)
			p := statuspage(t, fetch.ClientOptions{})
			src := model.Source{Name: "github", URL: srv.URL, Maintenance: tc.maintenance}
			res, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
			if err != nil {
				t.Fatal(err)
			}
			if got := page.Paths(); !slices.Equal(got, tc.want) {
				t.Errorf("got requests %v, want %v", got, tc.want)
			}
			if res.Requests != len(tc.want) || len(res.Bodies) != len(tc.want) {
				t.Errorf("got Requests %d, %d bodies; want %d", res.Requests, len(res.Bodies), len(tc.want))
			}
			if res.State[fetch.EndpointSummary].Hash == "" || res.Snapshot.Components == nil {
				t.Errorf("got summary state %+v, components %+v; want both", res.State[fetch.EndpointSummary], res.Snapshot.Components)
			}
		})
	}
}

func TestPollEndpoints(t *testing.T) {
	page := fetchtest.NewFakePage()
	body := fetchtest.IncidentsBody(t, "incidents")
	page.Set("/acme"+pIncidents, fetchtest.Route{Body: body})
	page.Set("/proxy/github/incidents", fetchtest.Route{Body: body})
	page.Set("/acme"+pSummary, fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "claude-summary-active-incident-2026-07-29.json")})
	srv := fetchtest.NewServer(t, page)
	p := statuspage(t, fetch.ClientOptions{})

	for _, tc := range []struct {
		name      string
		src       model.Source
		want      []string
		wantTitle string
	}{
		// The summary's page name wins over the list's.
		{"path without slash", model.Source{URL: srv.URL + "/acme"}, []string{"/acme" + pIncidents, "/acme" + pSummary}, "Claude"},
		{"path with slash", model.Source{URL: srv.URL + "/acme/"}, []string{"/acme" + pIncidents, "/acme" + pSummary}, "Claude"},
		{"query dropped", model.Source{URL: srv.URL + "/acme?utm=x"}, []string{"/acme" + pIncidents, "/acme" + pSummary}, "Claude"},
		{"override", model.Source{URL: srv.URL + "/acme", Endpoints: map[string]string{fetch.EndpointIncidents: srv.URL + "/proxy/github/incidents"}}, []string{"/proxy/github/incidents", "/acme" + pSummary}, "Claude"},
		{"no summary", model.Source{URL: srv.URL + "/acme", Endpoints: map[string]string{fetch.EndpointSummary: srv.URL + "/none"}}, []string{"/acme" + pIncidents, "/none"}, "Example Cloud"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Poll(context.Background(), fetch.Request{Source: tc.src, Now: fetchtest.PollNow})
			if err != nil {
				t.Fatal(err)
			}
			if got := page.Paths(); !slices.Equal(got, tc.want) {
				t.Errorf("got requests %v, want %v", got, tc.want)
			}
			// {"incidents":[]} is a well-formed page: a snapshot with no incidents.
			if res.Snapshot == nil || res.Snapshot.Incidents == nil || len(res.Snapshot.Incidents) != 0 || res.Snapshot.PageTitle != tc.wantTitle {
				t.Errorf("got snapshot %+v", res.Snapshot)
			}
		})
	}
	// The summary's page name wins over the list's.
	res, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{URL: srv.URL + "/acme"}, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if res.Snapshot.PageTitle != "Claude" {
		t.Errorf("got page title %q, want the summary's Claude", res.Snapshot.PageTitle)
	}
	if _, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{URL: "not a url"}}); err == nil {
		t.Error("relative source URL: got no error")
	}
}

func TestPollSendsHeaders(t *testing.T) {
	page := realPage(t)
	srv := fetchtest.NewServer(t, page)
	p := statuspage(t, fetch.ClientOptions{UserAgent: "statuswatch/9 (+https://example.com)"})
	src := model.Source{URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer page-token"}}
	if _, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow}); err != nil {
		t.Fatal(err)
	}
	got := page.Requests()[0]
	if got.UserAgent != "statuswatch/9 (+https://example.com)" || got.Header.Get("Authorization") != "Bearer page-token" {
		t.Errorf("got User-Agent %q, Authorization %q", got.UserAgent, got.Header.Get("Authorization"))
	}
}

func TestPollFailures(t *testing.T) {
	real := fetchtest.Testdata(t, "statuspage", "github-incidents-2026-08-top5.json")
	retryAt := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name      string
		rt        fetchtest.Route
		maxBody   int64
		malformed bool
		text      string
		retry     time.Duration // exact, or -1 for "about an hour"
	}{
		{"html page", fetchtest.Route{Body: []byte("<!DOCTYPE html><title>Status</title>"), ContentType: "text/html"}, 0, true, "HTML", 0},
		{"html labelled json", fetchtest.Route{Body: []byte("<html>oops</html>")}, 0, true, "HTML", 0},
		{"empty body", fetchtest.Route{Body: []byte{}}, 0, true, "empty body", 0},
		{"truncated json", fetchtest.Route{Body: real[:40000]}, 0, true, "malformed", 0},
		{"no incidents array", fetchtest.Route{Body: []byte(`{"page":{"name":"GitHub"}}`)}, 0, true, `no "incidents" array`, 0},
		{"oversized", fetchtest.Route{Body: real}, 1000, false, "response exceeds 1000 bytes", 0},
		{"429 seconds", fetchtest.Route{Status: 429, Body: []byte("slow"), RetryAfter: "120"}, 0, false, "429", 2 * time.Minute},
		{"503 date", fetchtest.Route{Status: 503, Body: []byte("down"), RetryAfter: retryAt}, 0, false, "503", -1},
		{"500", fetchtest.Route{Status: 500}, 0, false, "500", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := fetchtest.NewFakePage()
			page.Set(pIncidents, tc.rt)
			srv := fetchtest.NewServer(t, page)
			p := statuspage(t, fetch.ClientOptions{MaxBody: tc.maxBody})
			res, err := p.Poll(context.Background(), fetch.Request{Source: source(srv.URL), Now: fetchtest.PollNow})
			if err == nil {
				t.Fatalf("got no error, snapshot %+v", res.Snapshot)
			}
			if errors.Is(err, payload.ErrMalformed) != tc.malformed || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("got %q (malformed %v), want %q (malformed %v)", err, errors.Is(err, payload.ErrMalformed), tc.text, tc.malformed)
			}
			if !strings.Contains(err.Error(), srv.URL+pIncidents) {
				t.Errorf("error %q does not name the URL", err)
			}
			if res == nil || res.Requests != 1 || res.Snapshot != nil || res.State != nil {
				t.Errorf("got result %+v, want only Requests=1 (the poll stops at the failed endpoint)", res)
			}
			d, ok := fetch.RetryAfter(err)
			switch {
			case tc.retry >= 0 && d != tc.retry:
				t.Errorf("got Retry-After %v, want %v", d, tc.retry)
			case tc.retry < 0 && (!ok || d < 50*time.Minute || d > time.Hour):
				t.Errorf("got Retry-After %v, want about an hour", d)
			}
		})
	}
	// A failing maintenance list does not fail the poll: the incident list alone decides
	// (TestOptionalEndpoints, fetchtest.V2Optional).
}

func TestPollMaintenanceWinsDedupe(t *testing.T) {
	inc := fetchtest.RawIncident("shared1", "scheduled")
	inc["name"] = "As listed in incidents.json"
	inc["scheduled_for"] = "2026-09-01T02:00:00Z"
	mnt := fetchtest.RawIncident("shared1", "in_progress")
	mnt["name"] = "Database upgrade"
	mnt["impact"] = "maintenance"
	mnt["scheduled_for"] = "2026-09-01T02:00:00Z"
	mnt["scheduled_until"] = "2026-09-01T04:00:00Z"
	only := fetchtest.RawIncident("mntonly", "scheduled") // no scheduled_for: still a maintenance, by its list

	page := fetchtest.NewFakePage()
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "incidents", fetchtest.RawIncident("plain1", "investigating"), inc)})
	page.Set(pMaintenances, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "scheduled_maintenances", mnt, only)})
	srv := fetchtest.NewServer(t, page)
	res, err := statuspage(t, fetch.ClientOptions{}).Poll(context.Background(), fetch.Request{Source: source(srv.URL), Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range res.Snapshot.Incidents {
		ids = append(ids, i.ID)
	}
	if !slices.Equal(ids, []string{"plain1", "shared1", "mntonly"}) {
		t.Fatalf("got incidents %v, want plain1 shared1 mntonly", ids)
	}
	got := res.Snapshot.Incidents[1]
	if got.Title != "Database upgrade" || got.Kind != model.KindMaintenance || got.Status != model.StatusInProgress || got.Impact != model.ImpactMaintenance {
		t.Errorf("shared id: got %q %s %s %s, want the maintenance list's version", got.Title, got.Kind, got.Status, got.Impact)
	}
	if k := res.Snapshot.Incidents[2].Kind; k != model.KindMaintenance {
		t.Errorf("maintenance without scheduled_for: got kind %s", k)
	}
	if k := res.Snapshot.Incidents[0].Kind; k != model.KindIncident {
		t.Errorf("plain incident: got kind %s", k)
	}
}

// postmortemPage serves one incident in status postmortem whose list JSON lacks the body,
// and no summary: a page's first poll asks for it (404), later ones, given its state, not.
func postmortemPage(t *testing.T, perIncident []byte) *fetchtest.FakePage {
	page := fetchtest.NewFakePage()
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "incidents", fetchtest.RawIncident("pm1", "postmortem"), fetchtest.RawIncident("open1", "investigating"))})
	page.Set("/api/v2/incidents/pm1.json", fetchtest.Route{Body: perIncident})
	page.Set("/incidents/pm1", fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "synthetic-statuspage-incident-page.html"), ContentType: "text/html; charset=utf-8"})
	return page
}

func TestPollPostmortemFetchedOnce(t *testing.T) {
	withoutBody := []byte(`{"page":{"name":"Example Cloud"},"incident":{"id":"pm1","status":"postmortem","postmortem_body":null}}`)
	page := postmortemPage(t, withoutBody)
	srv := fetchtest.NewServer(t, page)
	p := statuspage(t, fetch.ClientOptions{})
	src := model.Source{Name: "acme", URL: srv.URL}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{pIncidents, pSummary, "/api/v2/incidents/pm1.json", "/incidents/pm1"}; !slices.Equal(got, want) {
		t.Fatalf("first poll: got requests %v, want %v", got, want)
	}
	pm := r1.Snapshot.Incidents[0].Postmortem
	if pm == nil || !strings.HasPrefix(pm.Body, "Summary\n\nBetween 14:02") || pm.Format != model.FormatText || !pm.PublishedAt.Equal(time.Date(2026, 3, 7, 15, 0, 0, 0, time.UTC)) {
		t.Fatalf("first poll: got postmortem %+v", pm)
	}
	if r1.Snapshot.Incidents[1].Postmortem != nil {
		t.Error("open incident got a postmortem")
	}
	if _, ok := r1.State["incident/pm1"]; !ok || r1.Requests != 4 || len(r1.Bodies) != 3 {
		t.Errorf("first poll: got state %+v, %d requests, %d bodies", r1.State, r1.Requests, len(r1.Bodies))
	}
	// The lookup is remembered under incident/<id> alone, by the hash of the page that
	// answered; each body it read is evidence under its own name.
	var names []string
	for _, b := range r1.Bodies {
		names = append(names, b.Endpoint)
	}
	if want := []string{"incidents", "incident/pm1", "incident-page/pm1"}; !slices.Equal(names, want) {
		t.Errorf("first poll: got bodies of %v, want %v", names, want)
	}
	if st := r1.State["incident/pm1"]; len(r1.State) != 3 || !st.Equal(model.EndpointState{Hash: r1.Bodies[2].Hash}) || r1.State[fetch.EndpointSummary].Absent.IsZero() {
		t.Errorf("first poll: got state %+v, want incidents, the summary absent and incident/pm1 with the page's hash only", r1.State)
	}
	archived := r1.Snapshot.Incidents[0]

	// Second poll: the list changed (an update was added), the archive has the postmortem.
	// It is carried over; nothing more is fetched.
	changed := fetchtest.RawIncident("pm1", "postmortem")
	changed["incident_updates"] = append(changed["incident_updates"].([]map[string]any), map[string]any{
		"id": "pm1-u2", "status": "postmortem", "body": "Postmortem published.", "created_at": "2026-03-07T15:00:00Z",
	})
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "incidents", changed)})
	r2, err := p.Poll(context.Background(), fetch.Request{
		Source: src, State: r1.State, Now: fetchtest.PollNow,
		Archived: func(id string) *model.Incident {
			if id == "pm1" {
				return &archived
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pIncidents}) {
		t.Errorf("second poll: got requests %v, want incidents.json only", got)
	}
	got := r2.Snapshot.Incidents[0]
	if !reflect.DeepEqual(got.Postmortem, archived.Postmortem) || got.Postmortem == archived.Postmortem {
		t.Errorf("second poll: got postmortem %+v, want a copy of the archived one", got.Postmortem)
	}
	if len(got.Updates) != 2 || r2.Requests != 1 {
		t.Errorf("second poll: got %d updates, %d requests", len(got.Updates), r2.Requests)
	}

	// Third poll: no archive callback, but the lookup is remembered in the state.
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "incidents", changed, fetchtest.RawIncident("new1", "investigating"))})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pIncidents}) {
		t.Errorf("third poll: got requests %v, want incidents.json only", got)
	}
	if _, ok := r3.State["incident/pm1"]; !ok {
		t.Error("third poll: lookup forgotten")
	}

	// Fourth poll: the incident left the list; its lookup state goes with it.
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "incidents", fetchtest.RawIncident("new1", "investigating"))})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if _, ok := r4.State["incident/pm1"]; ok {
		t.Error("fourth poll: lookup state kept for an incident no longer listed")
	}
}

// TestPollPostmortemLookupStateOnDisk: the fetch state an existing archive holds, as
// earlier versions wrote it (JSON, the lookup under "incident/<id>": the hash of the body
// that answered, or nothing after a 4xx), still means "already looked up": a restart after
// an upgrade fetches no postmortem again.
func TestPollPostmortemLookupStateOnDisk(t *testing.T) {
	for _, stored := range []string{
		`{"incidents":{"etag":"\"old\"","hash":"00"},"incident/pm1":{"hash":"5d41402abc4b2a76b9719d911017c592"}}`,
		`{"incidents":{"etag":"\"old\"","hash":"00"},"incident/pm1":{}}`,
	} {
		var state model.FetchState
		if err := stdjson.Unmarshal([]byte(stored), &state); err != nil {
			t.Fatal(err)
		}
		page := postmortemPage(t, []byte(`{"incident":{"id":"pm1"}}`))
		srv := fetchtest.NewServer(t, page)
		res, err := statuspage(t, fetch.ClientOptions{}).Poll(context.Background(), fetch.Request{Source: model.Source{URL: srv.URL}, State: state, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatal(err)
		}
		if got := page.Paths(); !slices.Equal(got, []string{pIncidents, pSummary}) {
			t.Errorf("state %s: got requests %v, want incidents.json and the summary only", stored, got)
		}
		if !res.State["incident/pm1"].Equal(state["incident/pm1"]) {
			t.Errorf("state %s: got lookup state %+v, want it kept", stored, res.State["incident/pm1"])
		}
	}
}

func TestPollPostmortemFromIncidentJSON(t *testing.T) {
	page := postmortemPage(t, []byte(`{"incident":{"id":"pm1","status":"postmortem",
		"postmortem_body":"##### Root cause\nA bad deploy.","postmortem_published_at":"2026-03-07T15:00:00Z"}}`))
	srv := fetchtest.NewServer(t, page)
	res, err := statuspage(t, fetch.ClientOptions{}).Poll(context.Background(), fetch.Request{Source: model.Source{URL: srv.URL}, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pIncidents, pSummary, "/api/v2/incidents/pm1.json"}) {
		t.Errorf("got requests %v, want no HTML page", got)
	}
	want := &model.Postmortem{Body: "##### Root cause\nA bad deploy.", Format: model.FormatMarkdown, PublishedAt: time.Date(2026, 3, 7, 15, 0, 0, 0, time.UTC)}
	if got := res.Snapshot.Incidents[0].Postmortem; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestPollPostmortemEndpointOverrides(t *testing.T) {
	page := fetchtest.NewFakePage()
	unsafe := fetchtest.RawIncident("..", "postmortem") // vendor data: never put in a path
	pm := fetchtest.RawIncident("pm1", "postmortem")
	delete(pm, "shortlink")
	page.Set("/mirror/incidents", fetchtest.Route{Body: fetchtest.IncidentsBody(t, "incidents", pm, unsafe)})
	page.Set("/mirror/incident/pm1", fetchtest.Route{Body: []byte(`{"incident":{"id":"pm1"}}`)})
	page.Set("/mirror/page/pm1", fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "synthetic-statuspage-incident-page.html")})
	srv := fetchtest.NewServer(t, page)
	src := model.Source{URL: "http://status.invalid/", Endpoints: map[string]string{
		fetch.EndpointIncidents: srv.URL + "/mirror/incidents",
		EndpointIncident:        srv.URL + "/mirror/incident/{id}",
		EndpointIncidentPage:    srv.URL + "/mirror/page/{id}",
	}}
	res, err := statuspage(t, fetch.ClientOptions{}).Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := page.Paths(), []string{"/mirror/incidents", "/mirror/incident/pm1", "/mirror/page/pm1"}; !slices.Equal(got, want) {
		t.Errorf("got requests %v, want %v", got, want)
	}
	if res.Snapshot.Incidents[0].Postmortem == nil || res.Snapshot.Incidents[1].Postmortem != nil {
		t.Errorf("got postmortems %+v, %+v", res.Snapshot.Incidents[0].Postmortem, res.Snapshot.Incidents[1].Postmortem)
	}
	// Without a shortlink the incident's page is derived from the source URL.
	if u := res.Snapshot.Incidents[0].URL; u != "http://status.invalid/incidents/pm1" {
		t.Errorf("got URL %q", u)
	}
}

func TestPollPostmortemLookupFailures(t *testing.T) {
	t.Run("gone is remembered", func(t *testing.T) {
		page := postmortemPage(t, nil)
		page.Set("/api/v2/incidents/pm1.json", fetchtest.Route{Status: 404})
		page.Set("/incidents/pm1", fetchtest.Route{Status: 403, Body: []byte("bot wall")})
		srv := fetchtest.NewServer(t, page)
		res, err := statuspage(t, fetch.ClientOptions{}).Poll(context.Background(), fetch.Request{Source: model.Source{URL: srv.URL}, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 4 || res.Snapshot.Incidents[0].Postmortem != nil { // with the summary's 404
			t.Errorf("got %d requests, postmortem %+v", res.Requests, res.Snapshot.Incidents[0].Postmortem)
		}
		if _, ok := res.State["incident/pm1"]; !ok {
			t.Error("a 4xx lookup is not remembered: it would be retried on every change")
		}
		if res.State[fetch.EndpointIncidents].Hash == "" {
			t.Error("incidents state not advanced")
		}
	})
	t.Run("transient is retried", func(t *testing.T) {
		page := postmortemPage(t, []byte(`{"incident":{"id":"pm1"}}`))
		page.Set("/incidents/pm1", fetchtest.Route{Status: 502})
		srv := fetchtest.NewServer(t, page)
		p := statuspage(t, fetch.ClientOptions{})
		prev := model.FetchState{fetch.EndpointIncidents: {ETag: `"old"`, Hash: "old"}, fetch.EndpointSummary: fetch.AbsentState(fetchtest.PollNow)}
		res, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{URL: srv.URL}, State: prev, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatalf("a failed postmortem lookup failed the poll: %v", err)
		}
		if res.Snapshot == nil || len(res.Snapshot.Incidents) != 2 || res.Snapshot.Incidents[0].Postmortem != nil {
			t.Fatalf("got snapshot %+v", res.Snapshot)
		}
		// The incidents endpoint keeps its old state so the next poll parses the list
		// again and retries the lookup.
		if _, ok := res.State["incident/pm1"]; ok || !res.State[fetch.EndpointIncidents].Equal(prev[fetch.EndpointIncidents]) || res.StateChanged(prev) {
			t.Errorf("got state %+v, want the previous one", res.State)
		}
		page.Requests()
		page.Set("/incidents/pm1", fetchtest.Route{Body: fetchtest.Testdata(t, "statuspage", "synthetic-statuspage-incident-page.html")})
		res, err = p.Poll(context.Background(), fetch.Request{Source: model.Source{URL: srv.URL}, State: res.State, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatal(err)
		}
		if got := page.Paths(); len(got) != 3 || res.Snapshot.Incidents[0].Postmortem == nil {
			t.Errorf("retry: got requests %v, postmortem %+v", got, res.Snapshot.Incidents[0].Postmortem)
		}
	})
}

// TestPollClosesEveryBody counts response bodies over polls that take every path: 200s,
// 304s, postmortem lookups, a 4xx, a malformed list.
func TestPollClosesEveryBody(t *testing.T) {
	page := postmortemPage(t, []byte(`{"incident":{"id":"pm1"}}`))
	page.Set(pIncidents, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "incidents", fetchtest.RawIncident("pm1", "postmortem")), ETag: `"e1"`})
	page.Set(pMaintenances, fetchtest.Route{Body: fetchtest.IncidentsBody(t, "scheduled_maintenances"), ETag: `"m1"`})
	page.Set(pSummary, fetchtest.Route{Status: 404})
	srv := fetchtest.NewServer(t, page)
	cc := &fetchtest.CloseCounter{RT: http.DefaultTransport}
	p := statuspage(t, fetch.ClientOptions{Transport: cc})

	src := source(srv.URL)
	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow}) // 304s
	p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow}) // 404 summary
	page.Set(pIncidents, fetchtest.Route{Body: []byte("<html>")})
	p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow}) // malformed
	if o, c := cc.Opened.Load(), cc.Closed.Load(); o != c || o != 4+2+3+1 {
		t.Errorf("got %d bodies opened, %d closed; want 10 and 10", o, c)
	}
}

func TestNew(t *testing.T) {
	c := fetchtest.MustClient(t, fetch.ClientOptions{})
	srv := fetchtest.NewServer(t, realPage(t))
	for _, kind := range []string{"statuspage", "auto", ""} {
		p, err := fetch.New(kind, c)
		if err != nil {
			t.Errorf("New(%q): %v", kind, err)
			continue
		}
		// It polls as Statuspage: the real incident list, decoded with text bodies
		// (incident.io, which reads the same JSON, writes markdown).
		res, err := p.Poll(context.Background(), fetch.Request{Source: source(srv.URL), Now: fetchtest.PollNow})
		if err != nil || res.Snapshot == nil || len(res.Snapshot.Incidents) != 5 || res.Snapshot.Incidents[0].Updates[0].Format != model.FormatText {
			t.Errorf("New(%q): got %+v, %v; want Statuspage's poll of 5 incidents", kind, res, err)
		}
	}
	if _, err := fetch.New("geocities", c); err == nil || !strings.Contains(err.Error(), "statuspage") {
		t.Errorf("unknown kind: got %v, want an error listing the known kinds", err)
	}
	if !slices.Contains(fetch.Kinds(), Kind) {
		t.Errorf("Kinds(): got %v", fetch.Kinds())
	}
}

// TestStatuspageContract: the contract every platform keeps.
func TestStatuspageContract(t *testing.T) {
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "github", URL: base} },
		Routes: map[string]fetchtest.Route{
			pIncidents: {Body: fetchtest.Testdata(t, "statuspage", "github-incidents-2026-08-top5.json")},
			pSummary:   {Body: fetchtest.Testdata(t, "statuspage", "github-summary-2022-11-25.json")},
		},
		Main: pIncidents,
	}.Run(t)
}
