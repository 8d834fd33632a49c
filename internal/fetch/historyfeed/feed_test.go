package historyfeed

// The history-feed reader the feed, incident.io and Instatus platforms share. No real
// history feed of a status page was found (testdata/SOURCES.md), so the fixtures are
// synthetic, and each says at its top where its shape comes from:
//
//   - testdata/feed/synthetic-statuspage-history.atom: Atlassian Statuspage's
//     <page>/history.atom, in the markup public consumers parse (<small> with <var
//     data-var='date'>/<var data-var='time'>, <strong> label, " - ", newest first, the page's
//     own zone, no year; "This incident affected: …"; the maintenance banner).
//   - testdata/feed/synthetic-yandex-cloud.rss: a bespoke RSS feed whose paragraphs carry
//     their own dates ("08.09.2020 10:43 MSK. Investigating: …"), as the "Yandex
//     Cloud-like" pages.
//
// The incident.io and Instatus feeds (beside their packages, under platform/) are tested
// with their adapters and seed FuzzFeed.

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
)

// feedFixture reads testdata/<dir>/<name>.
func feedFixture(tb testing.TB, dir, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// feedIncidents parses a feed fixture and normalises its entries.
func feedIncidents(t *testing.T, body []byte) ([]model.Incident, []model.Listing, *Feed) {
	t.Helper()
	f, err := Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	incs, listings := f.Incidents(fetchtest.PollNow, nil)
	return incs, listings, f
}

func updateBodies(inc model.Incident) []string {
	var out []string
	for _, u := range inc.Updates {
		out = append(out, string(u.Status)+": "+u.Body)
	}
	return out
}

func TestFeedStatuspageHistory(t *testing.T) {
	incs, listings, f := feedIncidents(t, feedFixture(t, "feed", "synthetic-statuspage-history.atom"))
	if got := f.PageTitle(); got != "Example Cloud Status" {
		t.Errorf("got page title %q, want the feed title without \" - Incident History\"", got)
	}
	if want := []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}; !reflect.DeepEqual(listings, want) {
		t.Errorf("got listings %+v, want %+v (4 entries: the whole history)", listings, want)
	}
	if len(incs) != 4 {
		t.Fatalf("got %d incidents, want 4", len(incs))
	}
	for _, inc := range incs {
		fetchtest.CheckFeedIncident(t, inc)
	}

	t.Run("resolved incident", func(t *testing.T) {
		inc := incs[0]
		if inc.ID != "tag:status.example.com,2005:Incident/24680001" || model.URLID(inc.ID) == inc.ID {
			t.Errorf("got id %q, want the entry id, kept as the provider's (URLID hashes it)", inc.ID)
		}
		if inc.Kind != model.KindIncident || inc.Status != model.StatusResolved || inc.StatusRaw != "Resolved" ||
			inc.Impact != model.ImpactUnknown || inc.Title != "Elevated API error rates" ||
			inc.URL != "https://status.example.com/incidents/k3x9p2m7q1wz" {
			t.Errorf("got %+v", inc)
		}
		if !inc.StartedAt.Equal(fetchtest.MustTime("2026-03-25T16:44:00Z")) || !inc.ResolvedAt.Equal(fetchtest.MustTime("2026-03-25T17:19:00Z")) {
			t.Errorf("got started %v resolved %v, want the first update and the resolving one", inc.StartedAt, inc.ResolvedAt)
		}
		if want := []string{"API Requests", "Issues", "Webhooks"}; !reflect.DeepEqual(inc.Components, want) {
			t.Errorf("got components %q, want %q", inc.Components, want)
		}
		want := []string{
			"investigating: We are investigating elevated error rates on the API.",
			"identified: The issue has been identified: a bad deploy of the API gateway.\nWe are rolling it back.",
			"monitoring: A fix has been implemented and we are monitoring the results.",
			"resolved: This incident has been resolved.",
		}
		if got := updateBodies(inc); !reflect.DeepEqual(got, want) {
			t.Errorf("got updates\n%q\nwant\n%q", got, want)
		}
		if h := inc.Updates[2].HTML; !strings.Contains(h, `<a href="https://status.example.com/incidents/k3x9p2m7q1wz"`) {
			t.Errorf("got HTML %q, want the safe link kept", h)
		}
	})

	t.Run("postmortem and same-minute updates", func(t *testing.T) {
		inc := incs[1]
		if inc.Status != model.StatusPostmortem || inc.StatusRaw != "Postmortem" || !inc.ResolvedAt.Equal(fetchtest.MustTime("2026-03-20T09:30:00Z")) {
			t.Errorf("got status %s (%s) resolved %v", inc.Status, inc.StatusRaw, inc.ResolvedAt)
		}
		pm := inc.Postmortem
		if pm == nil || pm.Body != "On March 20 a storage node failed. We have added a second replica." ||
			pm.Format != model.FormatHTML || !pm.PublishedAt.Equal(fetchtest.MustTime("2026-03-23T10:00:00Z")) {
			t.Errorf("got postmortem %+v, want the Postmortem paragraph, apart from the timeline", pm)
		}
		// Two updates at 08:02, listed newest first: the Investigating one is older. The
		// "Update" label carries the status in force on.
		want := []string{
			"investigating: We are investigating degraded performance for Git operations.",
			"investigating: Pushes may fail intermittently.",
			"resolved: Git operations are back to normal.",
		}
		if got := updateBodies(inc); !reflect.DeepEqual(got, want) {
			t.Errorf("got updates %q, want %q", got, want)
		}
		stamp := "Mar 20, 08:02 UTC"
		if inc.Updates[0].ID != fetch.UpdateKey(inc.ID, stamp, 0) || inc.Updates[1].ID != fetch.UpdateKey(inc.ID, stamp, 1) {
			t.Errorf("got ids %s %s, want the keys of %q with ordinals 0 and 1 from the oldest", inc.Updates[0].ID, inc.Updates[1].ID, stamp)
		}
	})

	t.Run("maintenance in the page's zone", func(t *testing.T) {
		inc := incs[2]
		if inc.Kind != model.KindMaintenance || inc.Status != model.StatusCompleted || inc.Impact != model.ImpactMaintenance {
			t.Errorf("got kind %s status %s impact %s", inc.Kind, inc.Status, inc.Impact)
		}
		if !inc.ScheduledFor.Equal(fetchtest.MustTime("2026-03-10T16:00:00Z")) || !inc.ScheduledUntil.Equal(fetchtest.MustTime("2026-03-10T18:00:00Z")) {
			t.Errorf("got window %v – %v, want the banner's 09:00 - 11:00 PDT in UTC", inc.ScheduledFor, inc.ScheduledUntil)
		}
		var statuses []model.Status
		var posted []time.Time
		for _, u := range inc.Updates {
			statuses = append(statuses, u.Status)
			posted = append(posted, u.PostedAt)
		}
		if want := []model.Status{model.StatusScheduled, model.StatusInProgress, model.StatusCompleted}; !reflect.DeepEqual(statuses, want) {
			t.Errorf("got statuses %v, want %v", statuses, want)
		}
		if want := []time.Time{fetchtest.MustTime("2026-03-09T16:30:00Z"), fetchtest.MustTime("2026-03-10T16:00:00Z"), fetchtest.MustTime("2026-03-10T18:05:00Z")}; !reflect.DeepEqual(posted, want) {
			t.Errorf("got times %v, want PST/PDT read as UTC %v", posted, want)
		}
		if want := []string{"Database"}; !reflect.DeepEqual(inc.Components, want) {
			t.Errorf("got components %q", inc.Components)
		}
	})

	t.Run("year boundary", func(t *testing.T) {
		inc := incs[3]
		if inc.Status != model.StatusMonitoring || !inc.ResolvedAt.IsZero() {
			t.Errorf("got status %s resolved %v, want open", inc.Status, inc.ResolvedAt)
		}
		if !inc.Updates[0].PostedAt.Equal(fetchtest.MustTime("2025-12-31T23:50:00Z")) || !inc.Updates[1].PostedAt.Equal(fetchtest.MustTime("2026-01-01T00:20:00Z")) {
			t.Errorf("got %v, %v: a year-less Dec 31 in an entry of Jan 1 is the year before", inc.Updates[0].PostedAt, inc.Updates[1].PostedAt)
		}
	})
}

func TestFeedBespokeDatedParagraphs(t *testing.T) {
	incs, _, f := feedIncidents(t, feedFixture(t, "feed", "synthetic-yandex-cloud.rss"))
	if f.PageTitle() != "Yandex Cloud Status" || len(incs) != 2 {
		t.Fatalf("got title %q, %d incidents", f.PageTitle(), len(incs))
	}
	for _, inc := range incs {
		fetchtest.CheckFeedIncident(t, inc)
	}
	inc := incs[0]
	if inc.ID != "https://status.cloud.yandex.example/incidents/412" || inc.Status != model.StatusResolved || inc.StatusRaw != "Resolved" {
		t.Errorf("got %s %s (%s)", inc.ID, inc.Status, inc.StatusRaw)
	}
	if !inc.StartedAt.Equal(fetchtest.MustTime("2020-09-08T07:43:00Z")) || inc.ResolvedAt.Sub(inc.StartedAt) != 91*time.Minute {
		t.Errorf("got %v – %v, want 10:43–12:14 MSK: 1h 31m", inc.StartedAt, inc.ResolvedAt)
	}
	if want := []string{"API Gateway", "Certificate Manager", "Cloud Functions"}; !reflect.DeepEqual(inc.Components, want) {
		t.Errorf("got components %q, want %q", inc.Components, want)
	}
	want := []string{
		"investigating: users may get errors when calling Cloud Functions and issuing certificates.",
		"identified: a configuration change in the internal DNS is the cause. We are rolling it back.\n\nThe rollback takes about half an hour.",
		"resolved: all services work normally.",
	}
	if got := updateBodies(inc); !reflect.DeepEqual(got, want) {
		t.Errorf("got updates\n%q\nwant (the undated paragraph continues the one before)\n%q", got, want)
	}

	// No dated paragraph: one update as of the item's own date, status investigating.
	one := incs[1]
	if one.Status != model.StatusInvestigating || one.StatusRaw != "" || len(one.Updates) != 1 ||
		one.Updates[0].Body != "The management console responds slowly. We are looking into it." ||
		!one.Updates[0].PostedAt.Equal(fetchtest.MustTime("2020-09-07T12:00:00Z")) || !one.StartedAt.Equal(one.Updates[0].PostedAt) {
		t.Errorf("got %+v", one)
	}
	if one.Updates[0].ID != fetch.UpdateKey(one.ID, "Mon, 07 Sep 2020 12:00:00 +0000", 0) {
		t.Errorf("got update id %s, want the key of the item's pubDate", one.Updates[0].ID)
	}
}

func TestFeedStamps(t *testing.T) {
	ref := fetchtest.MustTime("2026-03-25T18:00:00Z")
	for _, tc := range []struct {
		in, want string // want "" means no date
		rest     string
	}{
		{"Mar 25, 17:19 UTC Resolved - x", "2026-03-25T17:19:00Z", " Resolved - x"},
		{"Mar 25, 10:19 PDT", "2026-03-25T17:19:00Z", ""},
		{"Mar  5, 08:05 CET", "2026-03-05T07:05:00Z", ""},
		{"Dec 31, 23:50 UTC", "2025-12-31T23:50:00Z", ""},
		{"Mar 27, 10:00 UTC", "2026-03-27T10:00:00Z", ""}, // within two days ahead: this year
		{"Mar 29, 10:00 UTC", "2025-03-29T10:00:00Z", ""}, // further ahead: last year
		{"Nov 30, 2023 10:00 UTC", "2023-11-30T10:00:00Z", ""},
		{"September 8, 2020, 10:43 MSK. Resolved", "2020-09-08T07:43:00Z", ". Resolved"},
		{"8 September 2020 10:43 UTC+3", "2020-09-08T07:43:00Z", ""},
		{"08.09.2020 10:43 MSK", "2020-09-08T07:43:00Z", ""},
		{"09/08/2020 10:43 PM", "2020-09-08T22:43:00Z", ""},
		{"2020-09-08 10:43", "2020-09-08T10:43:00Z", ""},
		{"2020-09-08T10:43:12+03:00 x", "2020-09-08T07:43:12Z", " x"},
		{"2020-09-08 10:43:12.5 -0700", "2020-09-08T17:43:12Z", ""},
		{"Tue, Sep 8, 10:43 GMT", "2025-09-08T10:43:00Z", ""},
		{"Jan 12, 16:04 AEDT", "2026-01-12T05:04:00Z", ""},
		{"Mar 10, 09:00 - 11:00 PDT", "2026-03-10T16:00:00Z", ""},
		{"Mar 25, 17:19 API errors", "2026-03-25T17:19:00Z", " API errors"}, // unknown zone word left in the text
		{"Between 10:00 and 11:00", "", ""},
		{"May 10:00", "", ""},
		{"Feb 30, 10:00 UTC", "", ""},
		{"Mar 25, 25:00 UTC", "", ""},
		{"We fixed it on Mar 25, 10:00", "", ""},
		{"", "", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			st, ok := parseFeedStamp(tc.in, ref)
			if tc.want == "" {
				if ok {
					t.Errorf("got %v, want no date", st.at)
				}
				return
			}
			if !ok || !st.at.Equal(fetchtest.MustTime(tc.want)) || st.at.Location() != time.UTC {
				t.Fatalf("got %v (%v), want %s", st.at, ok, tc.want)
			}
			if got := tc.in[st.n:]; got != tc.rest {
				t.Errorf("got rest %q, want %q", got, tc.rest)
			}
		})
	}
}

func TestFeedLabels(t *testing.T) {
	for _, tc := range []struct {
		label string
		want  model.Status
		ok    bool
	}{
		{"Investigating", model.StatusInvestigating, true},
		{"Identified", model.StatusIdentified, true},
		{"MONITORING", model.StatusMonitoring, true},
		{"Resolved", model.StatusResolved, true},
		{"Postmortem", model.StatusPostmortem, true},
		{"Scheduled", model.StatusScheduled, true},
		{"In progress", model.StatusInProgress, true},
		{"INPROGRESS", model.StatusInProgress, true},
		{"Not started yet", model.StatusScheduled, true},
		{"Verifying", model.StatusVerifying, true},
		{"Completed", model.StatusCompleted, true},
		{"Update", "", false},
		{"Degraded performance", "", false},
		{"", "", false},
	} {
		if got, ok := labelStatus(tc.label); got != tc.want || ok != tc.ok {
			t.Errorf("%q: got %q %v, want %q %v", tc.label, got, ok, tc.want, tc.ok)
		}
	}
	// An entry without any label is investigating, and keeps no raw status.
	e := Entry{ID: "x", content: "<p>Mar 25, 10:00 UTC We are looking into it.</p>", updated: fetchtest.MustTime("2026-03-25T10:00:00Z")}
	if inc, _ := e.Incident(fetchtest.PollNow); inc.Status != model.StatusInvestigating || inc.StatusRaw != "" || len(inc.Updates) != 1 {
		t.Errorf("got %+v", inc)
	}
	// A "[Resolved]" title prefix is a status, not part of the title.
	e = Entry{ID: "y", title: "[Resolved] API errors", content: "It works again.", updatedRaw: "2026-03-25T10:00:00Z", updated: fetchtest.MustTime("2026-03-25T10:00:00Z")}
	if inc, _ := e.Incident(fetchtest.PollNow); inc.Title != "API errors" || inc.Status != model.StatusResolved || inc.StatusRaw != "Resolved" {
		t.Errorf("got %q %s %s", inc.Title, inc.Status, inc.StatusRaw)
	}
	// A word that only looks like a label starts the body.
	e = Entry{ID: "z", content: "<p>Mar 25, 10:00 UTC Resolved the DNS issue at the edge.</p>", updated: fetchtest.MustTime("2026-03-25T10:00:00Z")}
	if inc, _ := e.Incident(fetchtest.PollNow); inc.Status != model.StatusInvestigating || inc.Updates[0].Body != "Resolved the DNS issue at the edge." {
		t.Errorf("got %s %q", inc.Status, inc.Updates[0].Body)
	}
}

// An edited update keeps its id (its timestamp and ordinal do not change), so the archive
// shows an edit, not a removal and an addition; a new update leaves the others' ids alone.
func TestFeedStableUpdateKeys(t *testing.T) {
	body := string(feedFixture(t, "feed", "synthetic-statuspage-history.atom"))
	before, _, _ := feedIncidents(t, []byte(body))
	edited := strings.Replace(body, "A fix has been implemented and we are", "A fix has been deployed and we are", 1)
	added := strings.Replace(body, "&lt;p&gt;&lt;small&gt;Mar &lt;var data-var='date'&gt;25&lt;/var&gt;, &lt;var data-var='time'&gt;17:19",
		"&lt;p&gt;&lt;small&gt;Mar &lt;var data-var='date'&gt;25&lt;/var&gt;, &lt;var data-var='time'&gt;17:30&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Update&lt;/strong&gt; - One more thing.&lt;/p&gt;"+
			"&lt;p&gt;&lt;small&gt;Mar &lt;var data-var='date'&gt;25&lt;/var&gt;, &lt;var data-var='time'&gt;17:19", 1)
	if edited == body || added == body {
		t.Fatal("fixture changed: the edits did not apply")
	}
	afterEdit, _, _ := feedIncidents(t, []byte(edited))
	if !reflect.DeepEqual(updateIDs(before[0]), updateIDs(afterEdit[0])) {
		t.Errorf("edit: got ids %v, want %v", updateIDs(afterEdit[0]), updateIDs(before[0]))
	}
	if afterEdit[0].Updates[2].Body == before[0].Updates[2].Body {
		t.Error("edit: the body did not change")
	}
	afterAdd, _, _ := feedIncidents(t, []byte(added))
	if got := updateIDs(afterAdd[0]); len(got) != 5 || !reflect.DeepEqual(got[:4], updateIDs(before[0])) {
		t.Errorf("addition: got ids %v, want %v and one more", got, updateIDs(before[0]))
	}
}

func TestFeedMalformed(t *testing.T) {
	real := feedFixture(t, "feed", "synthetic-statuspage-history.atom")
	for _, tc := range []struct{ name, body string }{
		{"empty", ""},
		{"whitespace", " \n\t"},
		{"html page", "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>"},
		{"html without doctype", "<html><body>maintenance</body></html>"},
		{"json", `{"incidents":[]}`},
		{"text", "Service Unavailable"},
		{"truncated", string(real[:len(real)*2/3])},
		{"cut before the end tag", strings.TrimSuffix(strings.TrimSpace(string(real)), "</feed>")},
		{"other xml", `<?xml version="1.0"?><sitemap><url/></sitemap>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.body)); !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
		})
	}
	for _, tc := range []struct{ name, body string }{
		{"empty atom", `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>X</title></feed>`},
		{"empty rss", "\xef\xbb\xbf<rss version=\"2.0\"><channel><title>X</title></channel></rss>\n"},
		{"entries without id or link are skipped", `<rss version="2.0"><channel><item><title>no id</title></item></channel></rss>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(tc.body))
			if err != nil {
				t.Fatalf("got %v, want a well-formed feed", err)
			}
			if incs, _ := f.Incidents(fetchtest.PollNow, nil); len(incs) != 0 {
				t.Errorf("got %d incidents, want none", len(incs))
			}
		})
	}
}

// A feed that looks like a window of the history (feedTruncatedAt entries or more) covers
// only what started since its oldest entry.
func TestFeedListingSince(t *testing.T) {
	entry := func(i int) string {
		return `<item><guid>id-` + string(rune('a'+i)) + `</guid><title>T</title><pubDate>Mon, 0` + string(rune('1'+i%9)) +
			` Jun 2026 10:00:00 +0000</pubDate><description>x</description></item>`
	}
	for _, n := range []int{feedTruncatedAt - 1, feedTruncatedAt} {
		var b strings.Builder
		b.WriteString(`<rss version="2.0"><channel><title>X</title>`)
		for i := range n {
			b.WriteString(entry(i))
		}
		b.WriteString(`</channel></rss>`)
		_, listings, _ := feedIncidents(t, []byte(b.String()))
		var want time.Time
		if n >= feedTruncatedAt {
			want = fetchtest.MustTime("2026-06-01T10:00:00Z")
		}
		for _, l := range listings {
			if !l.Since.Equal(want) {
				t.Errorf("%d entries: got %s since %v, want %v", n, l.Kind, l.Since, want)
			}
		}
	}
}

// FuzzFeed feeds arbitrary bytes to the feed parser and normaliser, seeded with every feed
// fixture. They must reject what they cannot read with an error and never panic;
// what they accept must normalise to ided incidents with sorted components and updates
// oldest first.
func FuzzFeed(f *testing.F) {
	// incident.io's and Instatus's feeds are beside their packages.
	for _, glob := range []string{"testdata/feed/*", "../platform/incidentio/testdata/incident.io/*.atom", "../platform/instatus/testdata/instatus/*.atom"} {
		files, err := filepath.Glob(filepath.FromSlash(glob))
		if err != nil || len(files) == 0 {
			f.Fatalf("no seeds in %s: %v", glob, err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`<rss version="2.0"><channel><item><guid>a</guid><description>&lt;p&gt;Feb 29, 24:61 XYZ&lt;/p&gt;&lt;b&gt;Affected components&lt;/b&gt;&lt;ul&gt;&lt;li&gt;&lt;/li&gt;&lt;/ul&gt;</description></item></channel></rss>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		feed, err := Parse(data)
		if err != nil {
			if !errors.Is(err, payload.ErrMalformed) {
				t.Fatalf("got %v, want ErrMalformed", err)
			}
			return
		}
		incs, _ := feed.Incidents(fetchtest.PollNow, nil)
		for _, inc := range incs {
			if inc.ID == "" || !slices.IsSorted(inc.Components) {
				t.Fatalf("bad incident %+v", inc)
			}
			for i := 1; i < len(inc.Updates); i++ {
				if inc.Updates[i].PostedAt.Before(inc.Updates[i-1].PostedAt) {
					t.Fatalf("updates out of order: %+v", inc.Updates)
				}
			}
		}
	})
}

func TestFeedTrailingComment(t *testing.T) {
	body := string(feedFixture(t, "feed", "synthetic-yandex-cloud.rss")) + "\n<!-- Page generated in 0.12 s -->\n<!-- cached -->\n"
	if _, err := Parse([]byte(body)); err != nil {
		t.Errorf("got %v, want a comment after the root element accepted", err)
	}
}

// Entries that hold only their latest message (Better Stack- and incident.io-style): each
// message is an update keyed by the entry's time, and the earlier ones are carried over
// from the archive when the feed replaces them.
// TestFeedDatedListItems: dated updates in list items, with or without a list around
// them (vendor feeds carry bare <li>s), or in a div among others, are one update each; an
// undated item still continues the update before it.
func TestFeedDatedListItems(t *testing.T) {
	ref := fetchtest.MustTime("2026-11-30T18:00:00Z")
	want := []string{"Nov 30, 10:00 UTC|Resolved", "Nov 30, 09:00 UTC|Identified", "Nov 30, 08:00 UTC|Investigating"}
	for _, tc := range []struct{ name, html string }{
		{"bare li after p", `<p><small>Nov 30, 10:00 UTC</small><br><strong>Resolved</strong> - Fixed.</p>` +
			`<li>Nov 30, 09:00 UTC - <strong>Identified</strong> - A bad deploy.</li>` +
			`<li>Nov 30, 08:00 UTC - <strong>Investigating</strong> - Errors.</li>`},
		{"bare li only", `<li>Nov 30, 10:00 UTC <b>Resolved</b> - Fixed.</li><li>Nov 30, 09:00 UTC <b>Identified</b> - A bad deploy.</li>` +
			`<li>Nov 30, 08:00 UTC <b>Investigating</b> - Errors.</li>`},
		{"unclosed bare li", `<li>Nov 30, 10:00 UTC Resolved - Fixed.<li>Nov 30, 09:00 UTC Identified - A bad deploy.<li>Nov 30, 08:00 UTC Investigating - Errors.`},
		{"ul", `<ul><li>Nov 30, 10:00 UTC Resolved - Fixed.</li><li>Nov 30, 09:00 UTC Identified - A bad deploy.</li>` +
			`<li>Nov 30, 08:00 UTC Investigating - Errors.</li></ul>`},
		{"p then ul", `<p>Nov 30, 10:00 UTC Resolved - Fixed.</p><ol><li>Nov 30, 09:00 UTC Identified - A bad deploy.</li>` +
			`<li>Nov 30, 08:00 UTC Investigating - Errors.</li></ol>`},
		{"nested divs", `<div><p>Nov 30, 10:00 UTC Resolved - Fixed.</p></div><div><p>Nov 30, 09:00 UTC Identified - A bad deploy.</p>` +
			`<p>Nov 30, 08:00 UTC Investigating - Errors.</p></div>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := parseFeedContent(tc.html, ref)
			var got []string
			for _, p := range fc.dated {
				got = append(got, p.stamp+"|"+p.label)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got dated paragraphs %q, want %q", got, want)
			}
		})
	}

	// An undated item after a dated paragraph continues it.
	fc := parseFeedContent(`<p>Nov 30, 10:00 UTC Investigating - Errors on:</p><li>API</li><li>Webhooks</li>`, ref)
	if len(fc.dated) != 1 || !strings.Contains(fc.dated[0].text, "API") || !strings.Contains(fc.dated[0].text, "Webhooks") {
		t.Errorf("got %+v, want one update listing API and Webhooks", fc.dated)
	}
}

func updateIDs(inc model.Incident) []string {
	var ids []string
	for _, u := range inc.Updates {
		ids = append(ids, u.ID)
	}
	return ids
}
