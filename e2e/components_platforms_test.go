package e2e

// TestComponentLifeEveryPlatform is the smaller component life of every other platform
// that publishes component states: on a page with no incident, its one component "API"
// goes operational → degraded → major outage → operational in the platform's own
// words, polled by the daemon against a fake Slack as in TestComponentLifeEndToEnd: the
// exact calls (root, replies in its thread, root edits), the component API and its
// history, watcher_component_status at each step, and byte-identical unchanged polls.
// The pages are shaped as the incident pages of platforms_test.go, without incidents.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/statuswatch/statuswatch/internal/testbin"
)

// compPlatform is one platform's component page.
type compPlatform struct {
	kind   string
	noETag bool
	source func(u string) (string, map[string]string)
	// words are the platform's words for operational, degraded and major outage.
	words [3]string
	// raw is the status_raw of degraded when it is not words[1].
	raw string
	// page is what the server at u serves with API's status word.
	page func(u, word string) routes
}

var compPlatforms = []compPlatform{
	// summary.json as in testdata/incident.io (ULIDs, empty lists left out, no ETag),
	// Statuspage's component words.
	{kind: "incidentio", noETag: true, source: atRoot, words: [3]string{"operational", "degraded_performance", "major_outage"}, page: incidentioComponents},
	// v2/components.json as in testdata/instatus, upper-case words.
	{kind: "instatus", source: atRoot, words: [3]string{"OPERATIONAL", "DEGRADEDPERFORMANCE", "MAJOROUTAGE"}, page: instatusComponents},
	// index.json's status_page_resource statuses.
	{kind: "betterstack", source: atRoot, words: [3]string{"operational", "degraded", "downtime"}, page: betterstackComponents},
	// /api/v1/components' status codes.
	{kind: "cachet", source: atRoot, words: [3]string{"1", "2", "4"}, page: cachetComponents},
	// the status API's status codes; status_raw keeps its word ("Degraded Performance").
	{kind: "statusio", source: func(u string) (string, map[string]string) {
		return u + "/", map[string]string{"status": u + "/1.0/status/{id}"}
	}, words: [3]string{"100", "300", "500"}, raw: "Degraded Performance", page: statusioComponents},
}

func TestComponentLifeEveryPlatform(t *testing.T) {
	testbin.Build(t)
	for _, p := range compPlatforms {
		t.Run(p.kind, func(t *testing.T) {
			t.Parallel()
			componentLife(t, p)
		})
	}
}

func componentLife(t *testing.T, p compPlatform) {
	v := &vendor{etags: !p.noETag}
	var u string
	serve := func(i int) { v.set(p.page(u, p.words[i])) }
	w := newWorld(t, v, p.kind, func(base string) (string, map[string]string) {
		u = base
		serve(0)
		return p.source(base)
	}, "")
	if !p.noETag {
		w.full = v.takeFull
	}
	step := func(i int) {
		t.Helper()
		serve(i)
		w.poll()
	}
	w.wantComponents("", map[string]string{"API": "operational"})
	w.wantGauge("first set", map[string]string{"API": "0"})
	w.wantQuietPolls()

	step(1)
	c := w.calls(1)
	wantCall(t, "degraded", c[0], "chat.postMessage", "", "Acme: API degraded — no incident posted")
	root := c[0].TS
	atDegraded := now()
	w.wantGauge("degraded", map[string]string{"API": "2"})
	w.wantQuietPolls()

	step(2)
	wantReplyAndEdit(t, "major outage", w.calls(2), root, "Acme · API: degraded → major outage", "Acme: API in major outage — no incident posted")
	w.wantGauge("major outage", map[string]string{"API": "4"})
	w.wantQuietPolls()

	step(0)
	wantReplyAndEdit(t, "recovery", w.calls(2), root, "Acme · API operational again after &lt;1m", "Acme: all components operational again")
	w.wantGauge("recovered", map[string]string{"API": "0"})
	w.wantQuietPolls()

	got := w.wantComponents(atDegraded, map[string]string{"API": "degraded"})
	if raw := cmp.Or(p.raw, p.words[1]); len(got) == 1 && got[0].StatusRaw != raw {
		t.Errorf("?at= degraded: status_raw %q, want %q", got[0].StatusRaw, raw)
	}
	w.wantHistory("API operational→degraded", "API degraded→major_outage", "API major_outage→operational")
}

func incidentioComponents(u, word string) routes {
	const pageID = "01JMDK9XYNY6RXSED6SDWW50WY"
	page := map[string]any{"id": pageID, "name": "Acme AI", "url": u + "/", "updated_at": rfc(0)}
	summary := map[string]any{"page": page,
		"status":     map[string]any{"description": "All Systems Operational", "indicator": "none"},
		"components": []any{map[string]any{"id": "01JMXBRMFE4MAP2BHSJNZ787WX", "name": "API", "status": word, "page_id": pageID}}}
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
    <id>%[1]s/</id>
    <title>Acme AI status</title>
    <updated>%[2]s</updated>
    <generator>incident.io</generator>
    <link rel="alternate" href="%[1]s/"/>
    <subtitle>Acme AI status page updates</subtitle>
</feed>
`, u, rfc(0))
	return routes{
		"/api/v2/incidents.json":              jsonResp(map[string]any{"page": page, "incidents": []any{}}),
		"/api/v2/scheduled-maintenances.json": jsonResp(map[string]any{"page": page}),
		"/api/v2/summary.json":                jsonResp(summary),
		"/feed.atom":                          textResp("application/atom+xml", feed),
	}
}

func instatusComponents(u, word string) routes {
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>%[1]s/history.atom</id>
  <title>Acme status history</title>
  <link href="%[1]s"/>
  <updated>%[2]s</updated>
</feed>
`, u, rfc(0))
	return routes{
		"/summary.json":       jsonResp(map[string]any{"page": map[string]any{"name": "Acme", "url": u, "status": "UP"}}),
		"/history.atom":       textResp("application/atom+xml", feed),
		"/v2/components.json": jsonResp(map[string]any{"components": []any{map[string]any{"id": "cmrxt1rlu000a0zlcapi00001", "name": "API", "status": word}}}),
	}
}

func betterstackComponents(u, word string) routes {
	const resourceID = "8810148"
	doc := map[string]any{
		"data": map[string]any{"id": "124692", "type": "status_page",
			"attributes": map[string]any{"company_name": "Acme", "company_url": "https://acme.test/", "subdomain": "acme",
				"timezone": "UTC", "aggregate_state": word},
			"relationships": map[string]any{
				"sections":       map[string]any{"data": []any{map[string]any{"id": "3589", "type": "status_page_section"}}},
				"resources":      map[string]any{"data": []any{map[string]any{"id": resourceID, "type": "status_page_resource"}}},
				"status_reports": map[string]any{"data": []any{}}}},
		"included": []any{
			map[string]any{"id": "3589", "type": "status_page_section", "attributes": map[string]any{"name": "Current status by service", "position": 0}},
			map[string]any{"id": resourceID, "type": "status_page_resource", "attributes": map[string]any{
				"status_page_section_id": 3589, "resource_id": 319187, "resource_type": "Monitor", "public_name": "API",
				"explanation": "api.acme.test", "position": 0, "availability": 0.998979, "status": word,
				"status_history": []any{map[string]any{"day": "2026-11-02", "status": word, "downtime_duration": 0, "maintenance_duration": 0}}}},
		},
	}
	return routes{"/index.json": jsonResp(doc)}
}

func cachetComponents(u, word string) routes {
	pagination := func(perPage int) map[string]any {
		return map[string]any{"pagination": map[string]any{"total": 1, "count": 1, "per_page": perPage, "current_page": 1, "total_pages": 1,
			"links": map[string]any{"next_page": nil, "previous_page": nil}}}
	}
	names := map[string]string{"1": "Operational", "2": "Performance Issues", "3": "Partial Outage", "4": "Major Outage"}
	comps := map[string]any{"meta": pagination(1000), "data": []any{map[string]any{"id": 3, "name": "API", "description": "The public REST API",
		"link": "", "status": json.Number(word), "order": 0, "group_id": 0, "created_at": "2025-01-01 00:00:00", "updated_at": "2025-01-01 00:00:00",
		"deleted_at": nil, "enabled": true, "status_name": names[word], "tags": []any{}}}}
	return routes{
		"/api/v1/incidents":  jsonResp(map[string]any{"meta": pagination(50), "data": []any{}}),
		"/api/v1/components": jsonResp(comps),
	}
}

func statusioComponents(u, word string) routes {
	const pageID = "5b36dc6502d06804c08349f7"
	names := map[string]string{"100": "Operational", "300": "Degraded Performance", "400": "Partial Service Disruption", "500": "Service Disruption"}
	api := map[string]any{"result": map[string]any{
		"status_overall": map[string]any{"updated": rfc(0), "status": names[word], "status_code": json.Number(word)},
		"status": []any{map[string]any{"id": "5b36dc6502d06804c08349f8", "name": "API", "updated": rfc(0),
			"status": names[word], "status_code": json.Number(word), "containers": []any{}}},
		"incidents":   []any{},
		"maintenance": map[string]any{"active": []any{}, "upcoming": []any{}},
	}}
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>Acme System Status</title>
    <link>%s</link>
    <description>Incident history of Acme System Status</description>
  </channel>
</rss>
`, u)
	return routes{
		"/":                         statusioPage(u, 0)["/"], // the page, read once for its id
		"/1.0/status/" + pageID:     jsonResp(api),
		"/pages/" + pageID + "/rss": textResp("application/rss+xml", feed),
	}
}
