package azure

// Azure adapter tests. testdata/azure holds the real payloads copied byte for byte from
// the real captures of testdata/azure (provenance in testdata/SOURCES.md): the status RSS during the West US
// incident of 2026-07-23 (one item) and the healthy feed (a channel with no item). Other
// feeds are built here in the same shape.

import (
	"context"
	"errors"
	"fmt"
	"html"
	"maps"
	"net/http"
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
	azureActive  = "status-feed-active-2026-07-23.xml"
	azureHealthy = "status-feed-healthy-empty.xml"
	azurePath    = "/en-us/status/feed/"
)

// azureFeedBody builds a status feed in the shape of the real one; items are (guid,
// title, pubDate, description HTML, categories…).
func azureFeedBody(items ...[]string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<rss xmlns:a10="http://www.w3.org/2005/Atom" version="2.0">
  <channel>
    <title>Azure Status</title>
    <link>https://azurestatusprodwus.azurewebsites.net/en-us/status/</link>
    <description>Azure Status</description>
`)
	for _, it := range items {
		fmt.Fprintf(&b, "    <item>\n      <guid isPermaLink=\"false\">%s</guid>\n      <link>https://azurestatusprodwus.azurewebsites.net/en-us/status/</link>\n", it[0])
		for _, c := range it[4:] {
			fmt.Fprintf(&b, "      <category>%s</category>\n", c)
		}
		fmt.Fprintf(&b, "      <title>%s</title>\n      <description>%s</description>\n      <pubDate>%s</pubDate>\n    </item>\n",
			html.EscapeString(it[1]), html.EscapeString(it[3]), it[2])
	}
	b.WriteString("  </channel>\n</rss>")
	return []byte(b.String())
}

func azureSource(u string) model.Source {
	return model.Source{Name: "azure", URL: u + "/en-us/status", Kind: Kind}
}

func TestAzureRealPayloads(t *testing.T) {
	f, err := decodeAzure(fetchtest.Testdata(t, "azure", azureActive))
	if err != nil {
		t.Fatal(err)
	}
	incs := normaliseAzure(f.items, "https://azure.status.microsoft/en-us/status", nil)
	if f.title != "Azure Status" || len(incs) != 1 {
		t.Fatalf("title %q, %d incidents", f.title, len(incs))
	}
	inc := incs[0]
	if inc.ID != "issues-connecting-to-resources-in-west-us" || inc.Title != "Issues connecting to resources in West US" ||
		inc.Kind != model.KindIncident || inc.Status != model.StatusInvestigating || inc.StatusRaw != "" ||
		inc.Impact != model.ImpactUnknown || inc.ImpactRaw != "" || inc.URL != "https://azure.status.microsoft/en-us/status" {
		t.Errorf("incident %+v", inc)
	}
	if inc.StartedAt.Format(time.RFC3339) != "2026-07-23T16:29:09Z" || inc.StartedAt.Location() != time.UTC || !inc.ResolvedAt.IsZero() {
		t.Errorf("times %v %v", inc.StartedAt, inc.ResolvedAt)
	}
	wantComponents := []string{"API Management", "App Service", "Azure Active Directory B2C", "Azure Cognitive Search",
		"Azure Databricks", "Azure Firewall", "Azure Kubernetes Service (AKS)", "Azure VMware Solutions",
		"ExpressRoute Circuits", "ExpressRoute Gateways", "Network Infrastructure", "Power BI Embedded",
		"Speech Services", "Virtual WAN", "West US"}
	if !slices.Equal(inc.Components, wantComponents) {
		t.Errorf("components %q", inc.Components)
	}
	if len(inc.Updates) != 1 {
		t.Fatalf("%d updates", len(inc.Updates))
	}
	u := inc.Updates[0]
	if u.ID != fetch.UpdateKey(inc.ID, "2026-07-23T16:29:09Z", 0) || u.Status != model.StatusInvestigating || u.Format != model.FormatHTML ||
		!u.PostedAt.Equal(inc.StartedAt) {
		t.Errorf("update %s %s %s %v", u.ID, u.Status, u.Format, u.PostedAt)
	}
	// Clean text, paragraphs kept, the link's text in place.
	if !strings.HasPrefix(u.Body, "Starting at approximately 14:44 UTC on 23 July 2026, customers may have experienced intermittent connectivity failures") ||
		!strings.Contains(u.Body, "Microsoft cloud (https://status.cloud.microsoft/) services") ||
		!strings.Contains(u.Body, "VPN Gateway\n\nCurrent Status:\n\nWe may have identified the likely cause") ||
		strings.Contains(u.Body, "<") || strings.Contains(u.Body, "&nbsp;") {
		t.Errorf("body %q", u.Body)
	}
	// Sanitised HTML: structure and a safe link, target and rel set by the policy.
	if !strings.HasPrefix(u.HTML, "<p>Starting at approximately") ||
		!strings.Contains(u.HTML, `<a href="https://status.cloud.microsoft/" rel="nofollow noreferrer noopener" target="_blank">`) {
		t.Errorf("html %q", u.HTML)
	}
	fetchtest.CheckIncident(t, inc)

	// The healthy feed: a channel without items, zero incidents, no error.
	f, err = decodeAzure(fetchtest.Testdata(t, "azure", azureHealthy))
	if err != nil {
		t.Fatalf("healthy feed: %v", err)
	}
	if incs := normaliseAzure(f.items, "", nil); len(incs) != 0 || f.title != "Azure Status" {
		t.Errorf("healthy feed: %d incidents, title %q", len(incs), f.title)
	}
}

func TestAzurePoll(t *testing.T) {
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	page.Set(azurePath, fetchtest.Route{Body: fetchtest.Testdata(t, "azure", azureActive), ContentType: "application/rss+xml", ETag: `"a1"`})
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	src := azureSource(srv.URL)

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Requests(); len(got) != 1 || got[0].Path != azurePath || got[0].IfNoneMatch != "" {
		t.Fatalf("poll 1 requests %+v", got)
	}
	s := r1.Snapshot
	if s == nil || !s.OpenOnly || len(s.Incidents) != 1 || s.PageTitle != "Azure Status" || !s.FetchedAt.Equal(fetchtest.PollNow) ||
		len(s.Listings) != 1 || s.Listings[0] != (model.Listing{Kind: model.KindIncident}) {
		t.Fatalf("poll 1 snapshot %+v", s)
	}
	if r1.Requests != 1 || len(r1.Bodies) != 1 || r1.Bodies[0].Endpoint != fetch.EndpointFeed || r1.Bodies[0].Data == nil {
		t.Errorf("poll 1: %d requests, bodies %+v", r1.Requests, r1.Bodies)
	}

	// Second poll: 304, nothing parsed.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Requests(); len(got) != 1 || got[0].IfNoneMatch != `"a1"` {
		t.Fatalf("poll 2 requests %+v", got)
	}
	if r2.Snapshot != nil || r2.Requests != 1 || r2.StateChanged(r1.State) {
		t.Errorf("poll 2: %+v", r2)
	}
	// Third: identical bytes without validators: hashed, not parsed.
	page.Set(azurePath, fetchtest.Route{Body: fetchtest.Testdata(t, "azure", azureActive)})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil || r3.Snapshot != nil || r3.Requests != 1 || len(page.Requests()) != 1 {
		t.Errorf("poll 3: %v %+v", err, r3)
	}

	// Healthy again: the empty channel is a well-formed snapshot with no incident.
	page.Set(azurePath, fetchtest.Route{Body: fetchtest.Testdata(t, "azure", azureHealthy)})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatalf("healthy feed: %v", err)
	}
	if s := r4.Snapshot; s == nil || !s.OpenOnly || s.Incidents == nil || len(s.Incidents) != 0 || len(s.Listings) != 1 {
		t.Errorf("healthy snapshot %+v", s)
	}
	if got := page.Paths(); !slices.Equal(got, []string{azurePath}) {
		t.Errorf("poll 4 requested %v", got)
	}

	// The endpoint can be overridden.
	page.Set("/proxy/azure.rss", fetchtest.Route{Body: fetchtest.Testdata(t, "azure", azureHealthy)})
	src.Endpoints = map[string]string{fetch.EndpointFeed: srv.URL + "/proxy/azure.rss"}
	if _, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow}); err != nil {
		t.Fatal(err)
	}
	if got := page.Paths(); !slices.Equal(got, []string{"/proxy/azure.rss"}) {
		t.Errorf("override requested %v", got)
	}
}

// TestAzureThroughArchive: the feed is open only. An incident that two well-formed polls
// in a row no longer list is resolved by the archive (the healthy, empty channel is such
// a poll), and Azure's rewrites of an item become a timeline.
func TestAzureThroughArchive(t *testing.T) {
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	a := fetchtest.NewArchive(t, Kind, azureSource(srv.URL))
	const id = "storage-west-europe"
	v1 := azureFeedBody([]string{id, "Storage degradation in West Europe", "Thu, 23 Jul 2026 10:00:00 Z", "<p>We are investigating.</p>", "Storage", "West Europe"})
	page.Set(azurePath, fetchtest.Route{Body: v1})
	if _, r, err := a.Poll(); err != nil || r.Changed != 1 {
		t.Fatalf("poll 1: %v %+v", err, r)
	}
	// Azure rewrites the description under a new pubDate: a new update, the first kept.
	v2 := azureFeedBody([]string{id, "Storage degradation in West Europe", "Thu, 23 Jul 2026 10:40:00 Z", "<p>Mitigation is rolling out.</p>", "Storage", "West Europe"})
	page.Set(azurePath, fetchtest.Route{Body: v2})
	if _, r, err := a.Poll(); err != nil || r.Changed != 1 {
		t.Fatalf("poll 2: %v %+v", err, r)
	}
	inc, _ := a.Store.Latest("azure", id)
	if inc == nil || len(inc.Updates) != 2 || inc.Updates[0].Body != "We are investigating." || inc.Updates[1].Body != "Mitigation is rolling out." ||
		inc.StartedAt.Format(time.RFC3339) != "2026-07-23T10:00:00Z" || inc.Impact != model.ImpactMinor || inc.ImpactRaw != "degradation" {
		t.Fatalf("after the rewrite: %+v", inc)
	}
	vs, _ := a.Store.Versions("azure", id)
	if ch := vs[1].Changes; len(ch) != 1 || !strings.HasPrefix(ch[0].Field, "updates[") || ch[0].Before != nil {
		t.Errorf("version 2 changes %+v, want one update added", ch)
	}
	// Edited under the same pubDate: an edit of that update.
	v3 := azureFeedBody([]string{id, "Storage degradation in West Europe", "Thu, 23 Jul 2026 10:40:00 Z", "<p>Mitigation is rolling out to all clusters.</p>", "Storage", "West Europe"})
	page.Set(azurePath, fetchtest.Route{Body: v3})
	if _, _, err := a.Poll(); err != nil {
		t.Fatal(err)
	}
	vs, _ = a.Store.Versions("azure", id)
	if ch := vs[2].Changes; len(ch) != 1 || ch[0].Field != "updates["+inc.Updates[1].ID+"].body" {
		t.Errorf("version 3 changes %+v, want the second update's body edited", ch)
	}

	// Healthy: two polls in a row without it resolve it (inferred).
	page.Set(azurePath, fetchtest.Route{Body: fetchtest.Testdata(t, "azure", azureHealthy)})
	if _, r, err := a.Poll(); err != nil || r.Resolved != 0 {
		t.Fatalf("first healthy poll: %v %+v", err, r)
	}
	page.Set(azurePath, fetchtest.Route{Body: append(fetchtest.Testdata(t, "azure", azureHealthy), '\n')}) // new bytes, same meaning
	if _, r, err := a.Poll(); err != nil || r.Resolved != 1 {
		t.Fatalf("second healthy poll: %v %+v", err, r)
	}
	inc, _ = a.Store.Latest("azure", id)
	if inc.Status != model.StatusResolved || !inc.ResolvedInferred || inc.ResolvedAt.IsZero() {
		t.Errorf("after two healthy polls: %+v", inc)
	}
}

func TestAzureMalformed(t *testing.T) {
	active := fetchtest.Testdata(t, "azure", azureActive)
	healthy := fetchtest.Testdata(t, "azure", azureHealthy)
	cases := map[string][]byte{
		"empty":            {},
		"blank":            []byte("\n  \n"),
		"html page":        []byte("<!DOCTYPE html>\n<html><head><title>Azure status</title></head><body>Azure status</body></html>"),
		"html no doctype":  []byte("<html><body>Service Unavailable</body></html>"),
		"xhtml":            []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>`),
		"json":             []byte(`{"version":"https://jsonfeed.org/version/1.1","title":"x","items":[]}`),
		"no channel":       []byte(`<?xml version="1.0"?><rss version="2.0"></rss>`),
		"item without ids": azureFeedBody([]string{"", "x", "Thu, 23 Jul 2026 10:00:00 Z", "y"}),
	}
	// Truncated anywhere past the XML declaration, both real files are errors.
	for _, body := range [][]byte{active, healthy} {
		for n := 40; n < len(body)-1; n += 37 {
			cases[fmt.Sprintf("truncated %d/%d", n, len(body))] = body[:n]
		}
		cases[fmt.Sprintf("truncated end %d", len(body))] = body[:len(body)-len("</rss>")]
	}
	// The no-id case needs a link-less item.
	cases["item without ids"] = []byte(strings.Replace(string(cases["item without ids"]),
		"<link>https://azurestatusprodwus.azurewebsites.net/en-us/status/</link>\n      <title>", "<title>", 1))
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeAzure(cases[name]); !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
		})
	}
	// Through a poll: an error, no snapshot.
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	page.Set(azurePath, fetchtest.Route{Body: cases["html page"], ContentType: "text/html"})
	p, _ := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	r, err := p.Poll(context.Background(), fetch.Request{Source: azureSource(srv.URL), Now: fetchtest.PollNow})
	if !errors.Is(err, payload.ErrMalformed) || r == nil || r.Snapshot != nil || r.Requests != 1 {
		t.Errorf("html poll: %v %+v", err, r)
	}
	page.Set(azurePath, fetchtest.Route{Status: http.StatusBadGateway, Body: []byte("bad gateway")})
	if _, err := p.Poll(context.Background(), fetch.Request{Source: azureSource(srv.URL), Now: fetchtest.PollNow}); err == nil {
		t.Error("502: no error")
	}
	// A guid-less item falls back to its link.
	body := azureFeedBody([]string{"", "Thing", "Thu, 23 Jul 2026 10:00:00 Z", "<p>x</p>"})
	f, err := decodeAzure(body)
	if err != nil || len(f.items) != 1 || f.items[0].id != "https://azurestatusprodwus.azurewebsites.net/en-us/status/" {
		t.Errorf("link fallback: %v %+v", err, f)
	}
}

func TestAzureImpact(t *testing.T) {
	for _, tc := range []struct {
		title string
		want  model.Impact
		raw   string
	}{
		{"Issues connecting to resources in West US", model.ImpactUnknown, ""},
		{"Outage: Azure Front Door", model.ImpactMajor, "outage"},
		{"Azure Front Door - Partial outage", model.ImpactMajor, "outage"},
		{"Storage degradation in West Europe", model.ImpactMinor, "degradation"},
		{"Degraded performance for Azure SQL", model.ImpactMinor, "degradation"},
	} {
		if got, raw := azureImpact(tc.title); got != tc.want || raw != tc.raw {
			t.Errorf("%q: got %q %q, want %q %q", tc.title, got, raw, tc.want, tc.raw)
		}
	}
}

// FuzzAzure feeds arbitrary bytes to the Azure decoder, seeded with the real payloads:
// errors only, never a panic; accepted feeds normalise to sane incidents.
func FuzzAzure(f *testing.F) {
	f.Add(fetchtest.Testdata(f, "azure", azureActive))
	f.Add(fetchtest.Testdata(f, "azure", azureHealthy))
	f.Add(azureFeedBody([]string{"a", "b", "not a date", "<script>x</script><p onclick=y>z", "c", "c"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		feed, err := decodeAzure(data)
		if err != nil {
			if !errors.Is(err, payload.ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		for _, inc := range normaliseAzure(feed.items, "https://p", nil) {
			fetchtest.CheckIncident(t, inc)
			for _, u := range inc.Updates {
				if live := fetchtest.LiveHTML(u.HTML); live != "" {
					t.Fatalf("unsafe html %q: %s", u.HTML, live)
				}
			}
		}
	})
}

// TestAzureContract: the contract every platform keeps.
func TestAzureContract(t *testing.T) {
	fetchtest.Contract{
		Kind:   Kind,
		Source: azureSource,
		Routes: map[string]fetchtest.Route{azurePath: {Body: fetchtest.Testdata(t, "azure", azureActive), ContentType: "application/rss+xml"}},
		Main:   azurePath,
	}.Run(t)
}
