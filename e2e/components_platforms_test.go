package e2e

// TestComponentLifeEveryPlatform is the smaller component life of every other platform
// that publishes component states: on a page with no incident, its one component "API"
// goes operational → degraded → major outage → operational in the platform's own
// words, polled by the daemon against a fake Slack as in TestComponentLifeEndToEnd: the
// exact calls (root, replies in its thread, root edits), the component API and its
// history, watcher_component_status at each step, and byte-identical unchanged polls.
// The pages are shaped as the incident pages of platforms_test.go, without incidents.
// TestComponentIncidentEveryPlatform and TestComponentMaintenanceEveryPlatform below
// give the same platforms TestComponentLifeEndToEnd's other two cases: an open incident,
// and a maintenance in progress, naming the component.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/testbin"
)

// compPlatform is one platform's component page.
type compPlatform struct {
	kind   string
	noETag bool
	source func(u string) (string, map[string]string)
	// words are the platform's words for operational, degraded, major outage and under
	// maintenance (opWord…maintWord); the last is "" on a platform whose components
	// have no maintenance state.
	words [4]string
	// raw is the status_raw of degraded when it is not words[1].
	raw string
	// page is what the server serves with API's status word and, open, an item of the
	// platform open beside it.
	page func(pg compPage) routes
	// unnamed says why the platform's incidents name no components, "" when they do: a
	// change of API while its incident is open then opens the component thread.
	unnamed string
	// noMaintenance says why the platform has no maintenance naming a component, "" when
	// it has.
	noMaintenance string
	// recheck: the poll after the set of open items changed reads and parses every
	// endpoint again, once (an open-only page's resolution by absence needs it), and
	// archives that it did: it is not an unchanged poll.
	recheck bool
}

// compPage is what a page of compPlatforms serves.
type compPage struct {
	u    string
	word string // API's status word
	open openItem
	at   time.Time // when the open item started (its maintenance window holds the test)
}

// openItem is what a compPage has open beside its components.
type openItem int

const (
	openNothing openItem = iota
	openIncident
	openMaintenance
)

// The open item's title and its one update.
const (
	compIncTitle = "Elevated API errors"
	compIncBody  = "We are looking into API errors."
	compMntTitle = "API database upgrade"
	compMntBody  = "The upgrade is under way."
)

var compPlatforms = []compPlatform{
	// summary.json as in testdata/incident.io (ULIDs, empty lists left out, no ETag),
	// Statuspage's component words. An incident names its components in feed.atom's
	// entry ("Affected components"); a maintenance in /proxy/<host>, read on a page
	// without a feed.
	{kind: "incidentio", noETag: true, source: atRoot, words: spWords, page: incidentioComponents},
	// v2/components.json as in testdata/instatus, upper-case words. summary.json's open
	// items carry no components, and neither does history.atom as testdata/instatus has
	// it: an Instatus incident names none.
	{kind: "instatus", source: atRoot, words: [4]string{"OPERATIONAL", "DEGRADEDPERFORMANCE", "MAJOROUTAGE", "UNDERMAINTENANCE"}, page: instatusComponents,
		unnamed:       "summary.json's activeIncidents and history.atom's entries name no components",
		noMaintenance: "summary.json's activeMaintenances and history.atom's entries name no components", recheck: true},
	// index.json's status_page_resource statuses; a status report names its resources
	// (affected_resources), a maintenance too (report_type maintenance).
	{kind: "betterstack", source: atRoot, words: [4]string{"operational", "degraded", "downtime", "maintenance"}, page: betterstackComponents},
	// /api/v1/components' status codes, which have none for maintenance; an incident
	// names its component_id, a maintenance too (status 0, scheduled_at: Cachet ≤ 2.3).
	{kind: "cachet", source: atRoot, words: [4]string{"1", "2", "4", ""}, page: cachetComponents},
	// the status API's status codes; status_raw keeps its word ("Degraded Performance").
	// Incidents and active maintenance name components_affected.
	{kind: "statusio", source: func(u string) (string, map[string]string) {
		return u + "/", map[string]string{"status": u + "/1.0/status/{id}"}
	}, words: [4]string{"100", "300", "500", "200"}, raw: "Degraded Performance", page: statusioComponents},
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

// platformWorld starts the daemon on p's page with nothing open beside API and has it
// poll once; w.api steps API through p's words, serving what the returned page says
// (set its open item before a step).
func platformWorld(t *testing.T, p compPlatform) (*compWorld, *compPage) {
	t.Helper()
	v := &vendor{etags: !p.noETag}
	pg := &compPage{word: p.words[opWord], at: time.Now().UTC().Add(-time.Minute).Truncate(time.Second)}
	w := newWorld(t, v, p.kind, func(base string) (string, map[string]string) {
		pg.u = base
		v.set(p.page(*pg))
		return p.source(base)
	}, "")
	if !p.noETag {
		w.full = v.takeFull
	}
	w.api = func(i int) {
		t.Helper()
		pg.word = p.words[i]
		v.set(p.page(*pg))
		w.poll()
	}
	return w, pg
}

func componentLife(t *testing.T, p compPlatform) {
	w, _ := platformWorld(t, p)
	w.wantComponents("", map[string]string{"API": "operational"})
	w.wantGauge("first set", map[string]string{"API": "0"})
	w.wantQuietPolls()

	w.api(degradedWord)
	c := w.calls(1)
	wantCall(t, "degraded", c[0], "chat.postMessage", "", "Acme: API degraded — no incident posted")
	root := c[0].TS
	atDegraded := now()
	w.wantGauge("degraded", map[string]string{"API": "2"})
	w.wantQuietPolls()

	w.api(majorWord)
	wantReplyAndEdit(t, "major outage", w.calls(2), root, "Acme · API: degraded → major outage", "Acme: API in major outage — no incident posted")
	w.wantGauge("major outage", map[string]string{"API": "4"})
	w.wantQuietPolls()

	w.api(opWord)
	wantReplyAndEdit(t, "recovery", w.calls(2), root, "Acme · API operational again after &lt;1m", "Acme: all components operational again")
	w.wantGauge("recovered", map[string]string{"API": "0"})
	w.wantQuietPolls()

	got := w.wantComponents(atDegraded, map[string]string{"API": "degraded"})
	if raw := cmp.Or(p.raw, p.words[degradedWord]); len(got) == 1 && got[0].StatusRaw != raw {
		t.Errorf("?at= degraded: status_raw %q, want %q", got[0].StatusRaw, raw)
	}
	w.wantHistory("API operational→degraded", "API degraded→major_outage", "API major_outage→operational")
}

// TestComponentIncidentEveryPlatform is TestComponentLifeEndToEnd's "open incident
// naming the component" on every other platform: the page opens an incident naming API
// in the poll that degrades API; the incident's root is posted and the degradation, the
// major outage and the recovery reply in its thread, with no component root. On a
// platform whose incidents name no components (unnamed) the degradation opens the
// component thread instead, "— no incident posted" although an incident is open: the
// archive cannot know the incident is about API.
func TestComponentIncidentEveryPlatform(t *testing.T) {
	testbin.Build(t)
	for _, p := range compPlatforms {
		t.Run(p.kind, func(t *testing.T) {
			t.Parallel()
			w, pg := platformWorld(t, p)
			pg.open = openIncident // in the poll that degrades API
			w.api(degradedWord)
			c := w.calls(2)
			if len(c) != 2 {
				return
			}
			if c[0].Method != "chat.postMessage" || c[0].ThreadTS != "" || !strings.Contains(c[0].Text, compIncTitle) {
				t.Errorf("incident root: got %s thread=%q %q", c[0].Method, c[0].ThreadTS, c[0].Text)
			}
			root := c[0].TS
			if p.recheck {
				w.poll()
			}
			if p.unnamed != "" {
				wantCall(t, "degraded, the incident naming no component", c[1], "chat.postMessage", "", "Acme: API degraded — no incident posted")
				compRoot := c[1].TS
				w.wantQuietPolls()
				w.api(majorWord)
				wantReplyAndEdit(t, "major outage", w.calls(2), compRoot, "Acme · API: degraded → major outage", "Acme: API in major outage — no incident posted")
				w.wantQuietPolls()
				w.api(opWord)
				wantReplyAndEdit(t, "recovery", w.calls(2), compRoot, "Acme · API operational again after &lt;1m", "Acme: all components operational again")
				w.wantGauge("recovered", map[string]string{"API": "0"})
				w.wantQuietPolls()
			} else {
				wantCall(t, "degraded in the incident's thread", c[1], "chat.postMessage", root, "Acme · API: operational → degraded")
				w.wantGauge("degraded", map[string]string{"API": "2"})
				w.wantQuietPolls()
				w.worsenAndRecover("the incident's thread", root, "")
			}
			w.wantHistory("API operational→degraded", "API degraded→major_outage", "API major_outage→operational")
		})
	}
}

// TestComponentMaintenanceEveryPlatform is TestComponentLifeEndToEnd's "maintenance
// window naming the component" on every other platform that publishes maintenance
// naming components (Instatus does not: its noMaintenance): the maintenance's root is
// posted; API's flip to maintenance and back inside it sends nothing (not on Cachet,
// whose component codes have no maintenance); API's life from operational after that
// replies in the maintenance's thread.
func TestComponentMaintenanceEveryPlatform(t *testing.T) {
	testbin.Build(t)
	for _, p := range compPlatforms {
		if p.noMaintenance != "" {
			continue
		}
		t.Run(p.kind, func(t *testing.T) {
			t.Parallel()
			w, pg := platformWorld(t, p)
			pg.open = openMaintenance
			w.api(opWord)
			c := w.calls(1) // the maintenance's own root
			if len(c) != 1 {
				return
			}
			root := c[0].TS
			if c[0].ThreadTS != "" || !strings.Contains(c[0].Text, compMntTitle) {
				t.Errorf("maintenance root: got thread=%q %q", c[0].ThreadTS, c[0].Text)
			}
			var history []string
			if p.words[maintWord] != "" {
				w.api(maintWord)
				w.wantGauge("maintenance", map[string]string{"API": "1"})
				w.wantQuietPolls()
				w.api(opWord)
				w.wantGauge("back", map[string]string{"API": "0"})
				w.wantQuietPolls()
				history = append(history, "API operational→maintenance", "API maintenance→operational")
			}
			// Worse than maintenance inside the window is told, in the maintenance's thread.
			w.api(degradedWord)
			c = w.calls(1)
			wantCall(t, "degraded in the maintenance's thread", c[0], "chat.postMessage", root, "Acme · API: operational → degraded")
			w.wantQuietPolls()
			w.worsenAndRecover("the maintenance's thread", root, "")
			w.wantHistory(append(history, "API operational→degraded", "API degraded→major_outage", "API major_outage→operational")...)
		})
	}
}

// incidentioComponents: an incident is in incidents.json and summary.json, its
// components in feed.atom's entry; a maintenance in scheduled-maintenances.json, its
// components in /proxy/<host> (the page then has no feed).
func incidentioComponents(pg compPage) routes {
	const pageID, compID = "01JMDK9XYNY6RXSED6SDWW50WY", "01JMXBRMFE4MAP2BHSJNZ787WX"
	const incID, mntID = "01KY54SWGRK806N6TJ495MYPDD", "01KY9M4N7TQ0AYH5B1CDEFGHJK"
	u, at := pg.u, pg.at.Format(time.RFC3339)
	page := map[string]any{"id": pageID, "name": "Acme AI", "url": u + "/", "updated_at": rfc(0)}
	summary := map[string]any{"page": page,
		"status":     map[string]any{"description": "All Systems Operational", "indicator": "none"},
		"components": []any{map[string]any{"id": compID, "name": "API", "status": pg.word, "page_id": pageID}}}
	item := func(id, title, status, impact, body string) map[string]any {
		return map[string]any{"id": id, "name": title, "status": status, "created_at": at, "updated_at": at, "started_at": at,
			"impact": impact, "page_id": pageID, "incident_updates": []any{map[string]any{
				"id": id[:20] + "UPDATE", "body": body, "created_at": at, "display_at": at, "incident_id": id, "status": status, "updated_at": at}}}
	}
	incidents, maintenances := []any{}, map[string]any{"page": page}
	var entry string
	r := routes{}
	switch pg.open {
	case openIncident:
		inc := item(incID, compIncTitle, "investigating", "minor", compIncBody)
		incidents = []any{inc}
		summary["incidents"] = incidents
		entry = fmt.Sprintf(`    <entry>
        <title type="html"><![CDATA[%[2]s]]></title>
        <id>%[1]s//incidents/%[3]s</id>
        <link href="%[1]s//incidents/%[3]s"/>
        <updated>%[4]s</updated>
        <content type="html"><![CDATA[<b>Status: Investigating</b><br/><br/>%[5]s<br/><br/><b>Affected components</b>
          <ul>
          <li>API (Degraded performance)</li>
          </ul>]]></content>
    </entry>
`, u, compIncTitle, incID, at, compIncBody)
	case openMaintenance:
		m := item(mntID, compMntTitle, "in_progress", "maintenance", compMntBody)
		m["scheduled_for"], m["scheduled_until"] = at, pg.at.Add(2*time.Hour).Format(time.RFC3339)
		maintenances["scheduled_maintenances"] = []any{m}
		host, err := url.Parse(u)
		if err != nil {
			panic(err)
		}
		comp := map[string]any{"component_id": compID, "status": "under_maintenance"}
		r["/proxy/"+host.Hostname()] = jsonResp(map[string]any{"summary": map[string]any{
			"id": pageID, "name": "Acme AI", "public_url": u,
			"components":               []any{map[string]any{"id": compID, "name": "API", "status_page_id": pageID}},
			"structure":                map[string]any{"items": []any{map[string]any{"component": map[string]any{"component_id": compID, "name": "API"}}}},
			"ongoing_incidents":        []any{},
			"scheduled_maintenances":   []any{},
			"in_progress_maintenances": []any{map[string]any{"id": mntID, "name": compMntTitle, "component_impacts": []any{comp}, "affected_components": []any{comp}}},
		}})
	}
	if pg.open != openMaintenance {
		r["/feed.atom"] = textResp("application/atom+xml", fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
    <id>%[1]s/</id>
    <title>Acme AI status</title>
    <updated>%[2]s</updated>
    <generator>incident.io</generator>
    <link rel="alternate" href="%[1]s/"/>
    <subtitle>Acme AI status page updates</subtitle>
%[3]s</feed>
`, u, rfc(0), entry))
	}
	r["/api/v2/incidents.json"] = jsonResp(map[string]any{"page": page, "incidents": incidents})
	r["/api/v2/scheduled-maintenances.json"] = jsonResp(maintenances)
	r["/api/v2/summary.json"] = jsonResp(summary)
	return r
}

// instatusComponents: an open item is in summary.json and history.atom, neither naming
// components.
func instatusComponents(pg compPage) routes {
	const incID, mntID = "cmrxt1rlu000f0zlcv4dzmdlr", "cmrw8mnt0000b0zlc5kq2e9zz"
	u := pg.u
	at := pg.at.Format("2006-01-02T15:04:05.000Z")
	summary := map[string]any{"page": map[string]any{"name": "Acme", "url": u, "status": "UP"}}
	var entry string
	if pg.open == openIncident {
		summary["page"].(map[string]any)["status"] = "HASISSUES"
		summary["activeIncidents"] = []any{map[string]any{"id": incID, "name": compIncTitle, "started": at, "status": "INVESTIGATING",
			"impact": "MAJOROUTAGE", "url": u + "/" + incID, "updatedAt": at}}
		content := fmt.Sprintf("<p><small>%s UTC</small><br><strong>Investigating</strong> - %s</p>", pg.at.Format("Jan 2, 2006 15:04"), compIncBody)
		entry = fmt.Sprintf(`  <entry>
    <id>%[1]s/%[2]s</id>
    <title>%[3]s</title>
    <link href="%[1]s/%[2]s"/>
    <published>%[4]s</published>
    <updated>%[4]s</updated>
    <content type="html">%[5]s</content>
  </entry>
`, u, incID, compIncTitle, pg.at.Format(time.RFC3339), html.EscapeString(content))
	}
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>%[1]s/history.atom</id>
  <title>Acme status history</title>
  <link href="%[1]s"/>
  <updated>%[2]s</updated>
%[3]s</feed>
`, u, rfc(0), entry)
	return routes{
		"/summary.json":       jsonResp(summary),
		"/history.atom":       textResp("application/atom+xml", feed),
		"/v2/components.json": jsonResp(map[string]any{"components": []any{map[string]any{"id": "cmrxt1rlu000a0zlcapi00001", "name": "API", "status": pg.word}}}),
	}
}

// betterstackComponents: an open item is a status report naming API in its
// affected_resources, a manual one or a maintenance.
func betterstackComponents(pg compPage) routes {
	const resourceID, reportID, updateID = "8810148", "919822", "5218730"
	bsTime := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }
	included := []any{
		map[string]any{"id": "3589", "type": "status_page_section", "attributes": map[string]any{"name": "Current status by service", "position": 0}},
		map[string]any{"id": resourceID, "type": "status_page_resource", "attributes": map[string]any{
			"status_page_section_id": 3589, "resource_id": 319187, "resource_type": "Monitor", "public_name": "API",
			"explanation": "api.acme.test", "position": 0, "availability": 0.998979, "status": pg.word,
			"status_history": []any{map[string]any{"day": "2026-11-02", "status": pg.word, "downtime_duration": 0, "maintenance_duration": 0}}}},
	}
	reports := []any{}
	if pg.open != openNothing {
		title, body, kind, state, ends := compIncTitle, compIncBody, "manual", "degraded", any(nil)
		if pg.open == openMaintenance {
			title, body, kind, state, ends = compMntTitle, compMntBody, "maintenance", "maintenance", bsTime(pg.at.Add(2*time.Hour))
		}
		aff := []any{map[string]any{"status_page_resource_id": resourceID, "status": state}}
		reports = []any{map[string]any{"id": reportID, "type": "status_report"}}
		included = append(included,
			map[string]any{"id": updateID, "type": "status_update", "attributes": map[string]any{
				"message": body, "published_at": bsTime(pg.at), "published_at_timezone": "UTC", "notify_subscribers": true, "affected_resources": aff}},
			map[string]any{"id": reportID, "type": "status_report",
				"attributes": map[string]any{"title": title, "report_type": kind, "starts_at": bsTime(pg.at), "ends_at": ends,
					"affected_resources": aff, "aggregate_state": state},
				"relationships": map[string]any{"status_updates": map[string]any{"data": []any{map[string]any{"id": updateID, "type": "status_update"}}}}})
	}
	doc := map[string]any{
		"data": map[string]any{"id": "124692", "type": "status_page",
			"attributes": map[string]any{"company_name": "Acme", "company_url": "https://acme.test/", "subdomain": "acme",
				"timezone": "UTC", "aggregate_state": pg.word},
			"relationships": map[string]any{
				"sections":       map[string]any{"data": []any{map[string]any{"id": "3589", "type": "status_page_section"}}},
				"resources":      map[string]any{"data": []any{map[string]any{"id": resourceID, "type": "status_page_resource"}}},
				"status_reports": map[string]any{"data": reports}}},
		"included": included,
	}
	return routes{"/index.json": jsonResp(doc)}
}

// cachetComponents: an open item is an incident naming API's component_id, investigating
// or (status 0) scheduled maintenance.
func cachetComponents(pg compPage) routes {
	pagination := func(n, perPage int) map[string]any {
		return map[string]any{"pagination": map[string]any{"total": n, "count": n, "per_page": perPage, "current_page": 1, "total_pages": 1,
			"links": map[string]any{"next_page": nil, "previous_page": nil}}}
	}
	names := map[string]string{"1": "Operational", "2": "Performance Issues", "3": "Partial Outage", "4": "Major Outage"}
	comps := map[string]any{"meta": pagination(1, 1000), "data": []any{map[string]any{"id": 3, "name": "API", "description": "The public REST API",
		"link": "", "status": json.Number(pg.word), "order": 0, "group_id": 0, "created_at": "2025-01-01 00:00:00", "updated_at": "2025-01-01 00:00:00",
		"deleted_at": nil, "enabled": true, "status_name": names[pg.word], "tags": []any{}}}}
	incidents := []any{}
	if pg.open != openNothing {
		at := pg.at.Format("2006-01-02 15:04:05")
		inc := map[string]any{"id": 12, "component_id": 3, "name": compIncTitle, "status": 1, "visible": 1, "stickied": false,
			"notifications": true, "message": compIncBody, "user_id": 1, "occurred_at": at, "created_at": at, "scheduled_at": nil,
			"updated_at": at, "deleted_at": nil, "is_resolved": false, "human_status": "Investigating", "meta": []any{}, "updates": []any{}}
		if pg.open == openMaintenance {
			inc["name"], inc["message"], inc["status"], inc["scheduled_at"], inc["human_status"] = compMntTitle, compMntBody, 0, at, "Scheduled"
		}
		incidents = []any{inc}
	}
	return routes{
		"/api/v1/incidents":  jsonResp(map[string]any{"meta": pagination(len(incidents), 50), "data": incidents}),
		"/api/v1/components": jsonResp(comps),
	}
}

// statusioComponents: an open item is an incident or active maintenance of the status
// API naming API in components_affected.
func statusioComponents(pg compPage) routes {
	const pageID, compID = "5b36dc6502d06804c08349f7", "5b36dc6502d06804c08349f8"
	u := pg.u
	names := map[string]string{"100": "Operational", "200": "Planned Maintenance", "300": "Degraded Performance", "400": "Partial Service Disruption", "500": "Service Disruption"}
	sioTime := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }
	affected := []any{map[string]any{"_id": compID, "name": "API"}}
	incidents, active := []any{}, []any{}
	switch pg.open {
	case openIncident:
		incidents = []any{map[string]any{"_id": "66c1c0de0000000000000001", "name": compIncTitle, "datetime_open": sioTime(pg.at),
			"messages":            []any{map[string]any{"_id": "66c1c0de00000000000000a1", "details": compIncBody, "state": 100, "status": 300, "datetime": sioTime(pg.at)}},
			"components_affected": affected, "containers_affected": []any{}}}
	case openMaintenance:
		active = []any{map[string]any{"_id": "66c1c0de0000000000000002", "name": compMntTitle, "datetime_open": sioTime(pg.at),
			"datetime_planned_start": sioTime(pg.at), "datetime_planned_end": sioTime(pg.at.Add(2 * time.Hour)),
			"messages":            []any{map[string]any{"_id": "66c1c0de00000000000000b1", "details": compMntBody, "state": 100, "status": 200, "datetime": sioTime(pg.at)}},
			"components_affected": affected, "containers_affected": []any{}}}
	}
	api := map[string]any{"result": map[string]any{
		"status_overall": map[string]any{"updated": rfc(0), "status": names[pg.word], "status_code": json.Number(pg.word)},
		"status": []any{map[string]any{"id": compID, "name": "API", "updated": rfc(0),
			"status": names[pg.word], "status_code": json.Number(pg.word), "containers": []any{}}},
		"incidents":   incidents,
		"maintenance": map[string]any{"active": active, "upcoming": []any{}},
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
