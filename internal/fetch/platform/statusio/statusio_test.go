package statusio

// The status.io adapter. No real status.io payload exists (testdata/SOURCES.md
// lists api.status.io/1.0/status/<id> as searched for and not
// found), so testdata/statusio holds synthetic-* fixtures:
//   - synthetic-statusio-status-ok.json is the example response of status.io's Public Status
//     API documentation (https://kb.status.io/developers/public-status-api/), verbatim in
//     content; synthetic-statusio-status.json follows its "detailed example" (open incident,
//     active and upcoming maintenance) with the incident and message fields
//     (_id, datetime_open, datetime_planned_*, messages[].details/state/status/datetime,
//     components_affected, containers_affected) that public status.io clients read.
//   - synthetic-statusio-feed.rss: status.io documents no feed format. It is an RSS 2.0 feed
//     whose item links are status.io incident links (/pages/incident/<page id>/<incident id>,
//     the form of the links GitLab's runbooks cite for status.gitlab.com), one item per update.
//   - synthetic-statusio-page.html: the parts of a status.io page the adapter reads, its links
//     to /pages/<page id>/rss and /pages/incident/<page id>/….

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"github.com/statuswatch/statuswatch/internal/model"
)

const (
	sioPage   = "5b36dc6502d06804c08349f7"
	sioOpen   = "66c1c0de0000000000000001"
	sioActive = "66c1c0de0000000000000002"
	sioUpcome = "66c1c0de0000000000000003"
	sioClosed = "66b0c0de0000000000000010"
	sioMaintC = "66a0c0de0000000000000020"
)

var sioBase, _ = url.Parse("https://status.gitlab.com/")

func sioDecode(t *testing.T, status string, feed bool, archived func(string) *model.Incident) (*sioFeed, []model.Incident) {
	t.Helper()
	api, err := decodeStatusIO("application/json", fetchtest.Testdata(t, "statusio", status))
	if err != nil {
		t.Fatal(err)
	}
	var f *sioFeed
	if feed {
		if f, err = decodeStatusIOFeed("application/rss+xml", fetchtest.Testdata(t, "statusio", "synthetic-statusio-feed.rss")); err != nil {
			t.Fatal(err)
		}
	}
	incs := normaliseStatusIO(api, f, sioPage, sioBase, archived)
	fetchtest.CheckIncidents(t, incs)
	return f, incs
}

func TestStatusIOAPI(t *testing.T) {
	_, incs := sioDecode(t, "synthetic-statusio-status.json", false, nil)
	if len(incs) != 3 {
		t.Fatalf("got %d incidents, want the open incident and two maintenance", len(incs))
	}
	type upd struct {
		id     string
		status model.Status
		posted string
	}
	inc := fetchtest.ByID(t, incs, sioOpen)
	if inc.Kind != model.KindIncident || inc.Title != "Git operations failing over SSH" ||
		inc.Status != model.StatusIdentified || inc.StatusRaw != "200" || inc.Impact != model.ImpactMajor || inc.ImpactRaw != "400" {
		t.Errorf("incident: got %s %q %s (%s) %s (%s)", inc.Kind, inc.Title, inc.Status, inc.StatusRaw, inc.Impact, inc.ImpactRaw)
	}
	if !reflect.DeepEqual(inc.Components, []string{"Git Operations"}) || !inc.StartedAt.Equal(fetchtest.MustTime("2026-08-18T09:55:00Z")) || !inc.ResolvedAt.IsZero() {
		t.Errorf("incident: got components %q started %v resolved %v", inc.Components, inc.StartedAt, inc.ResolvedAt)
	}
	if want := "https://status.gitlab.com/pages/incident/" + sioPage + "/" + sioOpen; inc.URL != want {
		t.Errorf("incident: got URL %q, want %q", inc.URL, want)
	}
	var got []upd
	for _, u := range inc.Updates {
		got = append(got, upd{u.ID, u.Status, u.PostedAt.Format(time.RFC3339)})
	}
	if want := []upd{{"66c1c0de00000000000000a1", model.StatusInvestigating, "2026-08-18T09:55:00Z"}, {"66c1c0de00000000000000a2", model.StatusIdentified, "2026-08-18T10:12:00Z"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("incident: got updates %v, want %v", got, want)
	}
	if u := inc.Updates[0]; u.Format != model.FormatHTML || u.Body != "We are investigating failures of git operations over SSH." || u.HTML != "We are investigating failures of <b>git operations over SSH</b>." {
		t.Errorf("HTML message: got %+v", u)
	}
	if u := inc.Updates[1]; u.Format != model.FormatText || u.HTML != "" {
		t.Errorf("text message: got %+v", u)
	}

	m := fetchtest.ByID(t, incs, sioActive)
	if m.Kind != model.KindMaintenance || m.Status != model.StatusInProgress || m.StatusRaw != "active" || m.Impact != model.ImpactMaintenance ||
		!m.ScheduledFor.Equal(fetchtest.MustTime("2026-08-18T09:00:00Z")) || !m.ScheduledUntil.Equal(fetchtest.MustTime("2026-08-18T13:00:00Z")) ||
		!m.StartedAt.Equal(m.ScheduledFor) || !reflect.DeepEqual(m.Components, []string{"API"}) {
		t.Errorf("active maintenance: got %+v", m)
	}
	got = nil
	for _, u := range m.Updates {
		got = append(got, upd{u.ID, u.Status, u.PostedAt.Format(time.RFC3339)})
	}
	if want := []upd{{fetch.UpdateKey(sioActive, "2026-08-11T12:00:00Z", 0), "", "2026-08-11T12:00:00Z"}, {fetch.UpdateKey(sioActive, "2026-08-18T09:00:00Z", 0), "", "2026-08-18T09:00:00Z"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("active maintenance: got updates %v, want %v (keyed as updates without id are)", got, want)
	}
	u := fetchtest.ByID(t, incs, sioUpcome)
	if u.Status != model.StatusScheduled || u.StatusRaw != "upcoming" || !reflect.DeepEqual(u.Components, []string{"API", "Git Operations"}) ||
		!u.ScheduledFor.Equal(fetchtest.MustTime("2026-08-25T02:00:00Z")) || u.URL != "https://status.gitlab.com/pages/maintenance/"+sioPage+"/"+sioUpcome {
		t.Errorf("upcoming maintenance: got %+v", u)
	}

	// The documentation's all-clear: nothing open, which for an open-only API is a healthy page.
	_, none := sioDecode(t, "synthetic-statusio-status-ok.json", false, nil)
	if len(none) != 0 {
		t.Errorf("all clear: got %d incidents", len(none))
	}
}

func TestStatusIOMapping(t *testing.T) {
	for _, tc := range []struct {
		code   string
		state  model.Status
		impact model.Impact
	}{
		{"100", model.StatusInvestigating, model.ImpactNone},
		{"200", model.StatusIdentified, model.ImpactUnknown},
		{"300", model.StatusMonitoring, model.ImpactMinor},
		{"400", "", model.ImpactMajor},
		{"500", "", model.ImpactCritical},
		{"600", "", model.ImpactUnknown},
		{"", "", model.ImpactUnknown},
	} {
		if got := sioState(payload.FlexID(tc.code)); got != tc.state {
			t.Errorf("state %s: got %q, want %q", tc.code, got, tc.state)
		}
		if got := sioImpact(payload.FlexID(tc.code)); got != tc.impact {
			t.Errorf("status %s: got %s, want %s", tc.code, got, tc.impact)
		}
	}
	// The worst status over the messages wins: monitoring back at 100 does not downgrade.
	ev := sioEvent{ID: "x", Messages: []sioMessage{
		{Details: "a", State: "100", Status: "500", Datetime: "2026-01-01T00:00:00Z"},
		{Details: "b", State: "300", Status: "100", Datetime: "2026-01-01T01:00:00Z"},
	}}
	if got := ev.normalise(model.KindIncident, "", "", sioPage, sioBase); got.Impact != model.ImpactCritical || got.ImpactRaw != "500" || got.Status != model.StatusMonitoring || got.StatusRaw != "300" {
		t.Errorf("got %s (%s) %s (%s), want critical (500) monitoring (300)", got.Impact, got.ImpactRaw, got.Status, got.StatusRaw)
	}
}

func TestStatusIOFeed(t *testing.T) {
	feed, incs := sioDecode(t, "synthetic-statusio-status.json", true, nil)
	if feed.title != "GitLab System Status" || len(feed.items) != 4 {
		t.Errorf("got feed %q with %d items", feed.title, len(feed.items))
	}
	if len(incs) != 5 {
		t.Fatalf("got %d incidents, want 3 open and 2 from the feed", len(incs))
	}
	// The open incident is the API's: its feed item does not add to it.
	if open := fetchtest.ByID(t, incs, sioOpen); len(open.Updates) != 2 || open.Status != model.StatusIdentified {
		t.Errorf("open incident: got %+v", open)
	}
	c := fetchtest.ByID(t, incs, sioClosed)
	if c.Kind != model.KindIncident || c.Status != model.StatusResolved || c.StatusRaw != "" || c.Impact != model.ImpactUnknown || c.Title != "Elevated CI job queue times" ||
		!c.StartedAt.Equal(fetchtest.MustTime("2026-08-17T14:05:00Z")) || !c.ResolvedAt.Equal(fetchtest.MustTime("2026-08-17T15:40:00Z")) ||
		c.URL != "https://status.gitlab.com/pages/incident/"+sioPage+"/"+sioClosed {
		t.Errorf("closed incident: got %+v", c)
	}
	if len(c.Updates) != 2 || c.Updates[0].Body != "We are investigating elevated queue times for CI jobs on shared runners." ||
		c.Updates[0].ID != fetch.UpdateKey(sioClosed, "2026-08-17T14:05:00Z", 0) {
		t.Fatalf("closed incident: got updates %+v", c.Updates)
	}
	last := c.Updates[1]
	if last.Format != model.FormatHTML || last.Body != "Queue times are back to normal. Incident issue" ||
		strings.Contains(last.HTML, "script") || strings.Contains(last.HTML, "onclick") || strings.Contains(last.Body, "alert") ||
		!strings.Contains(last.HTML, `href="https://gitlab.com/gitlab-com/gl-infra/production/-/issues/1"`) {
		t.Errorf("closed incident: got last update %+v", last)
	}
	m := fetchtest.ByID(t, incs, sioMaintC)
	if m.Kind != model.KindMaintenance || m.Status != model.StatusCompleted || m.Impact != model.ImpactMaintenance || !m.ResolvedAt.Equal(fetchtest.MustTime("2026-08-09T06:00:00Z")) {
		t.Errorf("completed maintenance: got %+v", m)
	}
}

// TestStatusIOFeedAfterAPI: an incident the archive has from the API, now gone from it,
// keeps its archived timeline and gets the feed's newer items and its resolution.
func TestStatusIOFeedAfterAPI(t *testing.T) {
	_, open := sioDecode(t, "synthetic-statusio-status.json", false, nil)
	was := fetchtest.ByID(t, open, sioOpen)
	feed := bytes.Replace(fetchtest.Testdata(t, "statusio", "synthetic-statusio-feed.rss"), []byte("<item>"), []byte(`<item>
      <title>Git operations failing over SSH</title>
      <link>https://status.gitlab.com/pages/incident/`+sioPage+`/`+sioOpen+`</link>
      <pubDate>Tue, 18 Aug 2026 11:00:00 +0000</pubDate>
      <description>Resolved: SSH works again.</description>
    </item>
    <item>`), 1)
	api, err := decodeStatusIO("application/json", fetchtest.Testdata(t, "statusio", "synthetic-statusio-status-ok.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeStatusIOFeed("", feed)
	if err != nil {
		t.Fatal(err)
	}
	archived := func(id string) *model.Incident {
		if id == sioOpen {
			c := was
			return &c
		}
		return nil
	}
	incs := normaliseStatusIO(api, f, sioPage, sioBase, archived)
	fetchtest.CheckIncidents(t, incs)
	got := fetchtest.ByID(t, incs, sioOpen)
	if got.Status != model.StatusResolved || got.StatusRaw != "" || !got.ResolvedAt.Equal(fetchtest.MustTime("2026-08-18T11:00:00Z")) {
		t.Errorf("got status %s (%s) resolved %v", got.Status, got.StatusRaw, got.ResolvedAt)
	}
	if got.Impact != model.ImpactMajor || got.Title != was.Title || !reflect.DeepEqual(got.Components, was.Components) || got.URL != was.URL {
		t.Errorf("lost what the API said: got %+v", got)
	}
	if len(got.Updates) != 3 || got.Updates[0].ID != was.Updates[0].ID || got.Updates[1].ID != was.Updates[1].ID || got.Updates[2].Body != "Resolved: SSH works again." {
		t.Errorf("got updates %+v, want the API's two and the resolution", got.Updates)
	}
	if len(was.Updates) != 2 || was.Status != model.StatusIdentified {
		t.Error("the archived version was modified")
	}
}

// TestStatusIOStableKeys: maintenance messages without ids keep their keys when edited.
func TestStatusIOStableKeys(t *testing.T) {
	body := fetchtest.Testdata(t, "statusio", "synthetic-statusio-status.json")
	edited := bytes.Replace(body, []byte("The maintenance has started."), []byte("The maintenance has started, 10 minutes late."), 1)
	a, err := decodeStatusIO("", body)
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeStatusIO("", edited)
	if err != nil {
		t.Fatal(err)
	}
	x := fetchtest.ByID(t, normaliseStatusIO(a, nil, sioPage, sioBase, nil), sioActive)
	y := fetchtest.ByID(t, normaliseStatusIO(b, nil, sioPage, sioBase, nil), sioActive)
	if x.Updates[1].ID != y.Updates[1].ID || x.Updates[1].Body == y.Updates[1].Body || y.Updates[1].Body != "The maintenance has started, 10 minutes late." {
		t.Errorf("got %+v then %+v", x.Updates[1], y.Updates[1])
	}
}

func TestStatusIOMalformed(t *testing.T) {
	full := fetchtest.Testdata(t, "statusio", "synthetic-statusio-status.json")
	for _, tc := range []struct {
		name, ct string
		body     []byte
		refused  bool
	}{
		{"html", "text/html", []byte("<html><body>GitLab System Status</body></html>"), false},
		{"empty", "application/json", nil, false},
		{"truncated", "application/json", full[:len(full)/2], false},
		{"unknown page", "application/json", []byte(`{"error":"status page not found"}`), true},
		{"no result", "application/json", []byte(`{"status":{"code":200}}`), false},
		{"maintenance of the wrong type", "application/json", []byte(`{"result":{"incidents":[],"maintenance":"none"}}`), false},
		{"incident without id", "application/json", []byte(`{"result":{"incidents":[{"name":"x"}]}}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeStatusIO(tc.ct, tc.body)
			if !errors.Is(err, payload.ErrMalformed) || errors.Is(err, errStatusIORefused) != tc.refused {
				t.Errorf("got %v, want ErrMalformed (refused %v)", err, tc.refused)
			}
		})
	}
	// Maintenance seen as a bare list is read as the active ones.
	api, err := decodeStatusIO("", []byte(`{"result":{"incidents":[],"maintenance":[{"_id":"m1","name":"x"}]}}`))
	if err != nil || len(api.active) != 1 {
		t.Errorf("maintenance list: got %+v, %v", api, err)
	}
	for _, bad := range [][]byte{nil, []byte("<html></html>"), []byte(`{"result":{}}`)} {
		if _, err := decodeStatusIOFeed("", bad); !errors.Is(err, payload.ErrMalformed) {
			t.Errorf("feed %q: got %v, want ErrMalformed", bad, err)
		}
	}
}

func statusIOProvider(t *testing.T) fetch.Provider {
	t.Helper()
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStatusIOPageID: the page id comes from an override or the source URL when they hold
// it; else from the page, read once and remembered.
func TestStatusIOPageID(t *testing.T) {
	pStatus := "/1.0/status/" + sioPage
	pFeed := "/pages/" + sioPage + "/rss"
	page := fetchtest.NewFakePage()
	page.Set("/", fetchtest.Route{Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-page.html"), ContentType: "text/html; charset=utf-8"})
	page.Set(pStatus, fetchtest.Route{Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-status.json"), ETag: `"s1"`})
	page.Set(pFeed, fetchtest.Route{Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-feed.rss"), ETag: `"f1"`, ContentType: "application/rss+xml"})
	srv := fetchtest.NewServer(t, page)
	p := statusIOProvider(t)

	t.Run("from the page, once", func(t *testing.T) {
		src := model.Source{Name: "gitlab", URL: srv.URL, Endpoints: map[string]string{"status": srv.URL + "/1.0/status/{id}"}}
		r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatal(err)
		}
		if got := page.Paths(); !slices.Equal(got, []string{"/", pStatus, pFeed}) {
			t.Fatalf("first poll: got requests %v", got)
		}
		if _, ok := r1.State[statusIOPageIDState+sioPage]; !ok || r1.Requests != 3 {
			t.Errorf("first poll: got state %v, %d requests", r1.State, r1.Requests)
		}
		if _, kept := r1.State[EndpointPage]; kept {
			t.Error("the page's own state is kept")
		}
		r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatal(err)
		}
		reqs := page.Requests()
		if len(reqs) != 2 || reqs[0].Path != pStatus || reqs[0].IfNoneMatch != `"s1"` || reqs[1].Path != pFeed || reqs[1].IfNoneMatch != `"f1"` {
			t.Errorf("second poll: got requests %+v", reqs)
		}
		if r2.Snapshot != nil || r2.StateChanged(r1.State) {
			t.Errorf("second poll: got %+v", r2)
		}
	})
	t.Run("from the status override", func(t *testing.T) {
		src := model.Source{Name: "gitlab", URL: srv.URL, Endpoints: map[string]string{"status": srv.URL + pStatus}}
		if _, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow}); err != nil {
			t.Fatal(err)
		}
		if got := page.Paths(); !slices.Equal(got, []string{pStatus, pFeed}) {
			t.Errorf("got requests %v, want no page read", got)
		}
	})
	t.Run("from the source URL", func(t *testing.T) {
		src := model.Source{Name: "gitlab", URL: srv.URL + "/pages/" + sioPage, Endpoints: map[string]string{"status": srv.URL + "/1.0/status/{id}"}}
		if _, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow}); err != nil {
			t.Fatal(err)
		}
		if got := page.Paths(); !slices.Equal(got, []string{pStatus, pFeed}) {
			t.Errorf("got requests %v, want no page read, the feed beside /pages/", got)
		}
	})
	t.Run("not on the page", func(t *testing.T) {
		bare := fetchtest.NewFakePage()
		bare.Set("/", fetchtest.Route{Body: []byte("<html><title>Status</title></html>"), ContentType: "text/html"})
		s := fetchtest.NewServer(t, bare)
		_, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{Name: "x", URL: s.URL}, Now: fetchtest.PollNow})
		if !errors.Is(err, payload.ErrMalformed) || !strings.Contains(err.Error(), "endpoints.status") {
			t.Errorf("got %v, want ErrMalformed naming endpoints.status", err)
		}
	})
	t.Run("moved to a new id", func(t *testing.T) {
		const newID = "6878fc85709daa75be6c7e3c"
		moved := fetchtest.NewFakePage()
		moved.Set("/", fetchtest.Route{Body: []byte(`<a href="/pages/` + newID + `/rss">RSS</a>`), ContentType: "text/html"})
		moved.Set("/1.0/status/"+sioPage, fetchtest.Route{Body: []byte(`{"error":"status page not found"}`)})
		moved.Set("/1.0/status/"+newID, fetchtest.Route{Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-status-ok.json")})
		moved.Set("/pages/"+newID+"/rss", fetchtest.Route{Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-feed.rss")})
		s := fetchtest.NewServer(t, moved)
		src := model.Source{Name: "x", URL: s.URL, Endpoints: map[string]string{"status": s.URL + "/1.0/status/{id}"}}
		state := model.FetchState{statusIOPageIDState + sioPage: {}}
		res, err := p.Poll(context.Background(), fetch.Request{Source: src, State: state, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatal(err)
		}
		if _, old := res.State[statusIOPageIDState+sioPage]; old {
			t.Error("kept the refused id")
		}
		if _, ok := res.State[statusIOPageIDState+newID]; !ok || res.Snapshot == nil {
			t.Errorf("got state %v, snapshot %v", res.State, res.Snapshot)
		}
		want := []string{"/1.0/status/" + sioPage, "/pages/" + sioPage + "/rss", "/", "/1.0/status/" + newID, "/pages/" + newID + "/rss"}
		if got := moved.Paths(); !slices.Equal(got, want) {
			t.Errorf("got requests %v, want %v", got, want)
		}
	})
}

func TestStatusIOPoll(t *testing.T) {
	pStatus := "/1.0/status/" + sioPage
	pFeed := "/gitlab/pages/" + sioPage + "/rss"
	page := fetchtest.NewFakePage()
	status := fetchtest.Testdata(t, "statusio", "synthetic-statusio-status.json")
	feed := fetchtest.Testdata(t, "statusio", "synthetic-statusio-feed.rss")
	page.Set(pStatus, fetchtest.Route{Body: status, ETag: `"s1"`})
	page.Set(pFeed, fetchtest.Route{Body: feed, ETag: `"f1"`, ContentType: "application/rss+xml"})
	srv := fetchtest.NewServer(t, page)
	p := statusIOProvider(t)
	src := model.Source{Name: "gitlab", URL: srv.URL + "/gitlab", Kind: Kind, Endpoints: map[string]string{"status": srv.URL + pStatus}}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pStatus, pFeed}) {
		t.Fatalf("first poll: got requests %v", got)
	}
	s := r1.Snapshot
	if s == nil || !s.OpenOnly || s.PageTitle != "GitLab System Status" || len(s.Incidents) != 5 ||
		!reflect.DeepEqual(s.Listings, []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}) {
		t.Fatalf("first poll: got %+v", s)
	}
	wantComps := &model.Components{PageStatus: "400", PageDescription: "Partial Service Disruption", List: []model.Component{
		{ID: "5b36dc6502d06804c08349f9", Name: "API", Status: model.ComponentMaintenance, StatusRaw: "Planned Maintenance"},
		{ID: "5b36dc6502d06804c08349f8", Name: "Git Operations", Status: model.ComponentPartialOutage, StatusRaw: "Partial Service Disruption"},
	}}
	if !reflect.DeepEqual(s.Components, wantComps) {
		t.Errorf("first poll: got components %+v, want %+v", s.Components, wantComps)
	}

	// Second poll: both 304.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if reqs := page.Requests(); len(reqs) != 2 || reqs[0].IfNoneMatch != `"s1"` || reqs[1].IfNoneMatch != `"f1"` || r2.Snapshot != nil || r2.Requests != 2 {
		t.Errorf("second poll: got requests %+v, result %+v", reqs, r2)
	}

	// Third poll: only the feed changed; the API is read again, without validators, so the
	// feed's items are judged against what is open now.
	page.Set(pFeed, fetchtest.Route{Body: bytes.Replace(feed, []byte("Queue times are back to normal."), []byte("Queue times are normal again."), 1), ETag: `"f2"`})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	reqs := page.Requests()
	if len(reqs) != 3 || reqs[0].Path != pStatus || reqs[1].Path != pFeed || reqs[2].Path != pStatus || reqs[2].IfNoneMatch != "" {
		t.Fatalf("third poll: got requests %+v", reqs)
	}
	if r3.Snapshot == nil || len(r3.Snapshot.Incidents) != 5 || r3.Requests != 3 {
		t.Fatalf("third poll: got %+v", r3.Snapshot)
	}
	if r3.Snapshot.Components != nil {
		t.Errorf("third poll: got components %+v from the API read again for the feed, want none", r3.Snapshot.Components)
	}
	if got := fetchtest.ByID(t, r3.Snapshot.Incidents, sioClosed).Updates[1].Body; got != "Queue times are normal again. Incident issue" {
		t.Errorf("third poll: got %q", got)
	}
	for _, b := range r3.Bodies {
		if b.Data == nil {
			t.Errorf("third poll: body %s has no bytes (every body read goes with the evidence; the archive keeps one copy per hash)", b.Endpoint)
		}
	}

	// Fourth poll: the API changed, the feed is failing: the API alone is parsed and the
	// feed keeps its state, to be read again next time.
	page.Set(pStatus, fetchtest.Route{Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-status-ok.json"), ETag: `"s2"`})
	page.Set(pFeed, fetchtest.Route{Status: http.StatusBadGateway, Body: []byte("bad gateway")})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if r4.Snapshot == nil || len(r4.Snapshot.Incidents) != 0 || !r4.Snapshot.OpenOnly || r4.Requests != 2 {
		t.Errorf("fourth poll: got %+v", r4.Snapshot)
	}
	if cs := r4.Snapshot.Components; cs == nil || cs.PageStatus != "100" || len(cs.List) == 0 || slices.ContainsFunc(cs.List, func(c model.Component) bool { return c.Status != model.ComponentOperational }) {
		t.Errorf("fourth poll: got components %+v, want every one operational", cs)
	}
	if !r4.State[fetch.EndpointFeed].Equal(r3.State[fetch.EndpointFeed]) {
		t.Errorf("fourth poll: feed state %+v, want the previous %+v", r4.State[fetch.EndpointFeed], r3.State[fetch.EndpointFeed])
	}
	for _, b := range r4.Bodies {
		if b.Endpoint == fetch.EndpointFeed {
			t.Error("fourth poll: the failed feed is kept as evidence")
		}
	}

	// The API failing fails the poll: it is never an empty page.
	page.Set(pStatus, fetchtest.Route{Body: []byte("<html>maintenance</html>"), ContentType: "text/html"})
	page.Set(pFeed, fetchtest.Route{Body: feed})
	r5, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if !errors.Is(err, payload.ErrMalformed) || r5.Snapshot != nil {
		t.Errorf("html API: got %+v, %v", r5, err)
	}
}

// FuzzStatusIO feeds arbitrary bytes to the API and feed decoders and the page-id finder,
// seeded with the synthetic fixtures. They must reject what they cannot read and never panic.
func FuzzStatusIO(f *testing.F) {
	fetchtest.AddSeeds(f, "statusio")
	f.Add([]byte(`{"result":{"incidents":[{"id":5,"messages":[{"state":"x","status":[]}]}],"maintenance":[{"_id":"m"}]}}`))
	f.Add([]byte(`{"result":{"status_overall":{"status_code":"400"},"status":[{"id":1,"name":"A","status_code":600},{"id":1,"name":"B"},{"name":""}]}}`))
	okAPI, err := decodeStatusIO("", []byte(`{"result":{"incidents":[{"_id":"`+sioOpen+`","name":"x"}]}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sioPageIDInPage.FindSubmatch(data)
		if api, err := decodeStatusIO("application/json", data); err == nil {
			fetchtest.CheckIncidents(t, normaliseStatusIO(api, nil, sioPage, sioBase, nil))
			fetchtest.CheckComponents(t, api.components)
		}
		if feed, err := decodeStatusIOFeed("", data); err == nil {
			incs := normaliseStatusIO(okAPI, feed, sioPage, sioBase, func(string) *model.Incident { return nil })
			fetchtest.CheckIncidents(t, incs)
		}
	})
}

// One API answer that lacks an open incident, with nothing new about it in the feed, is
// no resolution: the incident is left out and the archive's two-miss rule decides.
func TestStatusIOGlitchIsNoResolution(t *testing.T) {
	const page, id = "5b36dc6502d06804c08349f7", "6a1b2c3d4e5f60718293a4b5"
	t1 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	item := func(at time.Time, title string) sioItem {
		return sioItem{ids: []string{page, id}, key: id, kind: model.KindIncident, title: title, body: title, posted: at, stamp: at.Format(time.RFC3339)}
	}
	archived := func(string) *model.Incident {
		return &model.Incident{ID: id, Kind: model.KindIncident, Status: model.StatusIdentified, Title: "API errors",
			Updates: []model.Update{{ID: "x", Status: model.StatusIdentified, Body: "Identified.", PostedAt: t1}}}
	}
	base, _ := url.Parse("https://status.example.com/")
	got := normaliseStatusIO(&sioAPI{}, &sioFeed{items: []sioItem{item(t1, "Identified")}}, page, base, archived)
	if len(got) != 0 {
		t.Errorf("API glitch with a stale feed: got %d incidents (%v), want none", len(got), got[0].Status)
	}
	got = normaliseStatusIO(&sioAPI{}, &sioFeed{items: []sioItem{item(t1, "Identified"), item(t1.Add(time.Hour), "Resolved")}}, page, base, archived)
	if len(got) != 1 || got[0].Status != model.StatusResolved {
		t.Errorf("a newer closing item: got %+v, want the incident resolved", got)
	}
}

// TestStatusIOContract: the contract every platform keeps.
func TestStatusIOContract(t *testing.T) {
	pStatus := "/1.0/status/" + sioPage
	fetchtest.Contract{
		Kind: Kind,
		Source: func(base string) model.Source {
			return model.Source{Name: "gitlab", URL: base + "/pages/" + sioPage, Endpoints: map[string]string{"status": base + "/1.0/status/{id}"}}
		},
		Routes: map[string]fetchtest.Route{
			pStatus:                      {Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-status.json")},
			"/pages/" + sioPage + "/rss": {Body: fetchtest.Testdata(t, "statusio", "synthetic-statusio-feed.rss"), ContentType: "application/rss+xml"},
		},
		Main: pStatus,
	}.Run(t)
}

// TestStatusIOComponentWords: every status code a status.io component has, by code (the
// word kept), and a code outside them.
func TestStatusIOComponentWords(t *testing.T) {
	for _, tc := range []struct {
		code, word string
		want       model.ComponentStatus
	}{
		{"100", "Operational", model.ComponentOperational},
		{"200", "Planned Maintenance", model.ComponentMaintenance},
		{"300", "Degraded Performance", model.ComponentDegraded},
		{"400", "Partial Service Disruption", model.ComponentPartialOutage},
		{"500", "Service Disruption", model.ComponentMajorOutage},
		{"600", "Security Event", fetch.UnknownComponentStatus},
		{"", "", fetch.UnknownComponentStatus},
	} {
		code := tc.code
		if code == "" {
			code = "null"
		}
		cs := sioComponentStates(&sioResult{Components: []byte(fmt.Sprintf(`[{"id":"x","name":"X","status":%q,"status_code":%s}]`, tc.word, code))})
		wantRaw := tc.word
		if wantRaw == "" {
			wantRaw = tc.code
		}
		if c := cs.List; len(c) != 1 || c[0].Status != tc.want || c[0].StatusRaw != wantRaw {
			t.Errorf("%s %q: got %+v, want %s", tc.code, tc.word, c, tc.want)
		}
	}
}

// TestStatusIOOddStatusList: a status list of an odd shape gives no component states and
// leaves the incidents readable.
func TestStatusIOOddStatusList(t *testing.T) {
	api, err := decodeStatusIO("application/json", []byte(`{"result":{"status_overall":"up","status":{"a":1},"incidents":[{"_id":"`+sioOpen+`","name":"x"}]}}`))
	if err != nil || len(api.incidents) != 1 || api.components != nil {
		t.Fatalf("got %+v, %v; want the incident, no component states", api, err)
	}
	api, err = decodeStatusIO("application/json", []byte(`{"result":{"status_overall":[1],"status":[{"id":{},"name":"A","status":7,"status_code":"300"}]}}`))
	if err != nil || api.components == nil || api.components.PageStatus != "" || len(api.components.List) != 1 || api.components.List[0].Status != model.ComponentDegraded {
		t.Fatalf("got %+v, %v; want A degraded, no page status", api.components, err)
	}
}
