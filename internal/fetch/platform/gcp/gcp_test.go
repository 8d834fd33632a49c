package gcp

// Google Cloud adapter tests. testdata/google-cloud holds the real payload copied byte for
// byte from the real captures of testdata/google-cloud (provenance in testdata/SOURCES.md): the first two
// incidents of status.cloud.google.com/incidents.json captured 2026-08-18, both carrying
// a "Preliminary Incident Report" and a full "Incident Report" update. Other shapes are
// built in the tests from that file or from the schema at
// https://status.cloud.google.com/incidents.schema.json.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

const gcpFile = "incidents-2-with-incident-report.json"

func gcpBase(tb testing.TB) []model.Incident {
	tb.Helper()
	list, err := decodeGCP("application/json", fetchtest.Testdata(tb, "google-cloud", gcpFile))
	if err != nil {
		tb.Fatal(err)
	}
	base, _ := fetch.BaseURL("https://status.cloud.google.com")
	return normaliseGCP(list, base)
}

// gcpRaw returns the real payload as generic JSON, to edit.
func gcpRaw(tb testing.TB) []map[string]any {
	tb.Helper()
	var raw []map[string]any
	if err := stdjson.Unmarshal(fetchtest.Testdata(tb, "google-cloud", gcpFile), &raw); err != nil {
		tb.Fatal(err)
	}
	return raw
}

// testBase is the page the normaliser tests resolve links against.
var testBase, _ = url.Parse("https://www.githubstatus.com/")

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := stdjson.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestGCPRealPayload(t *testing.T) {
	incs := gcpBase(t)
	if len(incs) != 2 {
		t.Fatalf("got %d incidents, want 2", len(incs))
	}
	type want struct {
		id, title, started, resolved string
		components                   []string
		updates                      int
		pmPrefix, pmPublished        string
		pmContains                   string
	}
	wants := []want{{
		id:         "3BvH3LVGcupoYqV6F4Nw",
		title:      "Google Cloud VMware Engine (GCVE), Google Cloud NetApp Volumes, and Bare Metal Solutions (BMS) services are experiencing a service outage in europe-west4-a due to a cooling failure.",
		started:    "2026-07-15T23:57:00Z",
		resolved:   "2026-07-16T12:25:00Z",
		components: []string{"Bare Metal Solution", "Google Cloud NetApp Volumes", "VMWare engine"},
		updates:    10, // 12 updates, minus the preliminary and the full report
		pmPrefix:   "## \\# Incident Report\n## \\#\\# Summary\nOn Wednesday, 15 July 2026, Google Cloud VMware Engine (GCVE), Bare Metal Solution (BMS), and Google Cloud NetApp Volumes (GCNV) experienced service interruptions for a total duration of 14 hours, 55 minutes.",
		pmContains: "The root cause for this outage is a 3ms voltage drop in the power feed from the utility provider",
		// The full report, posted after the preliminary one (2026-07-18T00:22:37Z).
		pmPublished: "2026-07-25T13:16:55Z",
	}, {
		id:          "T8gmtofFSTGT5tbhyciF",
		title:       "Google Cloud VMware Engine (GCVE) Stretched Cluster customers are experiencing zonal outages impacting network connectivity across multiple regions.",
		started:     "2026-07-14T17:00:00Z",
		resolved:    "2026-07-15T03:40:00Z",
		components:  []string{"VMWare engine"},
		updates:     9, // 11 minus two reports
		pmPrefix:    "## Incident Report\n## Summary\nOn Tuesday, 14 July 2026 10:00 PT, Google Cloud VMware Engine (GCVE) Stretched Cluster",
		pmPublished: "2026-07-24T07:10:18Z",
	}}
	for i, w := range wants {
		inc := incs[i]
		if inc.ID != w.id || inc.Title != w.title || inc.Kind != model.KindIncident {
			t.Errorf("[%d]: got id %q title %q kind %q", i, inc.ID, inc.Title, inc.Kind)
		}
		if inc.Status != model.StatusResolved || inc.StatusRaw != "AVAILABLE" {
			t.Errorf("%s: got status %q raw %q, want resolved, AVAILABLE", w.id, inc.Status, inc.StatusRaw)
		}
		if inc.Impact != model.ImpactMajor || inc.ImpactRaw != "medium" {
			t.Errorf("%s: got impact %q raw %q, want major, medium", w.id, inc.Impact, inc.ImpactRaw)
		}
		if got := inc.StartedAt.Format(time.RFC3339); got != w.started || inc.StartedAt.Location() != time.UTC {
			t.Errorf("%s: started_at %s, want %s UTC", w.id, got, w.started)
		}
		if got := inc.ResolvedAt.Format(time.RFC3339); got != w.resolved {
			t.Errorf("%s: resolved_at %s, want %s", w.id, got, w.resolved)
		}
		if !slices.Equal(inc.Components, w.components) {
			t.Errorf("%s: components %q, want %q", w.id, inc.Components, w.components)
		}
		if want := "https://status.cloud.google.com/incidents/" + w.id; inc.URL != want {
			t.Errorf("%s: url %q, want %q", w.id, inc.URL, want)
		}
		if len(inc.Updates) != w.updates {
			t.Errorf("%s: got %d updates, want %d", w.id, len(inc.Updates), w.updates)
		}
		for j, u := range inc.Updates {
			if gcpIsReport(u.Body) || strings.Contains(u.Body, "Incident Report") {
				t.Errorf("%s: update %d is a report: %.60q", w.id, j, u.Body)
			}
			if u.Format != model.FormatMarkdown || u.PostedAt.Location() != time.UTC || len(u.ID) != 16 {
				t.Errorf("%s: update %d: format %q, posted_at %v, id %q", w.id, j, u.Format, u.PostedAt, u.ID)
			}
			if j > 0 && u.PostedAt.Before(inc.Updates[j-1].PostedAt) {
				t.Errorf("%s: updates not oldest first at %d", w.id, j)
			}
		}
		first := inc.Updates[0]
		if !strings.HasPrefix(first.Body, "**Summary**\n") || first.Status != model.StatusInvestigating {
			t.Errorf("%s: first update %q %.40q", w.id, first.Status, first.Body)
		}
		pm := inc.Postmortem
		if pm == nil {
			t.Fatalf("%s: no postmortem", w.id)
		}
		if !strings.HasPrefix(pm.Body, w.pmPrefix) || !strings.Contains(pm.Body, w.pmContains) ||
			pm.Format != model.FormatMarkdown || pm.PublishedAt.Format(time.RFC3339) != w.pmPublished {
			t.Errorf("%s: postmortem %s %s %.200q", w.id, pm.Format, pm.PublishedAt.Format(time.RFC3339), pm.Body)
		}
		if strings.Contains(pm.Body, "Preliminary Incident Report") {
			t.Errorf("%s: the preliminary report won over the full one", w.id)
		}
	}
	// The second incident's last regular update is the AVAILABLE one.
	last := incs[1].Updates[len(incs[1].Updates)-1]
	if last.Status != model.StatusResolved || last.PostedAt.Format(time.RFC3339) != "2026-07-15T05:34:26Z" {
		t.Errorf("last update of T8gm…: %q at %s", last.Status, last.PostedAt.Format(time.RFC3339))
	}
}

func TestGCPPostmortemText(t *testing.T) {
	// The postmortem is the full text of the "Incident Report" update, cleaned only at
	// its ends.
	raw := gcpRaw(t)
	ups := raw[0]["updates"].([]any)
	report := ups[0].(map[string]any)["text"].(string) // newest first
	incs := gcpBase(t)
	if got, want := incs[0].Postmortem.Body, strings.TrimSpace(report); got != want {
		t.Errorf("postmortem differs from the report update: %d vs %d bytes", len(got), len(want))
	}
}

func TestGCPReportDetection(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"# Preliminary Incident Report\nWe sincerely apologize", true},
		{"## Preliminary Incident Report\nWe sincerely apologize", true},
		{"## \\# Incident Report\n## \\#\\# Summary", true},
		{"## Incident Report\n## Summary", true},
		{"# Mini Incident Report\nWe apologize", true},
		{"\n\n**Incident Report:**\nSummary", true},
		{"INCIDENT REPORT", true},
		{"# INCIDENT REPORT (Combined for the incidents of 14 and 15 July)\n## Summary", true},
		{"INCIDENT REPORT (Combined", true},
		{"# Mini Incident Report (Full Incident Report To Follow)\n## Summary", true},
		{"**Mini Incident Report (Full Incident Report To Follow)**\nSummary", true},
		{"# Mini Incident Report while full Incident Report is prepared\nWe apologize", true},
		{"Mini Incident Report while full Incident Report is prepared", true},
		{"## Full Incident Report\n", true},
		{"# Incident Report - Google Cloud Networking\n", true},
		{"Google Cloud Networking Incident Report", true},
		{"The full Incident Report is being prepared and will be posted here.", false},
		{"See the Mini Incident Report below.", false},
		{"An incident report will follow", false},
		{"**Summary**\nGoogle Cloud VMware Engine", false},
		{"We will publish an Incident Report once our internal investigation completes.", false},
		{"# Summary of the Incident Report we published earlier, and more words beyond it", false},
		{"", false},
	} {
		if got := gcpIsReport(tc.text); got != tc.want {
			t.Errorf("gcpIsReport(%.40q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestGCPStatusAndImpact(t *testing.T) {
	for _, tc := range []struct {
		severity string
		want     model.Impact
	}{
		{"low", model.ImpactMinor}, {"medium", model.ImpactMajor}, {"high", model.ImpactCritical},
		{"HIGH", model.ImpactCritical}, {"", model.ImpactUnknown}, {"severe", model.ImpactUnknown},
	} {
		if got := gcpImpact(tc.severity); got != tc.want {
			t.Errorf("gcpImpact(%q) = %q, want %q", tc.severity, got, tc.want)
		}
	}
	for _, tc := range []struct {
		status string
		want   model.Status
	}{
		{"AVAILABLE", model.StatusResolved}, {"SERVICE_DISRUPTION", model.StatusInvestigating},
		{"SERVICE_OUTAGE", model.StatusInvestigating}, {"SERVICE_INFORMATION", model.StatusInvestigating},
		{"", model.StatusInvestigating},
	} {
		if got := gcpStatus(tc.status); got != tc.want {
			t.Errorf("gcpStatus(%q) = %q, want %q", tc.status, got, tc.want)
		}
	}

	// An incident's status comes from its most recent update, unless end is set.
	inc := func(end string, statuses ...string) model.Incident {
		in := gcpIncident{ID: "x", Begin: "2026-01-01T00:00:00+00:00", End: end, Severity: "high"}
		for i, s := range statuses { // newest first, as Google lists them
			at := fmt.Sprintf("2026-01-01T0%d:00:00+00:00", len(statuses)-i)
			in.Updates = append(in.Updates, gcpUpdate{Created: at, When: at, Status: s, Text: "u" + s})
		}
		return in.normalise(nil)
	}
	for _, tc := range []struct {
		name     string
		got      model.Incident
		want     model.Status
		wantRaw  string
		resolved string
	}{
		{"open outage", inc("", "SERVICE_OUTAGE", "SERVICE_DISRUPTION"), model.StatusInvestigating, "SERVICE_OUTAGE", ""},
		{"available without end", inc("", "AVAILABLE", "SERVICE_DISRUPTION"), model.StatusResolved, "AVAILABLE", ""},
		{"end set", inc("2026-01-01T05:00:00+00:00", "SERVICE_DISRUPTION"), model.StatusResolved, "SERVICE_DISRUPTION", "2026-01-01T05:00:00Z"},
		{"no updates", inc(""), model.StatusInvestigating, "", ""},
	} {
		if tc.got.Status != tc.want || tc.got.StatusRaw != tc.wantRaw || tc.got.Impact != model.ImpactCritical {
			t.Errorf("%s: got %q raw %q impact %q, want %q raw %q critical", tc.name, tc.got.Status, tc.got.StatusRaw, tc.got.Impact, tc.want, tc.wantRaw)
		}
		if got := tc.got.ResolvedAt; (tc.resolved == "") != got.IsZero() || (tc.resolved != "" && got.Format(time.RFC3339) != tc.resolved) {
			t.Errorf("%s: resolved_at %v, want %q", tc.name, got, tc.resolved)
		}
	}
}

func TestGCPLatestReportWins(t *testing.T) {
	in := gcpIncident{ID: "x", Updates: []gcpUpdate{ // newest first
		{When: "2026-01-05T00:00:00+00:00", Text: "# Incident Report\nFull text v1", Status: "AVAILABLE"},
		{When: "2026-01-03T00:00:00+00:00", Text: "# Preliminary Incident Report\nShort", Status: "AVAILABLE"},
		{When: "2026-01-02T00:00:00+00:00", Text: "Fixed.", Status: "AVAILABLE"},
		{When: "2026-01-01T00:00:00+00:00", Text: "Looking.", Status: "SERVICE_OUTAGE"},
	}}
	got := in.normalise(nil)
	if got.Postmortem == nil || got.Postmortem.Body != "# Incident Report\nFull text v1" ||
		got.Postmortem.PublishedAt.Format(time.RFC3339) != "2026-01-05T00:00:00Z" {
		t.Fatalf("got postmortem %+v, want the full report", got.Postmortem)
	}
	if len(got.Updates) != 2 || got.Updates[0].Body != "Looking." || got.Updates[1].Body != "Fixed." {
		t.Errorf("got updates %+v, want the two non-report updates", got.Updates)
	}
	// Only a preliminary report: it is the postmortem until the full one lands.
	in.Updates = in.Updates[1:]
	if got := in.normalise(nil); got.Postmortem == nil || !strings.HasPrefix(got.Postmortem.Body, "# Preliminary") {
		t.Errorf("got postmortem %+v, want the preliminary report", got.Postmortem)
	}
	// None: no postmortem.
	in.Updates = in.Updates[1:]
	if got := in.normalise(nil); got.Postmortem != nil {
		t.Errorf("got postmortem %+v, want none", got.Postmortem)
	}
}

// TestGCPStableUpdateKeys: an update's id is the key of an update without id: (incident id, timestamp,
// ordinal among updates with that timestamp), never its body, so an edited body is an
// edit of the same update — a change of updates[<id>].body, never a removal plus an
// addition.
func TestGCPStableUpdateKeys(t *testing.T) {
	before := gcpBase(t)

	// The key is (incident id, timestamp, ordinal), hashed.
	sum := sha256.Sum256([]byte("3BvH3LVGcupoYqV6F4Nw\x002026-07-16T03:30:59Z\x000"))
	if got, want := before[0].Updates[0].ID, hex.EncodeToString(sum[:8]); got != want {
		t.Errorf("first update id %q, want %q", got, want)
	}

	// Edit the body of an update (Google moves "modified" when it does).
	raw := gcpRaw(t)
	ups := raw[0]["updates"].([]any)
	edited := ups[5].(map[string]any) // newest first: the 7th oldest
	edited["text"] = edited["text"].(string) + "\nEdited: one more sentence."
	edited["modified"] = "2026-08-01T00:00:00+00:00"
	// And restate every time with "Z": a change of format is no change of key.
	for _, u := range raw[1]["updates"].([]any) {
		m := u.(map[string]any)
		m["when"] = strings.Replace(m["when"].(string), "+00:00", "Z", 1)
	}
	list, err := decodeGCP("application/json", mustJSON(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	after := normaliseGCP(list, testBase)

	changes := diff.Changes(&before[0], &after[0])
	editedID := before[0].Updates[len(before[0].Updates)-1-(5-2)].ID // 2 reports are newer
	if len(changes) != 1 || changes[0].Field != "updates["+editedID+"].body" {
		t.Fatalf("got changes %+v, want one edit of updates[%s].body", changes, editedID)
	}
	if ch := diff.Changes(&before[1], &after[1]); ch != nil {
		t.Errorf("restating times with Z changed %+v", ch)
	}

	// Two updates with the same time get ordinals 0 and 1, counting from the oldest
	// (the later one in Google's newest-first list).
	in := gcpIncident{ID: "x", Updates: []gcpUpdate{
		{When: "2026-01-01T00:00:00+00:00", Text: "second"},
		{When: "2026-01-01T00:00:00+00:00", Text: "first"},
	}}
	got := in.normalise(nil)
	if got.Updates[0].Body != "first" || got.Updates[0].ID != fetch.UpdateKey("x", "2026-01-01T00:00:00Z", 0) ||
		got.Updates[1].ID != fetch.UpdateKey("x", "2026-01-01T00:00:00Z", 1) {
		t.Errorf("same-time updates: %+v", got.Updates)
	}
	// A new update at another time keys none of the others differently.
	in.Updates = append([]gcpUpdate{{When: "2026-01-02T00:00:00+00:00", Text: "third"}}, in.Updates...)
	got2 := in.normalise(nil)
	if got2.Updates[0].ID != got.Updates[0].ID || got2.Updates[1].ID != got.Updates[1].ID {
		t.Errorf("a new update re-keyed the others: %+v vs %+v", got2.Updates, got.Updates)
	}
}

// TestGCPEditThroughArchive records the real payload, then the same payload with one
// update's body edited: the archive's version 2 changes that update's body only.
func TestGCPEditThroughArchive(t *testing.T) {
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	page.Set("/incidents.json", fetchtest.Route{Body: fetchtest.Testdata(t, "google-cloud", gcpFile)})
	a := fetchtest.NewArchive(t, Kind, model.Source{Name: "gcp", URL: srv.URL})
	if _, r, err := a.Poll(); err != nil || r.Changed != 2 {
		t.Fatalf("first poll: %v, %+v", err, r)
	}
	raw := gcpRaw(t)
	u := raw[1]["updates"].([]any)[2].(map[string]any)
	u["text"] = strings.Replace(u["text"].(string), "Stretched Cluster", "Stretched-Cluster", 1)
	page.Set("/incidents.json", fetchtest.Route{Body: mustJSON(t, raw)})
	if _, r, err := a.Poll(); err != nil || r.Changed != 1 || r.Removed != 0 {
		t.Fatalf("second poll: %v, %+v", err, r)
	}
	vs, err := a.Store.Versions("gcp", "T8gmtofFSTGT5tbhyciF")
	if err != nil || len(vs) != 2 {
		t.Fatalf("got %d versions, %v", len(vs), err)
	}
	ch := vs[1].Changes
	if len(ch) != 1 || !strings.HasPrefix(ch[0].Field, "updates[") || !strings.HasSuffix(ch[0].Field, "].body") {
		t.Errorf("version 2 changes %+v, want one update body edit", ch)
	}
}

func TestGCPPoll(t *testing.T) {
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	body := fetchtest.Testdata(t, "google-cloud", gcpFile)
	const lm = "Tue, 18 Aug 2026 12:00:00 GMT"
	page.Set("/gcp/incidents.json", fetchtest.Route{Body: body, ETag: `"g1"`, LastModified: lm})
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{UserAgent: "statuswatch/test"}))
	if err != nil {
		t.Fatal(err)
	}
	src := model.Source{Name: "gcp", URL: srv.URL + "/gcp", Kind: Kind}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	got := page.Requests()
	if len(got) != 1 || got[0].Path != "/gcp/incidents.json" || got[0].IfNoneMatch != "" || got[0].UserAgent != "statuswatch/test" {
		t.Fatalf("first poll requests %+v", got)
	}
	s := r1.Snapshot
	if s == nil || len(s.Incidents) != 2 || s.OpenOnly || s.Source != "gcp" || !s.FetchedAt.Equal(fetchtest.PollNow) {
		t.Fatalf("first poll snapshot %+v", s)
	}
	if len(s.Listings) != 1 || s.Listings[0] != (model.Listing{Kind: model.KindIncident}) {
		t.Errorf("listings %+v, want one incident listing of the whole history", s.Listings)
	}
	if s.Incidents[0].URL != srv.URL+"/gcp/incidents/3BvH3LVGcupoYqV6F4Nw" {
		t.Errorf("url %q", s.Incidents[0].URL)
	}
	if r1.Requests != 1 || len(r1.Bodies) != 1 || r1.Bodies[0].Endpoint != fetch.EndpointIncidents || len(r1.Bodies[0].Data) != len(body) {
		t.Errorf("requests %d bodies %+v", r1.Requests, r1.Bodies)
	}
	if st := r1.State[fetch.EndpointIncidents]; st.ETag != `"g1"` || st.LastModified != lm || st.Hash == "" {
		t.Errorf("state %+v", st)
	}

	// Second poll: conditional, 304, nothing parsed.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	got = page.Requests()
	if len(got) != 1 || got[0].IfNoneMatch != `"g1"` || got[0].IfModifiedSince != lm {
		t.Fatalf("second poll requests %+v", got)
	}
	if r2.Snapshot != nil || r2.Requests != 1 || r2.StateChanged(r1.State) || r2.Bodies[0].Data != nil {
		t.Errorf("304 poll: snapshot %v, requests %d, bodies %+v", r2.Snapshot, r2.Requests, r2.Bodies)
	}

	// Third poll: no validators any more, the same bytes: recognised by hash, not parsed.
	page.Set("/gcp/incidents.json", fetchtest.Route{Body: body})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if r3.Snapshot != nil || r3.Requests != 1 || r3.Bodies[0].Data != nil {
		t.Errorf("identical body: snapshot %v, requests %d", r3.Snapshot, r3.Requests)
	}
	if got := page.Requests(); len(got) != 1 || got[0].IfNoneMatch != `"g1"` {
		t.Errorf("third poll requests %+v", got)
	}

	// Fourth poll: new bytes, parsed.
	raw := gcpRaw(t)
	page.Set("/gcp/incidents.json", fetchtest.Route{Body: mustJSON(t, raw[:1])})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil || r4.Snapshot == nil || len(r4.Snapshot.Incidents) != 1 {
		t.Fatalf("changed body: %v, %+v", err, r4)
	}
	if got := page.Paths(); !slices.Equal(got, []string{"/gcp/incidents.json"}) {
		t.Errorf("fourth poll requested %v", got)
	}

	// An endpoint override wins.
	page.Set("/elsewhere.json", fetchtest.Route{Body: body})
	src.Endpoints = map[string]string{fetch.EndpointIncidents: srv.URL + "/elsewhere.json"}
	if _, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow}); err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{"/elsewhere.json"}) {
		t.Errorf("override: requested %v", got)
	}
}

func TestGCPMalformed(t *testing.T) {
	body := fetchtest.Testdata(t, "google-cloud", gcpFile)
	for _, tc := range []struct {
		name, ct string
		body     []byte
	}{
		{"empty", "application/json", nil},
		{"blank", "application/json", []byte(" \n")},
		{"html page", "text/html", []byte("<!DOCTYPE html><html><body>Sign in</body></html>")},
		{"html content type", "text/html; charset=utf-8", []byte("[]")},
		{"truncated", "application/json", body[:len(body)/2]},
		{"truncated at the end", "application/json", body[:len(body)-2]},
		{"object", "application/json", []byte(`{"incidents":[]}`)},
		{"no id", "application/json", []byte(`[{"external_desc":"x"}]`)},
		{"null", "application/json", []byte(`null`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := fetchtest.NewFakePage()
			srv := fetchtest.NewServer(t, page)
			page.Set("/incidents.json", fetchtest.Route{Body: tc.body, ContentType: tc.ct})
			p, _ := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
			r, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{Name: "gcp", URL: srv.URL}, Now: fetchtest.PollNow})
			if !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
			if r == nil || r.Snapshot != nil || r.Requests != 1 {
				t.Errorf("got result %+v, want no snapshot after 1 request", r)
			}
		})
	}
	// An empty history is well-formed.
	list, err := decodeGCP("application/json", []byte("[]"))
	if err != nil || len(list) != 0 {
		t.Errorf("empty array: %v, %d", err, len(list))
	}
	// A failing fetch is an error too, not an empty page.
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	page.Set("/incidents.json", fetchtest.Route{Status: http.StatusServiceUnavailable, Body: []byte("down")})
	p, _ := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if _, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{Name: "gcp", URL: srv.URL}, Now: fetchtest.PollNow}); err == nil {
		t.Error("503: no error")
	}
}

// gcp5MB builds a synthetic incidents.json of at least 5 MB, compact as Google serves
// it, by repeating the real incidents with new ids.
func gcp5MB(tb testing.TB) []byte {
	tb.Helper()
	raw := gcpRaw(tb)
	var out []map[string]any
	size := 0
	for n := 0; size < 5<<20; n++ {
		for _, inc := range raw {
			var c map[string]any
			stdjson.Unmarshal(mustJSON(tb, inc), &c)
			c["id"] = fmt.Sprintf("%s%04d", c["id"], n)
			c["uri"] = "incidents/" + c["id"].(string)
			size += len(mustJSON(tb, c))
			out = append(out, c)
		}
	}
	return mustJSON(tb, out)
}

// BenchmarkGCPParse5MB decodes and normalises a 5 MB history, the work of every poll on
// which Google's document changed (an unchanged one is a hash, BenchmarkUnchangedBody).
// "jsonv2" is what ships: go-json-experiment into structs holding only the fields used;
// "encoding-json" decodes the same structs with the standard library, for comparison.
func BenchmarkGCPParse5MB(b *testing.B) {
	body := gcp5MB(b)
	var probe []struct{}
	if err := stdjson.Unmarshal(body, &probe); err != nil {
		b.Fatal(err)
	}
	want := len(probe)
	b.Logf("%d bytes, %d incidents", len(body), want)
	b.Run("jsonv2", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer fetchtest.CPUMeter(b)()
		for b.Loop() {
			list, err := decodeGCP("application/json", body)
			if err != nil {
				b.Fatal(err)
			}
			if incs := normaliseGCP(list, testBase); len(incs) != want {
				b.Fatalf("got %d incidents, want %d", len(incs), want)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer fetchtest.CPUMeter(b)()
		for b.Loop() {
			var list []gcpIncident
			if err := stdjson.Unmarshal(body, &list); err != nil {
				b.Fatal(err)
			}
			if incs := normaliseGCP(list, testBase); len(incs) != want {
				b.Fatalf("got %d incidents", len(incs))
			}
		}
	})
}

// FuzzGCP feeds arbitrary bytes to the GCP decoder, seeded with the real payload: it must
// reject what it cannot read with an error and never panic; what it accepts
// normalises to incidents with ids, sorted components and unique update ids.
func FuzzGCP(f *testing.F) {
	f.Add(fetchtest.Testdata(f, "google-cloud", gcpFile))
	f.Add([]byte(`[{"id":"a","updates":[{"when":"x"},{"when":"x","text":"# Incident Report"}],"affected_products":[{}]}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := decodeGCP("application/json", data)
		if err != nil {
			if !errors.Is(err, payload.ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		for _, inc := range normaliseGCP(list, testBase) {
			fetchtest.CheckIncident(t, inc)
		}
	})
}

// TestGCPReportHeadingVariants: whatever its heading, every report leaves the update
// list, and the latest is the postmortem.
func TestGCPReportHeadingVariants(t *testing.T) {
	for _, tc := range []struct{ name, mini, full string }{
		{"mini then combined", "# Mini Incident Report (Full Incident Report To Follow)\nShort.", "# INCIDENT REPORT (Combined for two incidents)\nLong."},
		{"mini while then full", "Mini Incident Report while full Incident Report is prepared\nShort.", "# Incident Report\nLong."},
		{"preliminary then mini heading", "# Preliminary Incident Report\nShort.", "# Mini Incident Report\nLong."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := gcpIncident{ID: "x", Updates: []gcpUpdate{ // newest first, as Google lists them
				{When: "2026-07-20T10:00:00Z", Text: tc.full, Status: "AVAILABLE"},
				{When: "2026-07-16T10:00:00Z", Text: "We have resolved the issue.", Status: "AVAILABLE"},
				{When: "2026-07-15T12:00:00Z", Text: tc.mini, Status: "AVAILABLE"},
				{When: "2026-07-15T09:00:00Z", Text: "We are investigating.", Status: "SERVICE_DISRUPTION"},
			}}
			updates, pm, _ := in.timeline()
			if pm == nil || pm.Body != tc.full || !pm.PublishedAt.Equal(fetchtest.MustTime("2026-07-20T10:00:00Z")) {
				t.Errorf("got postmortem %+v, want the full report of 2026-07-20", pm)
			}
			var bodies []string
			for _, u := range updates {
				bodies = append(bodies, u.Body)
			}
			if got, want := strings.Join(bodies, "|"), "We are investigating.|We have resolved the issue."; got != want {
				t.Errorf("got updates %q, want %q", got, want)
			}
		})
	}
}

// TestGCPContract: the contract every platform keeps.
func TestGCPContract(t *testing.T) {
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "gcp", URL: base + "/gcp"} },
		Routes: map[string]fetchtest.Route{"/gcp/incidents.json": {Body: fetchtest.Testdata(t, "google-cloud", gcpFile)}},
		Main:   "/gcp/incidents.json",
	}.Run(t)
}
