package slack

// The Slack adapter against testdata/slack: history-api-v2.0.0.json is the real
// slack-status.com /api/v2.0.0/history answer, copied byte for byte from
// the real captures of testdata/slack (provenance in testdata/SOURCES.md). No real /current answer
// exists: synthetic-slack-current-active.json is the example of Slack's documentation
// (https://docs.slack.dev/reference/slack-status-api, its note cut short there and finished
// here) and synthetic-slack-current-ok.json its "all is well" example, verbatim.

import (
	"context"
	"errors"
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

func decodeSlackFixture(t *testing.T, name string) ([]model.Incident, time.Time) {
	t.Helper()
	list, err := decodeSlackHistory("application/json", fetchtest.Testdata(t, "slack", name))
	if err != nil {
		t.Fatal(err)
	}
	incs, since := normaliseSlackList(list)
	fetchtest.CheckIncidents(t, incs)
	return incs, since
}

func TestSlackHistoryRealPayload(t *testing.T) {
	incs, since := decodeSlackFixture(t, "history-api-v2.0.0.json")
	if got := len(incs); got != 5 {
		t.Fatalf("got %d incidents, want 5", got)
	}
	if want := fetchtest.MustTime("2026-07-24T02:18:40Z"); !since.Equal(want) {
		t.Errorf("got window start %v, want the oldest incident's start %v", since, want)
	}
	want := []struct {
		id, title  string
		status     model.Status
		raw        string
		updates    int
		components []string
		started    string
		resolved   string
		url        string
	}{
		{"1576", "Trouble Accessing Historical Messages With Custom Data Retention Policies Enabled", model.StatusInvestigating, "active", 6,
			[]string{"Messaging", "Workspace/Org Administration"}, "2026-08-13T21:21:41Z", "", "https://slack-status.com/2026-08/e07b9271f0346c3b"},
		{"1575", "Trouble Using Search Bar For Some Admins", model.StatusResolved, "resolved", 3,
			[]string{"Search"}, "2026-08-06T22:22:35Z", "2026-08-07T01:07:04Z", "https://slack-status.com/2026-08/1db1f200d420086a"},
		{"1574", "Feature Degradation Affecting the Receipt of Emails in Slack", model.StatusResolved, "resolved", 3,
			[]string{"Apps/Integrations/APIs"}, "2026-07-28T02:13:57Z", "2026-07-28T03:43:47Z", "https://slack-status.com/2026-07/6b1014d8bfb3afc0"},
		{"1573", "Issue sending messages to channels via certain Workflows", model.StatusResolved, "resolved", 5,
			[]string{"Workflows"}, "2026-07-24T08:22:54Z", "2026-07-24T10:47:02Z", "https://slack-status.com/2026-07/e82ee127d8bed735"},
		{"1572", "Receiving reminders in Slack issue", model.StatusResolved, "resolved", 3,
			[]string{"Notifications"}, "2026-07-24T02:18:40Z", "2026-07-24T03:20:37Z", "https://slack-status.com/2026-07/df254c60ace250d9"},
	}
	for i, w := range want {
		got := incs[i]
		t.Run(w.id, func(t *testing.T) {
			if got.ID != w.id || got.Title != w.title || got.Kind != model.KindIncident {
				t.Errorf("got %s %q %s, want %s %q incident", got.ID, got.Title, got.Kind, w.id, w.title)
			}
			if got.Status != w.status || got.StatusRaw != w.raw {
				t.Errorf("got status %s (%s), want %s (%s)", got.Status, got.StatusRaw, w.status, w.raw)
			}
			if got.Impact != model.ImpactMinor || got.ImpactRaw != "incident" {
				t.Errorf("got impact %s (%s), want minor (incident)", got.Impact, got.ImpactRaw)
			}
			if len(got.Updates) != w.updates || !reflect.DeepEqual(got.Components, w.components) {
				t.Errorf("got %d updates, components %q; want %d, %q", len(got.Updates), got.Components, w.updates, w.components)
			}
			if !got.StartedAt.Equal(fetchtest.MustTime(w.started)) {
				t.Errorf("got started %v, want %s", got.StartedAt, w.started)
			}
			if (w.resolved == "" && !got.ResolvedAt.IsZero()) || (w.resolved != "" && !got.ResolvedAt.Equal(fetchtest.MustTime(w.resolved))) {
				t.Errorf("got resolved %v, want %q", got.ResolvedAt, w.resolved)
			}
			if got.URL != w.url || got.Postmortem != nil {
				t.Errorf("got URL %q postmortem %v, want %q and none", got.URL, got.Postmortem, w.url)
			}
			for _, u := range got.Updates {
				if u.Format != model.FormatHTML || u.Status != "" || strings.ContainsAny(u.Body, "<>") || !strings.HasPrefix(u.HTML, "<p>") {
					t.Errorf("update %s: got format %s status %q body %q html %q", u.ID, u.Format, u.Status, u.Body, u.HTML)
				}
			}
		})
	}

	// The notes of 1576 in detail: HTML turned into clean text, entities decoded, blocks
	// into paragraphs, keyed as updates without id are, on their UTC time.
	inc := incs[0]
	first, last := inc.Updates[0], inc.Updates[5]
	if want := "Users with custom data retention policies enabled might be unable to see or load older messages. We apologize for the trouble and we'll share more news as it becomes available."; first.Body != want {
		t.Errorf("first note: got %q, want %q", first.Body, want)
	}
	if want := fetch.UpdateKey("1576", "2026-08-13T21:21:41Z", 0); first.ID != want || len(first.ID) != 16 {
		t.Errorf("first note: got id %q, want %q", first.ID, want)
	}
	if !first.PostedAt.Equal(fetchtest.MustTime("2026-08-13T21:21:41Z")) {
		t.Errorf("first note: got posted %v", first.PostedAt)
	}
	if want := "We're continuing our restoration efforts regarding this issue affecting a subset of channels with custom message retention settings. While we work to resolve this issue, data retention processing remains paused for affected customers.\n\nWe will provide another update as additional information becomes available."; last.Body != want {
		t.Errorf("last note: got %q, want %q", last.Body, want)
	}
	if strings.Contains(last.Body, "&nbsp;") || strings.Contains(last.Body, "\u00a0") {
		t.Errorf("last note: entity or no-break space left in %q", last.Body)
	}
}

func TestSlackMapping(t *testing.T) {
	for _, tc := range []struct {
		typ, status string
		kind        model.Kind
		want        model.Status
		impact      model.Impact
	}{
		{"outage", "active", model.KindIncident, model.StatusInvestigating, model.ImpactMajor},
		{"outage", "resolved", model.KindIncident, model.StatusResolved, model.ImpactMajor},
		{"incident", "active", model.KindIncident, model.StatusInvestigating, model.ImpactMinor},
		{"incident", "resolved", model.KindIncident, model.StatusResolved, model.ImpactMinor},
		{"notice", "active", model.KindIncident, model.StatusInvestigating, model.ImpactNone},
		{"notice", "completed", model.KindIncident, model.StatusResolved, model.ImpactNone},
		{"maintenance", "scheduled", model.KindMaintenance, model.StatusScheduled, model.ImpactMaintenance},
		{"maintenance", "active", model.KindMaintenance, model.StatusInProgress, model.ImpactMaintenance},
		{"maintenance", "completed", model.KindMaintenance, model.StatusCompleted, model.ImpactMaintenance},
		{"Outage", "Resolved", model.KindIncident, model.StatusResolved, model.ImpactMajor},
		{"degradation", "active", model.KindIncident, model.StatusInvestigating, model.ImpactUnknown},
		{"incident", "", model.KindIncident, model.StatusInvestigating, model.ImpactMinor},
	} {
		t.Run(tc.typ+"/"+tc.status, func(t *testing.T) {
			in := slIncident{ID: "1", Type: tc.typ, Status: tc.status, DateCreated: "2026-01-02T03:04:05-08:00", DateUpdated: "2026-01-02T05:00:00-08:00"}
			got := in.normalise()
			if got.Kind != tc.kind || got.Status != tc.want || got.Impact != tc.impact {
				t.Errorf("got %s %s %s, want %s %s %s", got.Kind, got.Status, got.Impact, tc.kind, tc.want, tc.impact)
			}
			if got.StatusRaw != tc.status || got.ImpactRaw != tc.typ {
				t.Errorf("got raw %q %q, want the provider's words %q %q", got.StatusRaw, got.ImpactRaw, tc.status, tc.typ)
			}
			// Closed without a note: date_updated is all there is.
			if !got.Status.Open() && !got.ResolvedAt.Equal(fetchtest.MustTime("2026-01-02T13:00:00Z")) {
				t.Errorf("got resolved %v, want date_updated", got.ResolvedAt)
			}
		})
	}
}

func TestSlackCurrent(t *testing.T) {
	list, err := decodeSlackCurrent("application/json", fetchtest.Testdata(t, "slack", "synthetic-slack-current-active.json"))
	if err != nil {
		t.Fatal(err)
	}
	incs, _ := normaliseSlackList(list)
	fetchtest.CheckIncidents(t, incs)
	if len(incs) != 1 {
		t.Fatalf("got %d incidents, want 1", len(incs))
	}
	inc := incs[0]
	if inc.ID != "546" || inc.Status != model.StatusInvestigating || inc.Impact != model.ImpactMinor || !reflect.DeepEqual(inc.Components, []string{"Apps/Integrations/APIs"}) {
		t.Errorf("got %+v", inc)
	}
	// A plain-text note stays text; its CRLF becomes LF.
	if u := inc.Updates[0]; u.Format != model.FormatText || u.HTML != "" || !strings.HasPrefix(u.Body, "Technical Summary:\nOn September 7th") {
		t.Errorf("got note %+v", u)
	}

	ok, err := decodeSlackCurrent("application/json", fetchtest.Testdata(t, "slack", "synthetic-slack-current-ok.json"))
	if err != nil || len(ok) != 0 {
		t.Errorf("all is well: got %v, %v; want no incident", ok, err)
	}
	// The oldest documented answer has no active_incidents at all.
	if ok, err := decodeSlackCurrent("", []byte(`{"status":"ok","date_created":"2018-09-07T18:34:15-07:00"}`)); err != nil || len(ok) != 0 {
		t.Errorf("ok without list: got %v, %v", ok, err)
	}
}

func TestSlackMalformed(t *testing.T) {
	history := fetchtest.Testdata(t, "slack", "history-api-v2.0.0.json")
	for _, tc := range []struct {
		name, ct string
		body     []byte
		current  bool
	}{
		{"html page", "text/html; charset=utf-8", []byte("<!DOCTYPE html><html><body>Slack is down</body></html>"), false},
		{"html with json type", "application/json", []byte("  <html></html>"), false},
		{"empty", "application/json", nil, false},
		{"truncated", "application/json", history[:len(history)/2], false},
		{"object, not list", "application/json", []byte(`{"error":"rate_limited"}`), false},
		{"incident without id", "application/json", []byte(`[{"title":"x","notes":[]}]`), false},
		{"id of the wrong type", "application/json", []byte(`[{"id":{"a":1}}]`), false},
		{"current without status", "application/json", []byte(`{"active_incidents":[]}`), true},
		{"current as list", "application/json", []byte(`[]`), true},
		{"current html", "text/html", []byte("<html></html>"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.current {
				_, err = decodeSlackCurrent(tc.ct, tc.body)
			} else {
				_, err = decodeSlackHistory(tc.ct, tc.body)
			}
			if !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
		})
	}
	// An empty list is well-formed: whether it is suspicious is the archive's call.
	if list, err := decodeSlackHistory("application/json", []byte("[]\n")); err != nil || len(list) != 0 {
		t.Errorf("empty list: got %v, %v", list, err)
	}
}

// TestSlackStableKeys: notes have no ids, so their keys must survive what vendors do to
// them: an edited body, a note added later or at the same second, another UTC offset.
func TestSlackStableKeys(t *testing.T) {
	base := slIncident{ID: "7", Type: "incident", Status: "active", DateCreated: "2026-03-03T06:00:00-08:00", Notes: []slNote{
		{Body: "<p>Investigating.</p>", DateCreated: "2026-03-03T06:00:00-08:00"},
		{Body: "<p>Identified.</p>", DateCreated: "2026-03-03T06:30:00-08:00"},
	}}
	ids := func(in slIncident) []string {
		var out []string
		for _, u := range in.normalise().Updates {
			out = append(out, u.ID)
		}
		return out
	}
	orig := ids(base)

	edited := base
	edited.Notes = slices.Clone(base.Notes)
	edited.Notes[0].Body = "<p>Investigating reports of <b>failed</b> logins.</p>"
	if got := ids(edited); !slices.Equal(got, orig) {
		t.Errorf("edited body: got ids %v, want %v", got, orig)
	}
	if got := edited.normalise().Updates[0].Body; got != "Investigating reports of failed logins." {
		t.Errorf("edited body: got %q", got)
	}

	later := edited
	later.Notes = append(slices.Clone(edited.Notes), slNote{Body: "Resolved.", DateCreated: "2026-03-03T07:00:00-08:00"})
	if got := ids(later); !slices.Equal(got[:2], orig) || len(got) != 3 {
		t.Errorf("a later note: got ids %v, want %v and one more", got, orig)
	}

	sameSecond := base
	sameSecond.Notes = append(slices.Clone(base.Notes), slNote{Body: "Correction.", DateCreated: "2026-03-03T06:30:00-08:00"})
	got := ids(sameSecond)
	if !slices.Equal(got[:2], orig) || got[2] != fetch.UpdateKey("7", "2026-03-03T14:30:00Z", 1) {
		t.Errorf("same second: got ids %v, want %v then ordinal 1", got, orig)
	}

	utc := base
	utc.Notes = []slNote{
		{Body: "<p>Investigating.</p>", DateCreated: "2026-03-03T14:00:00Z"},
		{Body: "<p>Identified.</p>", DateCreated: "2026-03-03T07:30:00-07:00"},
	}
	if got := ids(utc); !slices.Equal(got, orig) {
		t.Errorf("other offsets: got ids %v, want %v", got, orig)
	}
}

const (
	pSlackHistory = "/slack/api/v2.0.0/history"
	pSlackCurrent = "/slack/api/v2.0.0/current"
)

func slackProvider(t *testing.T) fetch.Provider {
	t.Helper()
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{UserAgent: "statuswatch/test"}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSlackPoll(t *testing.T) {
	page := fetchtest.NewFakePage()
	page.Set(pSlackHistory, fetchtest.Route{Body: fetchtest.Testdata(t, "slack", "history-api-v2.0.0.json"), ETag: `"h1"`})
	page.Set(pSlackCurrent, fetchtest.Route{Body: fetchtest.Testdata(t, "slack", "synthetic-slack-current-active.json")}) // no validators
	srv := fetchtest.NewServer(t, page)
	p := slackProvider(t)
	src := model.Source{Name: "slack", URL: srv.URL + "/slack", Kind: Kind}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{pSlackHistory, pSlackCurrent}) {
		t.Fatalf("first poll: got requests %v", got)
	}
	s := r1.Snapshot
	if s == nil || s.Source != "slack" || s.PageTitle != "Slack" || !s.FetchedAt.Equal(fetchtest.PollNow) || s.OpenOnly {
		t.Fatalf("first poll: got snapshot %+v", s)
	}
	since := fetchtest.MustTime("2026-07-24T02:18:40Z")
	if want := []model.Listing{{Kind: model.KindIncident, Since: since}, {Kind: model.KindMaintenance, Since: since}}; !reflect.DeepEqual(s.Listings, want) {
		t.Errorf("got listings %+v, want %+v", s.Listings, want)
	}
	if len(s.Incidents) != 6 || s.Incidents[5].ID != "546" {
		t.Errorf("got %d incidents, want the history's 5 and the current one", len(s.Incidents))
	}
	if r1.Requests != 2 || len(r1.Bodies) != 2 || r1.Bodies[0].Data == nil || r1.Bodies[1].Data == nil {
		t.Errorf("got %d requests, bodies %+v", r1.Requests, r1.Bodies)
	}

	// Second poll: history 304, current byte-identical; nothing parsed.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	reqs := page.Requests()
	if len(reqs) != 2 || reqs[0].IfNoneMatch != `"h1"` || reqs[1].IfNoneMatch != "" {
		t.Errorf("second poll: got requests %+v", reqs)
	}
	if r2.Snapshot != nil || r2.Requests != 2 || r2.StateChanged(r1.State) {
		t.Errorf("second poll: got snapshot %v, %d requests, state changed %v", r2.Snapshot, r2.Requests, r2.StateChanged(r1.State))
	}
	for _, b := range r2.Bodies {
		if b.Data != nil {
			t.Errorf("second poll: body %s has data", b.Endpoint)
		}
	}

	// Third poll: /current alone changed, with a newer version of 1576 (one more note).
	// It refreshes that incident and claims no listing.
	cur := `{"status":"active","active_incidents":[{"id":1576,"title":"Trouble Accessing Historical Messages","type":"incident","status":"active",
"date_created":"2026-08-13T14:21:41-07:00","date_updated":"2026-08-18T09:00:00-07:00","services":["Messaging"],
"notes":[{"body":"<p>Still on it.</p>","date_created":"2026-08-18T09:00:00-07:00"}]}]}`
	page.Set(pSlackCurrent, fetchtest.Route{Body: []byte(cur)})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r2.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if r3.Snapshot == nil || len(r3.Snapshot.Listings) != 0 || len(r3.Snapshot.Incidents) != 1 {
		t.Fatalf("third poll: got %+v", r3.Snapshot)
	}
	if inc := r3.Snapshot.Incidents[0]; inc.ID != "1576" || inc.Updates[0].Body != "Still on it." {
		t.Errorf("third poll: got %+v", inc)
	}

	// Both parsed, 1576 in both: the answer updated last wins.
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if inc := fetchtest.ByID(t, r4.Snapshot.Incidents, "1576"); len(inc.Updates) != 1 || len(r4.Snapshot.Incidents) != 5 {
		t.Errorf("merge: got 1576 with %d updates among %d incidents, want /current's (1) among 5", len(inc.Updates), len(r4.Snapshot.Incidents))
	}
}

func TestSlackPollMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    fetchtest.Route
	}{
		{"html", fetchtest.Route{Body: []byte("<html><body>Maintenance</body></html>"), ContentType: "text/html"}},
		{"empty", fetchtest.Route{Body: []byte{}}},
		{"truncated", fetchtest.Route{Body: []byte(`[{"id":1,"title":"x"`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := fetchtest.NewFakePage()
			page.Set(pSlackHistory, tc.r)
			page.Set(pSlackCurrent, fetchtest.Route{Body: fetchtest.Testdata(t, "slack", "synthetic-slack-current-ok.json")})
			srv := fetchtest.NewServer(t, page)
			res, err := slackProvider(t).Poll(context.Background(), fetch.Request{Source: model.Source{Name: "slack", URL: srv.URL + "/slack"}, Now: fetchtest.PollNow})
			if !errors.Is(err, payload.ErrMalformed) || res == nil || res.Snapshot != nil || res.Requests != 1 {
				t.Errorf("got %+v, %v; want ErrMalformed after 1 request and no snapshot", res, err)
			}
		})
	}
}

// FuzzSlackStatus feeds arbitrary bytes to both Slack decoders, seeded with testdata/slack.
// They must reject what they cannot read and never panic; what they accept must normalise
// to incidents with ids, sorted components and unique update ids.
func FuzzSlackStatus(f *testing.F) {
	fetchtest.AddSeeds(f, "slack")
	f.Add([]byte(`[{"id":1,"notes":[{"body":"<p>a</p>","date_created":"x"},{"body":"b","date_created":"x"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, decode := range []func(string, []byte) ([]slIncident, error){decodeSlackHistory, decodeSlackCurrent} {
			list, err := decode("application/json", data)
			if err != nil {
				continue
			}
			incs, _ := normaliseSlackList(list)
			fetchtest.CheckIncidents(t, incs)
		}
	})
}

func TestKeyUpdates(t *testing.T) {
	at := fetchtest.MustTime("2026-01-01T00:00:00Z")
	ups := []model.Update{
		{ID: "b", Body: "later", PostedAt: at.Add(time.Hour)},
		{Body: "first of two", PostedAt: at},
		{ID: "b", Body: "the same id again", PostedAt: at.Add(2 * time.Hour)},
		{Body: "second of two", PostedAt: at},
	}
	got := fetch.KeyUpdates("inc", ups, []string{"s1", "s0", "s2", "s0"})
	want := []string{fetch.UpdateKey("inc", "s0", 0), fetch.UpdateKey("inc", "s0", 1), "b"}
	var ids []string
	for _, u := range got {
		ids = append(ids, u.ID)
	}
	if !slices.Equal(ids, want) || got[0].Body != "first of two" || got[2].Body != "later" {
		t.Errorf("got %+v, want ids %v, oldest first, the repeated id once", got, want)
	}
}

// TestSlackContract: the contract every platform keeps.
func TestSlackContract(t *testing.T) {
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "slack", URL: base + "/slack"} },
		Routes: map[string]fetchtest.Route{
			pSlackHistory: {Body: fetchtest.Testdata(t, "slack", "history-api-v2.0.0.json")},
			pSlackCurrent: {Body: fetchtest.Testdata(t, "slack", "synthetic-slack-current-active.json")},
		},
		Main: pSlackHistory,
	}.Run(t)
}
