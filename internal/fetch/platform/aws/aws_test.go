package aws

// AWS adapter tests. testdata/aws holds the real payloads copied byte for byte from
// the real captures of testdata/aws (provenance in testdata/SOURCES.md): all.rss captured 2026-08-18 (50
// items) and public/currentevents captured 2026-08-01 (UTF-16 BE with a BOM, two open
// events). Other feeds are built here in the same shape: RSS items as in all.rss, events
// as in the currentevents capture.

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/model"
)

const (
	awsRSSFile = "all.rss"
	awsCEFile  = "health-public-currentevents-2026-08-01.utf16be.json"
)

// awsItem is one RSS item to build a feed from.
type awsItem struct {
	service string
	at      int64
	title   string
	desc    string
}

// awsRSSBody builds an all.rss in the shape of the real one.
func awsRSSBody(items ...awsItem) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title><![CDATA[Amazon Web Services Service Status]]></title>
    <link>https://status.aws.amazon.com/</link>
    <language>en-us</language>
`)
	for _, it := range items {
		fmt.Fprintf(&b, `	 <item>
	  <title><![CDATA[%s]]></title>
	  <link>https://status.aws.amazon.com/</link>
	  <pubDate>%s</pubDate>
	  <guid isPermaLink="false">https://status.aws.amazon.com/#%s_%d</guid>
	  <description><![CDATA[%s]]></description>
	 </item>
`, it.title, time.Unix(it.at, 0).UTC().Format(time.RFC1123Z), it.service, it.at, it.desc)
	}
	b.WriteString("  </channel>\n</rss>\n")
	return []byte(b.String())
}

// awsEventJSON is one currentevents event to build a body from.
type awsEventJSON struct {
	Date             string                       `json:"date"`
	Service          string                       `json:"service"`
	ServiceName      string                       `json:"service_name"`
	Status           string                       `json:"status"`
	Summary          string                       `json:"summary"`
	EventLog         []awsLogJSON                 `json:"event_log"`
	ImpactedServices map[string]map[string]string `json:"impacted_services"`
}

type awsLogJSON struct {
	Summary   string `json:"summary"`
	Message   string `json:"message"`
	Status    int    `json:"status"`
	Timestamp int64  `json:"timestamp"`
}

// utf16BOM encodes s as UTF-16 with a byte-order mark, as currentevents is served.
func utf16BOM(s string, bigEndian bool) []byte {
	units := utf16.Encode([]rune("\ufeff" + s))
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func awsCEBody(tb testing.TB, events ...awsEventJSON) []byte {
	tb.Helper()
	if events == nil {
		events = []awsEventJSON{}
	}
	return utf16BOM(string(fetchtest.MustJSON(tb, events)), true)
}

func awsBuildFrom(tb testing.TB, rss, ce []byte, memo awsMemo, archived func(string) *model.Incident) ([]model.Incident, model.Listing, awsMemo) {
	tb.Helper()
	feed, err := decodeAWSRSS(rss)
	if err != nil {
		tb.Fatal(err)
	}
	events, err := decodeAWSCurrentEvents("application/json", ce)
	if err != nil {
		tb.Fatal(err)
	}
	if memo == nil {
		memo = awsMemo{}
	}
	b := awsBuild{feed: feed, events: events, memo: memo, archived: archived, pageURL: "https://health.aws.amazon.com/health/status", now: fetchtest.PollNow}
	return b.run()
}

func awsByID(incs []model.Incident) map[string]model.Incident {
	m := map[string]model.Incident{}
	for _, inc := range incs {
		m[inc.ID] = inc
	}
	return m
}

func unixUTC(s int64) time.Time { return time.Unix(s, 0).UTC() }

func TestAWSRealPayloads(t *testing.T) {
	rss := fetchtest.Testdata(t, "aws", awsRSSFile)
	ce := fetchtest.Testdata(t, "aws", awsCEFile)
	incs, listing, memo := awsBuildFrom(t, rss, ce, nil, nil)
	if len(incs) != 3 {
		t.Fatalf("got %d incidents, want 3: %v", len(incs), slices.Collect(func(yield func(string) bool) {
			for _, i := range incs {
				yield(i.ID)
			}
		}))
	}
	if want := (model.Listing{Kind: model.KindIncident, Since: unixUTC(1772396043)}); listing != want {
		t.Errorf("listing %+v, want %+v (the oldest RSS item)", listing, want)
	}
	by := awsByID(incs)

	// Direct Connect in Frankfurt: 20 RSS posts, resolved; not in the 2026-08-01
	// currentevents (it started on August 14).
	dx, ok := by["directconnect-eu-central-1_1786765379"]
	if !ok {
		t.Fatalf("no directconnect incident in %v", by)
	}
	if dx.Title != "Increased Packet loss" || dx.Status != model.StatusResolved || dx.StatusRaw != "Service is operating normally" ||
		dx.Impact != model.ImpactMinor || dx.ImpactRaw != "Service impact" {
		t.Errorf("directconnect: %q %q/%q %q/%q", dx.Title, dx.Status, dx.StatusRaw, dx.Impact, dx.ImpactRaw)
	}
	if !dx.StartedAt.Equal(unixUTC(1786765379)) || !dx.ResolvedAt.Equal(unixUTC(1787025679)) ||
		dx.ResolvedAt.Format(time.RFC3339) != "2026-08-18T04:01:19Z" {
		t.Errorf("directconnect: started %v resolved %v", dx.StartedAt, dx.ResolvedAt)
	}
	if !slices.Equal(dx.Components, []string{"directconnect-eu-central-1"}) || dx.URL != "https://health.aws.amazon.com/health/status" {
		t.Errorf("directconnect: components %q url %q", dx.Components, dx.URL)
	}
	if len(dx.Updates) != 20 {
		t.Fatalf("directconnect: %d updates, want 20", len(dx.Updates))
	}
	first, last := dx.Updates[0], dx.Updates[19]
	if first.ID != "directconnect-eu-central-1_1786765379" || first.Status != model.StatusInvestigating ||
		!strings.HasPrefix(first.Body, "We are investigating increased packet loss, impacting AWS Direct Connect") {
		t.Errorf("directconnect first update %+v", first)
	}
	if last.ID != "directconnect-eu-central-1_1787025679" || last.Status != model.StatusResolved || last.Format != model.FormatHTML {
		t.Errorf("directconnect last update %s %s %s", last.ID, last.Status, last.Format)
	}
	// The body keeps its paragraphs, the link becomes text; the HTML keeps a safe link.
	if !strings.Contains(last.Body, "We do not expect this issue to recur.\n\nCustomers with redundant connections") ||
		!strings.HasSuffix(last.Body, "or the AWS Support Center.") {
		t.Errorf("directconnect last body %q", last.Body)
	}
	if !strings.Contains(last.HTML, `<a href="https://console.aws.amazon.com/support" rel="nofollow noreferrer noopener" target="_blank">AWS Support Center</a>`) {
		t.Errorf("directconnect last html %q", last.HTML)
	}

	// ME-CENTRAL-1: open in currentevents since 1772369485; the feed keeps only its 17
	// posts since 1772396043, the event adds the 6 older ones.
	mec, ok := by["multipleservices-me-central-1_1772369485"]
	if !ok {
		t.Fatalf("no me-central-1 incident with the event's start in %v", slices.Sorted(func(yield func(string) bool) {
			for id := range by {
				yield(id)
			}
		}))
	}
	if mec.Title != "Increased Error Rates" || mec.Status != model.StatusInvestigating || mec.StatusRaw != "Service disruption" ||
		mec.Impact != model.ImpactCritical || mec.ImpactRaw != "Service disruption" || !mec.ResolvedAt.IsZero() {
		t.Errorf("me-central-1: %q %q/%q %q/%q %v", mec.Title, mec.Status, mec.StatusRaw, mec.Impact, mec.ImpactRaw, mec.ResolvedAt)
	}
	if !mec.StartedAt.Equal(unixUTC(1772369485)) || len(mec.Updates) != 23 {
		t.Errorf("me-central-1: started %v, %d updates; want 2026-03-01T12:51:25Z, 23", mec.StartedAt, len(mec.Updates))
	}
	if u := mec.Updates[0]; u.Body != "We are investigating issues with AWS services in the ME-CENTRAL-1 Region." || !u.PostedAt.Equal(unixUTC(1772369485)) {
		t.Errorf("me-central-1 first update %+v", u)
	}
	// Components: the service and the 140 impacted services of the event.
	if len(mec.Components) != 141 || !slices.Contains(mec.Components, "multipleservices-me-central-1") ||
		!slices.Contains(mec.Components, "cloudwatchsynthetics-me-central-1") || !slices.IsSorted(mec.Components) {
		t.Errorf("me-central-1: %d components %q…", len(mec.Components), mec.Components[:3])
	}

	// ME-SOUTH-1: every post of the event is in the feed.
	mes := by["multipleservices-me-south-1_1772430987"]
	if mes.Title != "Increased Connectivity Issues and API Error Rates" || len(mes.Updates) != 13 || mes.Impact != model.ImpactCritical ||
		mes.Updates[0].Body != "We are investigating increased API error rates in a single Availability Zone (mes1-az2) in the ME-SOUTH-1 Region." {
		t.Errorf("me-south-1: %q, %d updates, %q, first %.60q", mes.Title, len(mes.Updates), mes.Impact, mes.Updates[0].Body)
	}
	total := 0
	for _, inc := range incs {
		total += len(inc.Updates)
		fetchtest.CheckIncident(t, inc)
	}
	if total != 56 { // 50 RSS items + the 6 posts only the event still holds
		t.Errorf("got %d updates in all, want 56", total)
	}

	// What is remembered for the next poll.
	want := map[string]string{
		"episodes/directconnect-eu-central-1":    "1786765379-1787025679",
		"episodes/multipleservices-me-central-1": "1772369485-1777533954+e", // listed by currentevents
		"episodes/multipleservices-me-south-1":   "1772430987-1777532831+e",
	}
	got := map[string]string{}
	for k, v := range memo.state() {
		got[k] = awsNotation(v.Episodes)
	}
	if !maps.Equal(got, want) {
		t.Errorf("memo %v, want %v", got, want)
	}
}

// TestAWSGroupingByGUID reads the real feed alone (no open event): items are grouped by
// the guid before "_<timestamp>", one incident per service here, each post an update.
func TestAWSGroupingByGUID(t *testing.T) {
	incs, _, _ := awsBuildFrom(t, fetchtest.Testdata(t, "aws", awsRSSFile), awsCEBody(t), nil, nil)
	got := map[string]int{}
	for _, inc := range incs {
		got[inc.ID] = len(inc.Updates)
		for _, u := range inc.Updates {
			if service, _, _ := strings.Cut(inc.ID, "_"); !strings.HasPrefix(u.ID, service+"_") {
				t.Errorf("%s holds update %s", inc.ID, u.ID)
			}
		}
	}
	want := map[string]int{
		"directconnect-eu-central-1_1786765379":    20,
		"multipleservices-me-central-1_1772396043": 17, // its oldest post still in the feed
		"multipleservices-me-south-1_1772430987":   13,
	}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestAWSCurrentEventsEncodings(t *testing.T) {
	be := fetchtest.Testdata(t, "aws", awsCEFile)
	if !bytes.HasPrefix(be, []byte{0xfe, 0xff}) {
		t.Fatal("the capture is not UTF-16 BE with a BOM")
	}
	events, err := decodeAWSCurrentEvents("application/json", be)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("got %d events, want 2", len(events))
	}
	e := events[0]
	if e.Service != "multipleservices-me-central-1" || e.Date != 1772369485 || e.Status != 3 || e.Summary != "Increased Error Rates" ||
		len(e.EventLog) != 23 || len(e.ImpactedServices) != 140 {
		t.Errorf("event 0: %s %d %d %q, %d log, %d impacted", e.Service, e.Date, e.Status, e.Summary, len(e.EventLog), len(e.ImpactedServices))
	}
	if l := e.EventLog[0]; l.Timestamp != 1772369485 || l.Status != 1 || l.Message != "We are investigating issues with AWS services in the ME-CENTRAL-1 Region." {
		t.Errorf("event 0 log 0: %+v", l)
	}
	if events[1].Service != "multipleservices-me-south-1" || len(events[1].EventLog) != 13 {
		t.Errorf("event 1: %s, %d log", events[1].Service, len(events[1].EventLog))
	}

	// The same document as UTF-16 LE with a BOM, UTF-16 without one, UTF-8 with and
	// without a BOM decodes the same.
	text, err := awsUTF8(be)
	if err != nil || !bytes.HasPrefix(text, []byte(`[{"date":"1772369485"`)) {
		t.Fatalf("utf-8: %v %.40q", err, text)
	}
	le := utf16BOM(string(text), false)
	noBOM := utf16BOM(string(text), true)[2:]
	for name, body := range map[string][]byte{
		"utf-16le":       le,
		"utf-16be-nobom": noBOM,
		"utf-8":          text,
		"utf-8-bom":      append([]byte("\xef\xbb\xbf"), text...),
	} {
		got, err := decodeAWSCurrentEvents("application/json", body)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(got) != 2 || got[0].Service != e.Service || got[1].EventLog[12].Message != events[1].EventLog[12].Message {
			t.Errorf("%s: decoded differently", name)
		}
	}
	// Non-ASCII survives the conversion.
	ev := []awsEventJSON{{Date: "1", Service: "ec2-ap-northeast-1", EventLog: []awsLogJSON{{Message: "東京リージョン — 😀", Timestamp: 2, Status: 1}}}}
	got, err := decodeAWSCurrentEvents("", utf16BOM(string(fetchtest.MustJSON(t, ev)), false))
	if err != nil || got[0].EventLog[0].Message != "東京リージョン — 😀" {
		t.Errorf("non-ASCII: %v %+v", err, got)
	}
	// An empty list is a healthy dashboard.
	if got, err := decodeAWSCurrentEvents("application/json", awsCEBody(t)); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", err, got)
	}
}

func TestAWSTitleMapping(t *testing.T) {
	for _, tc := range []struct {
		title, summary, raw string
		impact              model.Impact
		resolved            bool
	}{
		{"Informational message: Increased API Error Rates", "Increased API Error Rates", "Informational message", model.ImpactMinor, false},
		{"Service impact: Increased Packet loss", "Increased Packet loss", "Service impact", model.ImpactMinor, false},
		{"Performance issues: Elevated latencies", "Elevated latencies", "Performance issues", model.ImpactMajor, false},
		{"Service degradation: Slow launches", "Slow launches", "Service degradation", model.ImpactMajor, false},
		{"Service disruption: Increased Error Rates", "Increased Error Rates", "Service disruption", model.ImpactCritical, false},
		{"Service is operating normally: [RESOLVED] Increased Packet loss", "Increased Packet loss", "Service is operating normally", model.ImpactNone, true},
		{"Informational message: [RESOLVED] Delays", "Delays", "Informational message", model.ImpactMinor, true},
		{"Increased Error Rates: Something", "Something", "Increased Error Rates", model.ImpactUnknown, false},
		{"No level at all", "No level at all", "", model.ImpactUnknown, false},
	} {
		raw, summary := awsSplitTitle(tc.title)
		level, resolved := awsTitleLevel(raw, summary)
		if raw != tc.raw || awsStripResolved(summary) != tc.summary || awsImpact(level) != tc.impact || resolved != tc.resolved {
			t.Errorf("%q: got %q %q %q %v", tc.title, raw, awsStripResolved(summary), awsImpact(level), resolved)
		}
	}
	// The currentevents levels.
	for level, want := range map[int]model.Impact{0: model.ImpactNone, 1: model.ImpactMinor, 2: model.ImpactMajor, 3: model.ImpactCritical, -1: model.ImpactUnknown, 7: model.ImpactUnknown} {
		if got := awsImpact(level); got != want {
			t.Errorf("awsImpact(%d) = %q, want %q", level, got, want)
		}
	}
}

// TestAWSEpisodes: a service's posts split into incidents at resolutions; an open event
// missing from the feed still appears, built from the event; an event sharing a post
// with a feed incident is merged into it.
func TestAWSEpisodes(t *testing.T) {
	const s = "ec2-us-east-1"
	rss := awsRSSBody(
		awsItem{s, 1786000000, "Service disruption: Instance launch errors", "Investigating."},
		awsItem{s, 1786000600, "Service is operating normally: [RESOLVED] Instance launch errors", "Resolved."},
		awsItem{s, 1787000000, "Informational message: API latency", "Looking into latency."},
		awsItem{"lambda-us-east-1", 1787000100, "Performance issues: Invocation errors", "Investigating Lambda."},
	)
	ce := awsCEBody(t,
		// Shares its post with the Lambda incident: merged, adds its newer post.
		awsEventJSON{Date: "1787000100", Service: "lambda-us-east-1", Status: "2", Summary: "Invocation errors",
			EventLog: []awsLogJSON{
				{Summary: "Invocation errors", Message: "Investigating Lambda.", Status: 2, Timestamp: 1787000100},
				{Summary: "Invocation errors", Message: "Mitigating.", Status: 2, Timestamp: 1787000200},
			},
			ImpactedServices: map[string]map[string]string{"lambda-us-east-1": {"current": "2"}, "apigateway-us-east-1": {"current": "1"}}},
		// Not in the feed yet.
		awsEventJSON{Date: "1787000300", Service: "s3-eu-west-1", Status: "1", Summary: "Elevated errors",
			EventLog: []awsLogJSON{{Summary: "Elevated errors", Message: "We are investigating.", Status: 1, Timestamp: 1787000300}}},
	)
	incs, _, memo := awsBuildFrom(t, rss, ce, nil, nil)
	by := awsByID(incs)
	if len(incs) != 4 {
		t.Fatalf("got %d incidents: %v", len(incs), by)
	}
	a, b := by[s+"_1786000000"], by[s+"_1787000000"]
	if a.Status != model.StatusResolved || a.Impact != model.ImpactCritical || len(a.Updates) != 2 || !a.ResolvedAt.Equal(unixUTC(1786000600)) {
		t.Errorf("first EC2 incident: %+v", a)
	}
	if b.Status != model.StatusInvestigating || b.Impact != model.ImpactMinor || b.Title != "API latency" || len(b.Updates) != 1 {
		t.Errorf("second EC2 incident: %+v", b)
	}
	l := by["lambda-us-east-1_1787000100"]
	if len(l.Updates) != 2 || l.Updates[1].Body != "Mitigating." || l.Impact != model.ImpactMajor || l.ImpactRaw != "2" ||
		!slices.Equal(l.Components, []string{"apigateway-us-east-1", "lambda-us-east-1"}) {
		t.Errorf("lambda incident: %+v", l)
	}
	s3 := by["s3-eu-west-1_1787000300"]
	if s3.Title != "Elevated errors" || s3.Status != model.StatusInvestigating || s3.StatusRaw != "1" || s3.Impact != model.ImpactMinor ||
		len(s3.Updates) != 1 || s3.Updates[0].ID != "s3-eu-west-1_1787000300" || !s3.StartedAt.Equal(unixUTC(1787000300)) {
		t.Errorf("s3 incident from the event alone: %+v", s3)
	}
	if got := awsNotation(memo.state()["episodes/"+s].Episodes); got != "1786000000-1786000600,1787000000-1787000000+" {
		t.Errorf("memo of %s: %q", s, got)
	}

	// A resolution in currentevents (level 0) resolves, the latest post wins.
	ce2 := awsCEBody(t, awsEventJSON{Date: "1787000000", Service: s, Status: "0",
		EventLog: []awsLogJSON{{Summary: "API latency", Message: "Recovered.", Status: 0, Timestamp: 1787000900}}})
	incs, _, _ = awsBuildFrom(t, rss, ce2, nil, nil)
	if b := awsByID(incs)[s+"_1787000000"]; b.Status != model.StatusResolved || b.Impact != model.ImpactMinor || len(b.Updates) != 2 {
		t.Errorf("resolved by the event: %+v", b)
	}
}

// TestAWSRollOff polls through the archive while the feed rolls on: the incident whose
// first posts fall out of the feed keeps its id and its timeline, and nothing is taken
// for removed or new.
func TestAWSRollOff(t *testing.T) {
	const s = "directconnect-eu-central-1"
	other := func(n int) []awsItem { // filler posts of another service, newer
		var out []awsItem
		for i := range n {
			out = append(out, awsItem{"cloudfront", 1787100000 + int64(i)*60, "Informational message: CDN errors", fmt.Sprintf("Post %d.", i)})
		}
		return out
	}
	posts := []awsItem{
		{s, 1786765379, "Service impact: Increased Packet loss", "We are investigating."},
		{s, 1786768970, "Service impact: Increased Packet loss", "Water ingress."},
		{s, 1786773313, "Service impact: Increased Packet loss", "Restoring."},
	}
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	page.Set("/public/currentevents", fetchtest.Route{Body: awsCEBody(t)})
	page.Set("/rss/all.rss", fetchtest.Route{Body: awsRSSBody(posts...)})
	a := fetchtest.NewArchive(t, Kind, model.Source{Name: "aws", URL: srv.URL})
	if _, r, err := a.Poll(); err != nil || r.Changed != 1 {
		t.Fatalf("poll 1: %v %+v", err, r)
	}
	id := s + "_1786765379"

	// The first two posts roll out, a new one and other services' posts arrive.
	next := append([]awsItem{posts[2], {s, 1786780000, "Service impact: Increased Packet loss", "Most circuits back."}}, other(3)...)
	page.Set("/rss/all.rss", fetchtest.Route{Body: awsRSSBody(next...)})
	res, r, err := a.Poll()
	if err != nil || r.Removed != 0 {
		t.Fatalf("poll 2: %v %+v", err, r)
	}
	if ids := awsByID(res.Snapshot.Incidents); len(ids) != 2 {
		t.Fatalf("poll 2: incidents %v", ids)
	} else if _, ok := ids[id]; !ok {
		t.Fatalf("poll 2: the incident lost its id: %v", ids)
	}
	vs, err := a.Store.Versions("aws", id)
	if err != nil || len(vs) != 2 {
		t.Fatalf("versions: %d %v", len(vs), err)
	}
	if ch := vs[1].Changes; len(ch) != 1 || ch[0].Field != "updates["+s+"_1786780000]" || ch[0].Before != nil {
		t.Errorf("version 2 changes %+v, want only the new post added", ch)
	}
	if n := len(vs[1].Incident.Updates); n != 4 {
		t.Errorf("version 2 holds %d updates, want 4 (2 carried over)", n)
	}

	// It resolves; its start is long gone from the feed.
	next = append([]awsItem{{s, 1787025679, "Service is operating normally: [RESOLVED] Increased Packet loss", "Recovered."}}, other(6)...)
	page.Set("/rss/all.rss", fetchtest.Route{Body: awsRSSBody(next...)})
	if _, r, err := a.Poll(); err != nil || r.Removed != 0 {
		t.Fatalf("poll 3: %v %+v", err, r)
	}
	inc, err := a.Store.Latest("aws", id)
	if err != nil || inc == nil || inc.Status != model.StatusResolved || len(inc.Updates) != 5 || !inc.StartedAt.Equal(unixUTC(1786765379)) {
		t.Fatalf("poll 3: %v %+v", err, inc)
	}
	infos, _ := a.Store.Incidents("aws")
	if len(infos) != 2 {
		t.Errorf("archive holds %d incidents, want 2 (no duplicate of the rolled-off one)", len(infos))
	}
}
