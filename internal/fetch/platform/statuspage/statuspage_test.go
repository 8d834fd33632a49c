package statuspage

// Decoding and normalisation (statuspagev2 under Statuspage's options) against every real
// payload in testdata/statuspage (provenance in internal/fetch/testdata/SOURCES.md).
// The HTML incident page is synthetic-statuspage-incident-page.html, written from the
// markup public scrapers of Statuspage incident pages select on (see the comment at its top).

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
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

var testBase, _ = url.Parse("https://www.githubstatus.com/")

// decodeList decodes and normalises a list fixture.
func decodeList(t *testing.T, body []byte, key string, kind model.Kind) (string, []model.Incident, model.Listing) {
	t.Helper()
	l, err := options.DecodeList("application/json", body, key)
	if err != nil {
		t.Fatal(err)
	}
	incs, listing := options.NormaliseList(l.List, kind, testBase)
	return l.Page, incs, listing
}

// decodeOne decodes and normalises a per-incident fixture ({"incident": {...}}).
func decodeOne(t *testing.T, body []byte) model.Incident {
	t.Helper()
	in, err := statuspagev2.DecodeIncident("application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	return options.Normalise(in, model.KindIncident, testBase)
}

func updateIDs(inc model.Incident) []string {
	var ids []string
	for _, u := range inc.Updates {
		ids = append(ids, u.ID)
	}
	return ids
}

func TestStatuspageIncidentsList(t *testing.T) {
	page, incs, listing := decodeList(t, fetchtest.Testdata(t, "statuspage", "github-incidents-2026-08-top5.json"), "incidents", model.KindIncident)
	if page != "GitHub" {
		t.Errorf("got page name %q, want GitHub", page)
	}
	if listing != (model.Listing{Kind: model.KindIncident}) {
		t.Errorf("got listing %+v, want incidents over the whole history (5 < 50 items)", listing)
	}
	want := []struct {
		id, title  string
		impact     model.Impact
		updates    int
		first      string
		last       string
		components []string
		started    string
		resolved   string
		url        string
	}{
		{"bmpybhnrky3x", "Intermittent failures in runner group and runner-related permissions pages", "minor", 5, "k4w4pvwlw2qy", "5qb9c4nx98sg", []string{}, "2026-08-18T07:40:35.670Z", "2026-08-18T11:42:59.304Z", "https://stspg.io/98zqb1k9jh0x"},
		{"gx7js8bd0jpz", "Incident with Actions", "major", 2, "7t2kpljytph6", "gc3j6429pg28", []string{}, "2026-08-18T09:36:40.316Z", "2026-08-18T10:23:23.000Z", "https://stspg.io/q3ck88mqw08z"},
		{"zkxwbgr0cnmx", "Incident with GitHub.com", "critical", 36, "t45j0mf5qf81", "h9l7z2sx48br", []string{"API Requests", "Actions", "Copilot", "Git Operations", "Issues", "Pages", "Pull Requests", "Webhooks"}, "2026-08-17T13:40:03.620Z", "2026-08-17T21:15:46.623Z", "https://stspg.io/y1fl26l6wpzr"},
		{"pf25whpq58hh", "Disruption with GHEC Team Sync", "minor", 4, "gsnrtly5n4dy", "wm4b8gg2nk3q", []string{}, "2026-08-13T16:21:33.096Z", "2026-08-13T18:27:54.660Z", "https://stspg.io/l6tmhqw07cmj"},
		{"24t8gsgqx2qb", "Errors with the Fable 5 Model in Copilot", "minor", 5, "b2whhtnz65dz", "7n5fhmltjghm", []string{"Copilot AI Model Providers"}, "2026-08-13T14:43:25.196Z", "2026-08-13T15:47:22.384Z", "https://stspg.io/8htrnxk0q09v"},
	}
	if len(incs) != len(want) {
		t.Fatalf("got %d incidents, want %d", len(incs), len(want))
	}
	for i, w := range want {
		got := incs[i]
		t.Run(w.id, func(t *testing.T) {
			if got.ID != w.id || got.Title != w.title || got.Impact != w.impact || got.ImpactRaw != string(w.impact) {
				t.Errorf("got %s %q impact %s (%s), want %s %q %s", got.ID, got.Title, got.Impact, got.ImpactRaw, w.id, w.title, w.impact)
			}
			if got.Kind != model.KindIncident || got.Status != model.StatusResolved || got.StatusRaw != "resolved" {
				t.Errorf("got kind %s status %s (%s), want incident resolved", got.Kind, got.Status, got.StatusRaw)
			}
			if len(got.Updates) != w.updates || got.Updates[0].ID != w.first || got.Updates[len(got.Updates)-1].ID != w.last {
				t.Errorf("got %d updates %s…%s, want %d %s…%s", len(got.Updates), got.Updates[0].ID, got.Updates[len(got.Updates)-1].ID, w.updates, w.first, w.last)
			}
			if !reflect.DeepEqual(got.Components, w.components) {
				t.Errorf("got components %q, want %q", got.Components, w.components)
			}
			if !got.StartedAt.Equal(fetchtest.MustTime(w.started)) || !got.ResolvedAt.Equal(fetchtest.MustTime(w.resolved)) {
				t.Errorf("got started %v resolved %v, want %s %s", got.StartedAt, got.ResolvedAt, w.started, w.resolved)
			}
			if got.StartedAt.Location() != time.UTC || got.ResolvedAt.Location() != time.UTC {
				t.Error("times are not UTC")
			}
			if got.URL != w.url {
				t.Errorf("got URL %q, want the shortlink %q", got.URL, w.url)
			}
			if got.Postmortem != nil {
				t.Errorf("got a postmortem %+v, want none", got.Postmortem)
			}
			for _, u := range got.Updates {
				if u.PostedAt.IsZero() || u.Body == "" {
					t.Errorf("update %s: got %+v", u.ID, u)
				}
			}
			checkTimeline(t, got)
		})
	}

	// gx7js8bd0jpz's resolving update was edited: display_at (10:23:23.000) is earlier than
	// created_at (10:23:23.437) and updated_at moved to 12:09. posted_at is display_at.
	res := incs[1].Updates[1]
	if !res.PostedAt.Equal(fetchtest.MustTime("2026-08-18T10:23:23.000Z")) || res.Status != model.StatusResolved {
		t.Errorf("edited update: got posted %v status %s, want display_at 10:23:23.000 resolved", res.PostedAt, res.Status)
	}
	if !strings.HasPrefix(res.Body, "This incident was posted in error.") || res.Format != model.FormatText {
		t.Errorf("edited update: got %s body %q", res.Format, res.Body)
	}
}

// checkTimeline checks what every normalised incident must satisfy: updates oldest first,
// trimmed text bodies, components sorted and unique.
func checkTimeline(t *testing.T, inc model.Incident) {
	t.Helper()
	for i, u := range inc.Updates {
		if u.ID == "" || u.Format != model.FormatText || u.Body != strings.TrimSpace(u.Body) {
			t.Errorf("update %d: got %+v", i, u)
		}
		if i > 0 && u.PostedAt.Before(inc.Updates[i-1].PostedAt) {
			t.Errorf("update %d (%s) posted before update %d", i, u.ID, i-1)
		}
	}
	if inc.Components == nil || !slices.IsSorted(inc.Components) || len(slices.Compact(slices.Clone(inc.Components))) != len(inc.Components) {
		t.Errorf("components not a sorted set: %q", inc.Components)
	}
}

func TestStatuspageIncidentEditedUpdates(t *testing.T) {
	body := fetchtest.Testdata(t, "statuspage", "github-incident-yck8ctxhxtwq.json")
	inc := decodeOne(t, body)

	wantOrder := []string{"4rfch2pmxk9d", "b8cbv2b2q6t5", "vtqd0np14nf6", "cpgz59p5r54q", "xgv2vm8jql2y", "x2zsgw6hqqqy", "c6nkf7vy9tfw", "kg2k8gj9q06d", "1lc4sf9yj1jy", "ngm4wrjvb0xy"}
	if got := updateIDs(inc); !slices.Equal(got, wantOrder) {
		t.Errorf("got updates %v, want oldest first %v", got, wantOrder)
	}
	if inc.Title != "Incident on 2019-10-02 16:10 UTC" || inc.Impact != model.ImpactMinor || inc.Status != model.StatusResolved {
		t.Errorf("got %q %s %s", inc.Title, inc.Impact, inc.Status)
	}
	// started_at (16:23:09) is later than created_at (16:10:13): the vendor backdated
	// nothing here but moved the start; we keep started_at as given.
	if !inc.StartedAt.Equal(fetchtest.MustTime("2019-10-02T16:23:09.348Z")) {
		t.Errorf("got started %v", inc.StartedAt)
	}
	if want := []string{"Visit www.githubstatus.com for more information"}; !slices.Equal(inc.Components, want) {
		t.Errorf("got components %q, want %q", inc.Components, want)
	}
	checkTimeline(t, inc)

	// The four edited updates (updated_at later than created_at) are posted at display_at.
	edited := map[string]string{
		"1lc4sf9yj1jy": "2019-10-02T19:04:29.333Z",
		"cpgz59p5r54q": "2019-10-02T16:48:46.830Z",
		"vtqd0np14nf6": "2019-10-02T16:25:24.750Z",
		"b8cbv2b2q6t5": "2019-10-02T16:23:09.348Z",
	}
	for _, u := range inc.Updates {
		if at, ok := edited[u.ID]; ok && !u.PostedAt.Equal(fetchtest.MustTime(at)) {
			t.Errorf("edited update %s: got posted %v, want display_at %s", u.ID, u.PostedAt, at)
		}
	}
	// Two updates share a body word for word; they stay two updates.
	if inc.Updates[1].Body != inc.Updates[2].Body || inc.Updates[1].ID == inc.Updates[2].ID {
		t.Errorf("updates b8cbv2b2q6t5 and vtqd0np14nf6: got %+v and %+v", inc.Updates[1], inc.Updates[2])
	}
	// The body keeps its inner spacing ("repairs to affected repositories.  We will…").
	if u := inc.Updates[8]; !strings.Contains(u.Body, "repositories.  We will stay yellow") {
		t.Errorf("got body %q", u.Body)
	}

	// updated_at moving alone is no change: bump every updated_at and compare.
	bumped := regexp.MustCompile(`"updated_at": "[^"]*"`).ReplaceAll(body, []byte(`"updated_at": "2030-01-01T00:00:00.000Z"`))
	if bytes.Equal(bumped, body) {
		t.Fatal("test bug: nothing replaced")
	}
	if again := decodeOne(t, bumped); !reflect.DeepEqual(again, inc) {
		t.Errorf("moving updated_at changed the normalised incident:\n got %+v\nwant %+v", again, inc)
	}
	// An edited body is a change, of that update only.
	reworded := bytes.Replace(body, []byte("We continue to monitor the backlog of repo forks."), []byte("We continue to monitor the fork backlog."), 1)
	again := decodeOne(t, reworded)
	for i := range inc.Updates {
		same := again.Updates[i] == inc.Updates[i]
		if (inc.Updates[i].ID == "c6nkf7vy9tfw") == same {
			t.Errorf("update %s: changed %v after rewording c6nkf7vy9tfw", inc.Updates[i].ID, !same)
		}
	}
}

func TestStatuspageIncidentFiles(t *testing.T) {
	t.Run("lc8s9rtyjmgq", func(t *testing.T) {
		inc := decodeOne(t, fetchtest.Testdata(t, "statuspage", "github-incident-lc8s9rtyjmgq.json"))
		var statuses []model.Status
		for _, u := range inc.Updates {
			statuses = append(statuses, u.Status)
		}
		want := []model.Status{"investigating", "investigating", "identified", "monitoring", "resolved"}
		if !slices.Equal(statuses, want) {
			t.Errorf("got statuses %v, want %v", statuses, want)
		}
		// The affected components carry the old name "GitHub Actions" under the code of
		// the component now named "Actions": current names only.
		if !slices.Equal(inc.Components, []string{"Actions"}) {
			t.Errorf("got components %q, want [Actions]", inc.Components)
		}
		if inc.Impact != model.ImpactMajor || inc.Updates[0].ID != "v6gmhtpzsn8y" {
			t.Errorf("got impact %s, first update %s", inc.Impact, inc.Updates[0].ID)
		}
		checkTimeline(t, inc)
	})
	t.Run("c85syxc7gnbx", func(t *testing.T) {
		// 2023 payload with the newer reminder_intervals key, which we ignore.
		inc := decodeOne(t, fetchtest.Testdata(t, "statuspage", "github-incident-c85syxc7gnbx.json"))
		if inc.ID != "c85syxc7gnbx" || inc.Title != "Incident with Codespaces" || len(inc.Updates) != 4 {
			t.Errorf("got %s %q with %d updates", inc.ID, inc.Title, len(inc.Updates))
		}
		if !slices.Equal(inc.Components, []string{"Codespaces"}) {
			t.Errorf("got components %q", inc.Components)
		}
		checkTimeline(t, inc)
	})
}

func TestStatuspageSummaries(t *testing.T) {
	t.Run("github", func(t *testing.T) {
		body := fetchtest.Testdata(t, "statuspage", "github-summary-2022-11-25.json")
		sum, err := statuspagev2.DecodeSummary("application/json", body)
		if err != nil || sum.Page != "GitHub" {
			t.Fatalf("got summary %+v, %v; want GitHub", sum, err)
		}
		_, incs, _ := decodeList(t, body, "incidents", model.KindIncident)
		if len(incs) != 1 {
			t.Fatalf("got %d incidents, want 1", len(incs))
		}
		inc := incs[0]
		if inc.ID != "ljwdk6qml8z8" || inc.Title != "Incident with Packages and Pages" || inc.Status != model.StatusInvestigating || inc.Impact != model.ImpactMajor || !inc.Open() {
			t.Errorf("got %+v", inc)
		}
		wantOrder := []string{"n1dr3fb22655", "y0x9rc7hvp1s", "5r7154l5bkg7", "3956pfljsss1", "8bccy289xckg", "8fnd7wsp5v36", "k0x2s8g2plxb"}
		if got := updateIDs(inc); !slices.Equal(got, wantOrder) {
			t.Errorf("got updates %v, want %v", got, wantOrder)
		}
		if !slices.Equal(inc.Components, []string{"Packages", "Pages"}) {
			t.Errorf("got components %q", inc.Components)
		}
		checkTimeline(t, inc)
		_, maint, l := decodeList(t, body, "scheduled_maintenances", model.KindMaintenance)
		if len(maint) != 0 || l != (model.Listing{Kind: model.KindMaintenance}) {
			t.Errorf("got %d maintenances, listing %+v; want none, whole history", len(maint), l)
		}
	})
	t.Run("claude", func(t *testing.T) {
		body := fetchtest.Testdata(t, "statuspage", "claude-summary-active-incident-2026-07-29.json")
		sum, err := statuspagev2.DecodeSummary("application/json", body)
		if err != nil || sum.Page != "Claude" {
			t.Fatalf("got summary %+v, %v; want Claude", sum, err)
		}
		_, incs, _ := decodeList(t, body, "incidents", model.KindIncident)
		if len(incs) != 1 {
			t.Fatalf("got %d incidents, want 1", len(incs))
		}
		inc := incs[0]
		want := []string{"Claude API (api.anthropic.com)", "Claude Code", "Claude Cowork", "claude.ai"}
		if !slices.Equal(inc.Components, want) {
			t.Errorf("got components %q, want %q", inc.Components, want)
		}
		if inc.ID != "q2kg8n613kr3" || inc.Impact != model.ImpactCritical || inc.Status != model.StatusInvestigating || inc.ResolvedAt != (time.Time{}) {
			t.Errorf("got %+v", inc)
		}
		if len(inc.Updates) != 1 || inc.Updates[0].Body != "We are currently investigating this issue." || !inc.Updates[0].PostedAt.Equal(fetchtest.MustTime("2026-07-29T19:49:45.537Z")) {
			t.Errorf("got updates %+v", inc.Updates)
		}
		if inc.URL != "https://stspg.io/p7pqqb00414c" {
			t.Errorf("got URL %q", inc.URL)
		}
	})
}

func TestStatuspageWebhookIncident(t *testing.T) {
	// A webhook body is {"incident": {...}} like the per-incident endpoint, with every
	// postmortem_* field present and null.
	inc := decodeOne(t, fetchtest.Testdata(t, "statuspage", "webhook-incident-update.json"))
	if inc.ID != "z3lct0r596n4" || inc.Title != "Database query delays" || inc.Impact != model.ImpactNone || inc.Status != model.StatusResolved {
		t.Errorf("got %+v", inc)
	}
	if inc.Kind != model.KindIncident || !inc.ScheduledFor.IsZero() {
		t.Errorf("scheduled_for null: got kind %s, scheduled %v", inc.Kind, inc.ScheduledFor)
	}
	if inc.Postmortem != nil {
		t.Errorf("null postmortem fields: got %+v", inc.Postmortem)
	}
	// No started_at in 2017: the incident starts when it was created.
	if !inc.StartedAt.Equal(fetchtest.MustTime("2017-12-26T07:32:00.507Z")) {
		t.Errorf("got started %v, want created_at", inc.StartedAt)
	}
	if got := updateIDs(inc); !slices.Equal(got, []string{"qm8bgczn0p2n", "cdwfdrjlp53y"}) {
		t.Errorf("got updates %v", got)
	}
	if !slices.Equal(inc.Components, []string{"Management Portal (example)"}) {
		t.Errorf("got components %q", inc.Components)
	}
	checkTimeline(t, inc)
}

func TestStatuspageManageAPIPostmortem(t *testing.T) {
	// The management-API example is a bare array of incidents: wrap it as a list.
	raw := fetchtest.Testdata(t, "statuspage", "manage-api-v1-incidents-doc-example-with-postmortem.json")
	body := append(append([]byte(`{"incidents":`), raw...), '}')
	_, incs, _ := decodeList(t, body, "incidents", model.KindIncident)
	if len(incs) != 1 {
		t.Fatalf("got %d incidents, want 1", len(incs))
	}
	inc := incs[0]
	pm := inc.Postmortem
	if pm == nil {
		t.Fatal("got no postmortem")
	}
	// postmortem_published_at is `true` there: "not given", and the page still parses.
	if !pm.PublishedAt.IsZero() || pm.Format != model.FormatMarkdown {
		t.Errorf("got postmortem published %v format %s, want zero and markdown", pm.PublishedAt, pm.Format)
	}
	if !strings.HasPrefix(pm.Body, "##### Issue\nAt approximately 17:02 UTC on 2013-04-21") || !strings.HasSuffix(pm.Body, "via a blog post.") {
		t.Errorf("got postmortem body %q", pm.Body)
	}
	// scheduled_for is set: a maintenance, whatever its endpoint, with impact maintenance.
	if inc.Kind != model.KindMaintenance || inc.Impact != model.ImpactMaintenance || inc.ImpactRaw != "critical" || inc.Status != model.StatusScheduled {
		t.Errorf("got kind %s impact %s (%s) status %s", inc.Kind, inc.Impact, inc.ImpactRaw, inc.Status)
	}
	if !inc.ScheduledFor.Equal(fetchtest.MustTime("2013-05-07T03:00:00.007Z")) || !inc.ScheduledUntil.Equal(fetchtest.MustTime("2013-05-07T06:00:00.007Z")) {
		t.Errorf("got scheduled %v – %v", inc.ScheduledFor, inc.ScheduledUntil)
	}
	if !slices.Equal(inc.Components, []string{"string"}) || inc.URL != "http://stspg.io/803310a12" {
		t.Errorf("got components %q URL %q", inc.Components, inc.URL)
	}

	// The same object with postmortem_published_at in every shape seen or imaginable.
	for _, tc := range []struct {
		value string
		want  time.Time
	}{
		{`true`, time.Time{}},
		{`false`, time.Time{}},
		{`null`, time.Time{}},
		{`"not a time"`, time.Time{}},
		{`""`, time.Time{}},
		{`1597421494`, time.Time{}},
		{`{"at":"2020-08-14T16:11:34Z"}`, time.Time{}},
		{`["2020-08-14T16:11:34Z"]`, time.Time{}},
		{`"2020-08-14T16:11:34\u005a"`, time.Time{}}, // escaped: not worth decoding
		{`"2020-08-14T18:11:34+02:00"`, fetchtest.MustTime("2020-08-14T16:11:34Z")},
	} {
		t.Run(tc.value, func(t *testing.T) {
			b := bytes.Replace(body, []byte(`"postmortem_published_at": true`), []byte(`"postmortem_published_at": `+tc.value), 1)
			_, incs, _ := decodeList(t, b, "incidents", model.KindIncident)
			pm := incs[0].Postmortem
			if pm == nil || !pm.PublishedAt.Equal(tc.want) || pm.PublishedAt.Location() != time.UTC {
				t.Errorf("got %+v, want published %v", pm, tc.want)
			}
		})
	}
}

func TestStatuspageMalformed(t *testing.T) {
	real := fetchtest.Testdata(t, "statuspage", "github-incidents-2026-08-top5.json")
	for _, tc := range []struct {
		name, contentType, body string
	}{
		{"html page", "text/html; charset=utf-8", "<!DOCTYPE html><html><body>Just a moment...</body></html>"},
		{"html without content type", "", "  \n<html><body>maintenance</body></html>"},
		{"json labelled html", "text/html", `{"incidents":[]}`},
		{"empty", "application/json", ""},
		{"whitespace", "application/json", " \r\n\t"},
		{"truncated", "application/json", string(real[:len(real)/2])},
		{"array", "application/json", `[{"id":"a"}]`},
		{"string", "application/json", `"incidents"`},
		{"no incidents array", "application/json", `{"page":{"name":"X"}}`},
		{"null incidents", "application/json", `{"incidents":null}`},
		{"object incidents", "application/json", `{"incidents":{"id":"a"}}`},
		{"incident without id", "application/json", `{"incidents":[{"name":"x"}]}`},
		{"wrong type in a used field", "application/json", `{"incidents":[{"id":"a","incident_updates":"none"}]}`},
		{"trailing garbage", "application/json", `{"incidents":[]} {"incidents":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := options.DecodeList(tc.contentType, []byte(tc.body), "incidents")
			if !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
		})
	}
	for _, tc := range []struct{ name, body string }{
		{"empty list", `{"incidents":[]}`},
		{"bom and unknown keys", "\xef\xbb\xbf" + `{"incidents":[],"whatever":{"deep":[1,2,{"x":null}]}}`},
		{"nulls everywhere", `{"page":null,"incidents":[{"id":"a","name":null,"status":null,"impact":null,"created_at":null,"components":null,"incident_updates":null,"postmortem_body":null}]}`},
		{"unreadable times", `{"incidents":[{"id":"a","created_at":"yesterday","incident_updates":[{"id":"u","display_at":"soon"}]}]}`},
		{"duplicate keys", `{"incidents":[{"id":"a","id":"b"}]}`},
		{"duplicate ids", `{"incidents":[{"id":"a","name":"first"},{"id":"a","name":"second"}]}`},
		{"invalid utf-8", "{\"incidents\":[{\"id\":\"a\",\"name\":\"caf\xe9\"}]}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := options.DecodeList("application/json", []byte(tc.body), "incidents")
			if err != nil {
				t.Fatalf("got %v, want a well-formed page", err)
			}
			incs, _ := options.NormaliseList(l.List, model.KindIncident, testBase)
			ids := map[string]bool{}
			for _, inc := range incs {
				checkTimeline(t, inc)
				if ids[inc.ID] {
					t.Errorf("incident %s listed twice", inc.ID)
				}
				ids[inc.ID] = true
			}
		})
	}
	for _, body := range []string{"", "<html></html>", `{"incidents":[]}`, `{"page":"GitHub"}`} {
		if _, err := statuspagev2.DecodeSummary("application/json", []byte(body)); !errors.Is(err, payload.ErrMalformed) {
			t.Errorf("summary %q: got %v, want ErrMalformed", body, err)
		}
	}
}

func TestStatuspageUpdateOrderAndKeys(t *testing.T) {
	body := `{"incidents":[{"id":"inc1","status":"resolved","incident_updates":[
		{"id":"b","status":"resolved","body":"  done \r\n for real ","created_at":"2026-01-01T10:00:00Z","display_at":"2026-01-01T10:00:00Z"},
		{"id":"a","status":"monitoring","body":"tie on both times, id a sorts first","created_at":"2026-01-01T10:00:00Z","display_at":"2026-01-01T10:00:00Z"},
		{"id":"z","status":"investigating","body":"backdated by display_at","created_at":"2026-01-01T12:00:00Z","display_at":"2026-01-01T08:00:00Z"},
		{"id":"y","status":"identified","body":"no display_at: created_at","created_at":"2026-01-01T09:00:00Z"},
		{"id":"c","status":"identified","body":"same posted time as y, created earlier in UTC","created_at":"2026-01-01T09:30:00+02:00","display_at":"2026-01-01T09:00:00Z"},
		{"status":"weird","body":"no id","created_at":"2026-01-01T11:00:00Z"},
		{"status":"weird","body":"no id either","created_at":"2026-01-01T11:00:00Z"}
	]}]}`
	l, err := options.DecodeList("", []byte(body), "incidents")
	if err != nil {
		t.Fatal(err)
	}
	inc := options.Normalise(&l.List[0], model.KindIncident, testBase)
	k0, k1 := fetch.UpdateKey("inc1", "2026-01-01T11:00:00Z", 0), fetch.UpdateKey("inc1", "2026-01-01T11:00:00Z", 1)
	want := []string{"z", "c", "y", "a", "b", k0, k1}
	if got := updateIDs(inc); !slices.Equal(got, want) {
		t.Errorf("got order %v, want %v", got, want)
	}
	if len(k0) != 16 || k0 == k1 {
		t.Errorf("got keys %q, %q; want two distinct 16-hex-digit keys", k0, k1)
	}
	if b := inc.Updates[4].Body; b != "done \n for real" {
		t.Errorf("got body %q, want trimmed with LF line ends", b)
	}
	if s := inc.Updates[5].Status; s != "weird" {
		t.Errorf("unknown update status: got %q, want it kept", s)
	}
	if inc.URL != "https://www.githubstatus.com/incidents/inc1" {
		t.Errorf("no shortlink: got URL %q, want <page>/incidents/<id>", inc.URL)
	}
}

func TestStatuspageListingSince(t *testing.T) {
	var items []map[string]any
	for i := 0; i < listSize; i++ {
		inc := fetchtest.RawIncident(fmt.Sprintf("i%02d", i), "resolved")
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour).Format(time.RFC3339)
		inc["started_at"], inc["created_at"] = at, at
		items = append(items, inc)
	}
	items[7]["started_at"] = "2025-12-01T00:00:00Z" // backdated: the window starts there
	_, _, l := decodeList(t, fetchtest.IncidentsBody(t, "incidents", items...), "incidents", model.KindIncident)
	if want := fetchtest.MustTime("2025-12-01T00:00:00Z"); !l.Since.Equal(want) {
		t.Errorf("full list: got Since %v, want %v", l.Since, want)
	}
	_, _, l = decodeList(t, fetchtest.IncidentsBody(t, "incidents", items[:49]...), "incidents", model.KindIncident)
	if !l.Since.IsZero() {
		t.Errorf("49 items: got Since %v, want zero (whole history)", l.Since)
	}
}

func TestPostmortemFromHTML(t *testing.T) {
	// The fixture is synthetic: see the comment at its top for where its shape comes from.
	pm := postmortemFromHTML(fetchtest.Testdata(t, "statuspage", "synthetic-statuspage-incident-page.html"))
	if pm == nil {
		t.Fatal("got no postmortem")
	}
	want := strings.Join([]string{
		"Summary",
		"Between 14:02 and 15:33 UTC on March 3, 2026, about 12% of API requests in eu-west failed with HTTP 503.", // &nbsp; is a space in plain text
		"Root cause",
		"A configuration push lowered the connection limit of the internal load balancer.\nHealth checks kept passing, so the change was not rolled back automatically.",
		"- Connection limits are now validated before a push.\n- Health checks now exercise a real API request.",
		"We apologise for the disruption & thank you for your patience.",
	}, "\n\n")
	if pm.Body != want {
		t.Errorf("got body\n%q\nwant\n%q", pm.Body, want)
	}
	if pm.Format != model.FormatText || !pm.PublishedAt.Equal(fetchtest.MustTime("2026-03-07T15:00:00Z")) {
		t.Errorf("got format %s published %v", pm.Format, pm.PublishedAt)
	}

	for _, tc := range []struct{ name, page, want string }{
		{"no postmortem", `<div class="incident-updates-container"><div class="row update-row"><div class="update-title">Resolved</div><div class="update-body">Fixed.</div></div></div>`, ""},
		{"class hedge", `<div class="incident-postmortem"><h3>What happened</h3><p>A disk <b>filled</b> up.</p><style>p{}</style></div>`, "What happened\n\nA disk filled up."},
		{"seconds timestamp", `<div class="row update-row"><div class="update-title"> postmortem </div><div class="update-body"><p>Text.</p></div><span data-datetime-unix="1772895600"></span></div>`, "Text."},
		{"empty block", `<div class="postmortem"><script>x()</script></div>`, ""},
		{"not html", "\x00\x01{}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pm := postmortemFromHTML([]byte(tc.page))
			switch {
			case tc.want == "" && pm != nil:
				t.Errorf("got %+v, want none", pm)
			case tc.want != "" && (pm == nil || pm.Body != tc.want):
				t.Errorf("got %+v, want body %q", pm, tc.want)
			}
			if tc.name == "seconds timestamp" && pm != nil && !pm.PublishedAt.Equal(fetchtest.MustTime("2026-03-07T15:00:00Z")) {
				t.Errorf("got published %v", pm.PublishedAt)
			}
		})
	}
}

// TestStatuspageSummaryComponents: the component states of real summaries, each word
// mapped and kept, listed in their one order, with the page status.
func TestStatuspageSummaryComponents(t *testing.T) {
	for _, tc := range []struct {
		file, indicator, description string
		n                            int
		notOperational               map[string]model.ComponentStatus
	}{
		{"github-summary-2022-11-25.json", "minor", "Minor Service Outage", 11,
			map[string]model.ComponentStatus{"Packages": model.ComponentPartialOutage}},
		{"claude-summary-active-incident-2026-07-29.json", "major", "Partial System Outage", 6,
			map[string]model.ComponentStatus{"claude.ai": model.ComponentMajorOutage, "Claude API (api.anthropic.com)": model.ComponentMajorOutage,
				"Claude Code": model.ComponentMajorOutage, "Claude Cowork": model.ComponentMajorOutage}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			sum, err := statuspagev2.DecodeSummary("application/json", fetchtest.Testdata(t, "statuspage", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			cs := sum.Components
			if cs.PageStatus != tc.indicator || cs.PageDescription != tc.description || len(cs.List) != tc.n {
				t.Fatalf("got %q %q and %d components, want %q %q and %d", cs.PageStatus, cs.PageDescription, len(cs.List), tc.indicator, tc.description, tc.n)
			}
			if !slices.IsSortedFunc(cs.List, func(a, b model.Component) int { return strings.Compare(a.Name, b.Name) }) {
				t.Errorf("components not in their order: %+v", cs.List)
			}
			for _, c := range cs.List {
				want, ok := tc.notOperational[c.Name]
				if !ok {
					want = model.ComponentOperational
				}
				if c.Status != want || c.StatusRaw == "" || !fetch.StatuspageID.MatchString(c.ID) || c.Group != "" {
					t.Errorf("%s: got %+v, want %s with its raw word and id, no group", c.Name, c, want)
				}
			}
		})
	}
}
