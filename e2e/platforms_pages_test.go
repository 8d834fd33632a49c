package e2e

// The vendor pages of TestEveryPlatformEndToEnd (platforms_test.go): for each platform,
// its endpoints in the three states of the incident, in the shape of its real format.

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"
	"unicode/utf16"
)

// ---- Statuspage ----

func spTime(i int) string { return at(i).Format("2006-01-02T15:04:05.000Z") }

func statuspagePage(u string, n int) routes {
	const id, pageID, compID = "k3x9p2m7q1wz", "y2j98763l56x", "b13yz5g2cw10"
	page := map[string]any{"id": pageID, "name": "Acme Cloud", "url": u, "time_zone": "Etc/UTC", "updated_at": spTime(n)}
	compStatus := "major_outage"
	if n == 2 {
		compStatus = "operational"
	}
	var updates []map[string]any
	for i := n; i >= 0; i-- { // newest first
		newStatus := "major_outage"
		if i == 2 {
			newStatus = "operational"
		}
		updates = append(updates, map[string]any{
			"id": fmt.Sprintf("h8v2c7d9k1m%d", i), "status": stages[i].status, "body": stages[i].body,
			"incident_id": id, "created_at": spTime(i), "updated_at": spTime(i), "display_at": spTime(i),
			"affected_components":   []map[string]any{{"code": compID, "name": "API", "old_status": "operational", "new_status": newStatus}},
			"deliver_notifications": true, "custom_tweet": nil, "tweet_id": nil,
		})
	}
	var resolvedAt any
	if n == 2 {
		resolvedAt = spTime(2)
	}
	comp := map[string]any{"id": compID, "name": "API", "status": compStatus, "created_at": "2017-01-31T20:01:46.621Z",
		"updated_at": spTime(n), "position": 1, "description": nil, "showcase": false, "group_id": nil, "page_id": pageID, "group": false, "only_show_if_degraded": false}
	inc := map[string]any{
		"id": id, "name": title, "status": stages[n].status, "created_at": spTime(0), "updated_at": spTime(n),
		"monitoring_at": nil, "resolved_at": resolvedAt, "impact": "major", "shortlink": "https://stspg.io/k3x9p2m7",
		"started_at": spTime(0), "page_id": pageID, "incident_updates": updates, "components": []any{comp},
	}
	open, indicator := []any{inc}, "major"
	if n == 2 {
		open, indicator = []any{}, "none"
	}
	return routes{
		"/api/v2/incidents.json":              jsonResp(map[string]any{"page": page, "incidents": []any{inc}}),
		"/api/v2/scheduled-maintenances.json": jsonResp(map[string]any{"page": page, "scheduled_maintenances": []any{}}),
		"/api/v2/summary.json": jsonResp(map[string]any{"page": page, "components": []any{comp}, "incidents": open,
			"scheduled_maintenances": []any{}, "status": map[string]any{"indicator": indicator, "description": "Partial System Outage"}}),
	}
}

// ---- incident.io ----

func incidentioPage(u string, n int) routes {
	const id, pageID = "01KY54SWGRK806N6TJ495MYPDD", "01JMDK9XYNY6RXSED6SDWW50WY"
	page := map[string]any{"id": pageID, "name": "Acme AI", "url": u + "/", "updated_at": rfc(n)}
	var updates []map[string]any
	for i := n; i >= 0; i-- {
		updates = append(updates, map[string]any{
			"id": fmt.Sprintf("01KY54SWGR43Q7BTSK3CSKW8%02d", i), "body": stages[i].body, "created_at": rfc(i),
			"display_at": rfc(i), "incident_id": id, "status": stages[i].status, "updated_at": rfc(i),
		})
	}
	inc := map[string]any{"id": id, "name": title, "status": stages[n].status, "created_at": rfc(0), "updated_at": rfc(n),
		"impact": "minor", "page_id": pageID, "incident_updates": updates}
	if n == 2 {
		inc["resolved_at"] = rfc(2)
	}
	summary := map[string]any{"page": page,
		"status":     map[string]any{"description": "Partial System Degradation", "indicator": "minor"},
		"components": []any{map[string]any{"id": "01JMXBRMFE4MAP2BHSJNZ787WX", "name": "API", "status": "partial_outage", "page_id": pageID}}}
	if n < 2 {
		summary["incidents"] = []any{inc} // incident.io leaves the list out when empty
	}
	comp := "Partial outage"
	if n == 2 {
		comp = "Operational"
	}
	content := fmt.Sprintf(`<b>Status: %s</b><br/><br/>%s<br/><br/><b>Affected components</b>
          <ul>
          <li>API (%s)</li>
          </ul>`, stages[n].label, stages[n].body, comp)
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
    <id>%[1]s/</id>
    <title>Acme AI status</title>
    <updated>%[2]s</updated>
    <generator>incident.io</generator>
    <link rel="alternate" href="%[1]s/"/>
    <subtitle>Acme AI status page updates</subtitle>
    <entry>
        <title type="html"><![CDATA[%[3]s]]></title>
        <id>%[1]s//incidents/%[4]s</id>
        <link href="%[1]s//incidents/%[4]s"/>
        <updated>%[2]s</updated>
        <summary type="html"><![CDATA[%[5]s]]></summary>
        <content type="html"><![CDATA[%[5]s]]></content>
    </entry>
</feed>
`, u, rfc(n), title, id, content)
	return routes{
		"/api/v2/incidents.json":              jsonResp(map[string]any{"page": page, "incidents": []any{inc}}),
		"/api/v2/scheduled-maintenances.json": jsonResp(map[string]any{"page": page}),
		"/api/v2/summary.json":                jsonResp(summary),
		"/feed.atom":                          textResp("application/atom+xml", feed),
	}
}

// ---- Instatus ----

func instatusPage(u string, n int) routes {
	const id = "cmrxt1rlu000f0zlcv4dzmdlr"
	words := [3]string{"INVESTIGATING", "IDENTIFIED", "RESOLVED"}
	summary := map[string]any{"page": map[string]any{"name": "Acme", "url": u, "status": "UP"}}
	if n < 2 {
		summary["page"].(map[string]any)["status"] = "HASISSUES"
		summary["activeIncidents"] = []any{map[string]any{
			"id": id, "name": title, "started": at(0).Format("2006-01-02T15:04:05.000Z"), "status": words[n],
			"impact": "MAJOROUTAGE", "url": u + "/" + id, "updatedAt": at(n).Format("2006-01-02T15:04:05.000Z"),
		}}
	}
	var content strings.Builder
	for i := 0; i <= n; i++ { // oldest first
		fmt.Fprintf(&content, "<p><small>%s UTC</small><br><strong>%s</strong> - %s</p>", at(i).Format("Jan 2, 2006 15:04"), stages[i].label, stages[i].body)
	}
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>%[1]s/history.atom</id>
  <title>Acme status history</title>
  <link href="%[1]s"/>
  <updated>%[2]s</updated>
  <entry>
    <id>%[1]s/%[3]s</id>
    <title>%[4]s</title>
    <link href="%[1]s/%[3]s"/>
    <published>%[5]s</published>
    <updated>%[2]s</updated>
    <content type="html">%[6]s</content>
  </entry>
</feed>
`, u, rfc(n), id, title, rfc(0), html.EscapeString(content.String()))
	return routes{
		"/summary.json": jsonResp(summary),
		"/history.atom": textResp("application/atom+xml", feed),
	}
}

// ---- Better Stack ----

func betterstackPage(u string, n int) routes {
	const reportID, resourceID = "919822", "8810148"
	state := "downtime"
	if n == 2 {
		state = "resolved"
	}
	aff := func(s string) []any { return []any{map[string]any{"status_page_resource_id": resourceID, "status": s}} }
	var refs []any
	included := []any{
		map[string]any{"id": "3589", "type": "status_page_section", "attributes": map[string]any{"name": "Current status by service", "position": 0}},
		map[string]any{"id": resourceID, "type": "status_page_resource", "attributes": map[string]any{
			"status_page_section_id": 3589, "resource_id": 319187, "resource_type": "Monitor", "public_name": "API",
			"explanation": "api.acme.test", "position": 0, "availability": 0.998979, "status": state,
			"status_history": []any{map[string]any{"day": "2026-11-02", "status": state, "downtime_duration": 0, "maintenance_duration": 0}}}},
	}
	for i := 0; i <= n; i++ {
		uid := fmt.Sprintf("521873%d", i)
		refs = append(refs, map[string]any{"id": uid, "type": "status_update"})
		s := "downtime"
		if i == 2 {
			s = "resolved"
		}
		included = append(included, map[string]any{"id": uid, "type": "status_update", "attributes": map[string]any{
			"message": stages[i].body, "published_at": at(i).Format("2006-01-02T15:04:05.000Z"), "published_at_timezone": "UTC",
			"notify_subscribers": true, "affected_resources": aff(s)}})
	}
	slices.Reverse(refs) // the real page lists the last update first
	included = append(included, map[string]any{"id": reportID, "type": "status_report",
		"attributes": map[string]any{"title": title, "report_type": "manual", "starts_at": at(0).Format("2006-01-02T15:04:05.000Z"),
			"ends_at": nil, "affected_resources": aff(state), "aggregate_state": state},
		"relationships": map[string]any{"status_updates": map[string]any{"data": refs}}})
	doc := map[string]any{
		"data": map[string]any{"id": "124692", "type": "status_page",
			"attributes": map[string]any{"company_name": "Acme", "company_url": "https://acme.test/", "subdomain": "acme",
				"timezone": "UTC", "aggregate_state": map[bool]string{true: "operational", false: "downtime"}[n == 2]},
			"relationships": map[string]any{
				"sections":       map[string]any{"data": []any{map[string]any{"id": "3589", "type": "status_page_section"}}},
				"resources":      map[string]any{"data": []any{map[string]any{"id": resourceID, "type": "status_page_resource"}}},
				"status_reports": map[string]any{"data": []any{map[string]any{"id": reportID, "type": "status_report"}}}}},
		"included": included,
	}
	return routes{"/index.json": jsonResp(doc)}
}

// ---- Cachet ----

func cachetPage(u string, n int) routes {
	ct := func(i int) string { return at(i).Format("2006-01-02 15:04:05") }
	codes := [3]int{1, 2, 4}
	human := [3]string{"Investigating", "Identified", "Fixed"}
	var updates []any
	for i := n; i >= 1; i-- { // newest first; the incident's own message is the first update
		updates = append(updates, map[string]any{"id": 30 + i, "incident_id": 12, "status": codes[i], "message": stages[i].body,
			"user_id": 1, "created_at": ct(i), "updated_at": ct(i), "human_status": human[i],
			"permalink": fmt.Sprintf("%s/incidents/12#update-%d", u, 30+i)})
	}
	if updates == nil {
		updates = []any{}
	}
	inc := map[string]any{"id": 12, "component_id": 3, "name": title, "status": codes[n], "visible": 1, "stickied": false,
		"notifications": true, "message": stages[0].body, "user_id": 1, "occurred_at": ct(0), "created_at": ct(0),
		"updated_at": ct(n), "deleted_at": nil, "is_resolved": n == 2, "human_status": human[n], "meta": []any{}, "updates": updates}
	pagination := func(perPage int) map[string]any {
		return map[string]any{"pagination": map[string]any{"total": 1, "count": 1, "per_page": perPage, "current_page": 1, "total_pages": 1,
			"links": map[string]any{"next_page": nil, "previous_page": nil}}}
	}
	comps := map[string]any{"meta": pagination(1000), "data": []any{map[string]any{"id": 3, "name": "API", "description": "The public REST API",
		"link": "", "status": 1, "order": 0, "group_id": 1, "created_at": "2025-01-01 00:00:00", "updated_at": ct(n),
		"deleted_at": nil, "enabled": true, "status_name": "Operational", "tags": []any{}}}}
	return routes{
		"/api/v1/incidents":  jsonResp(map[string]any{"meta": pagination(50), "data": []any{inc}}),
		"/api/v1/components": jsonResp(comps),
	}
}

// ---- status.io ----

func statusioPage(u string, n int) routes {
	const pageID, incID = "5b36dc6502d06804c08349f7", "66c1c0de0000000000000001"
	msgID := func(i int) string { return fmt.Sprintf("66c1c0de00000000000000a%d", i+1) }
	sioTime := func(i int) string { return at(i).Format("2006-01-02T15:04:05.000Z") }
	incidents := []any{}
	if n < 2 {
		var msgs []any
		for i := n; i >= 0; i-- {
			msgs = append(msgs, map[string]any{"_id": msgID(i), "details": stages[i].body, "state": []int{100, 200}[i],
				"status": 400, "datetime": sioTime(i)})
		}
		incidents = append(incidents, map[string]any{"_id": incID, "name": title, "datetime_open": sioTime(0), "messages": msgs,
			"components_affected": []any{map[string]any{"_id": "5b36dc6502d06804c08349f8", "name": "API"}},
			"containers_affected": []any{map[string]any{"_id": "5b36dc6502d06804c08349fa", "name": "Google Compute Engine"}}})
	}
	overall := map[string]any{"updated": sioTime(n), "status": "Partial Service Disruption", "status_code": 400}
	if n == 2 {
		overall = map[string]any{"updated": sioTime(n), "status": "Operational", "status_code": 100}
	}
	api := map[string]any{"result": map[string]any{
		"status_overall": overall,
		"status": []any{map[string]any{"id": "5b36dc6502d06804c08349f8", "name": "API", "updated": sioTime(n),
			"status": overall["status"], "status_code": overall["status_code"], "containers": []any{}}},
		"incidents":   incidents,
		"maintenance": map[string]any{"active": []any{}, "upcoming": []any{}},
	}}
	var items strings.Builder
	for i := n; i >= 0; i-- { // newest first
		fmt.Fprintf(&items, `    <item>
      <title>%s</title>
      <link>%s/pages/incident/%s/%s</link>
      <guid isPermaLink="false">%s-%s</guid>
      <pubDate>%s</pubDate>
      <description><![CDATA[<p>%s</p>]]></description>
    </item>
`, title, u, pageID, incID, incID, msgID(i), at(i).Format(time.RFC1123Z), stages[i].body)
	}
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>Acme System Status</title>
    <link>%s</link>
    <description>Incident history of Acme System Status</description>
%s  </channel>
</rss>
`, u, items.String())
	pageHTML := fmt.Sprintf(`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Acme System Status</title>
  <link rel="alternate" type="application/rss+xml" title="RSS" href="/pages/%[1]s/rss">
</head>
<body>
  <a href="/pages/history/%[1]s">Incident history</a>
</body>
</html>
`, pageID)
	return routes{
		"/":                         textResp("text/html; charset=utf-8", pageHTML),
		"/1.0/status/" + pageID:     jsonResp(api),
		"/pages/" + pageID + "/rss": textResp("application/rss+xml", feed),
	}
}

// ---- Google Cloud ----

func gcpPage(u string, n int) routes {
	const id = "xZ2kq9WpLm3Ab7Cd8Ef1"
	gt := func(i int) string { return at(i).Format("2006-01-02T15:04:05+00:00") }
	statuses := [3]string{"SERVICE_DISRUPTION", "SERVICE_DISRUPTION", "AVAILABLE"}
	var updates []map[string]any
	for i := n; i >= 0; i-- { // newest first
		updates = append(updates, map[string]any{"created": gt(i), "modified": gt(i), "when": gt(i), "text": stages[i].body,
			"status": statuses[i], "affected_locations": []any{map[string]any{"title": "Belgium (europe-west1)", "id": "europe-west1"}}})
	}
	inc := map[string]any{"id": id, "number": "11738310674864064645", "begin": gt(0), "created": gt(0), "modified": gt(n),
		"external_desc": title, "updates": updates, "most_recent_update": updates[0], "status_impact": "SERVICE_DISRUPTION",
		"severity": "medium", "service_key": "zall", "service_name": "Multiple Products",
		"affected_products": []any{map[string]any{"title": "Cloud API Gateway", "id": "5gQF7Qk9XfQ32pStX6Hb", "current_title": "Cloud API Gateway"}},
		"uri":               "incidents/" + id, "currently_affected_locations": []any{}, "previously_affected_locations": []any{}}
	if n == 2 {
		inc["end"] = gt(2)
	}
	return routes{"/incidents.json": jsonResp([]any{inc})}
}

// ---- AWS ----

func awsPage(u string, n int) routes {
	const service = "ec2-us-east-1"
	var items strings.Builder
	for i := n; i >= 0; i-- { // newest first
		t := "Service disruption: " + title
		if i == 2 {
			t = "Service is operating normally: [RESOLVED] " + title
		}
		fmt.Fprintf(&items, `	 <item>
	  <title><![CDATA[%s]]></title>
	  <link>https://status.aws.amazon.com/</link>
	  <pubDate>%s</pubDate>
	  <guid isPermaLink="false">https://status.aws.amazon.com/#%s_%d</guid>
	  <description><![CDATA[%s]]></description>
	 </item>
`, t, at(i).Format(time.RFC1123Z), service, at(i).Unix(), stages[i].body)
	}
	rss := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title><![CDATA[Amazon Web Services Service Status]]></title>
    <link>https://status.aws.amazon.com/</link>
    <language>en-us</language>
    <lastBuildDate>%s</lastBuildDate>
%s  </channel>
</rss>
`, at(n).Format(time.RFC1123Z), items.String())
	events := []any{}
	if n < 2 {
		var log []any
		for i := 0; i <= n; i++ {
			log = append(log, map[string]any{"summary": title, "message": stages[i].body, "status": 3, "timestamp": at(i).Unix()})
		}
		events = append(events, map[string]any{
			"date": fmt.Sprint(at(0).Unix()), "arn": "arn:aws:health:us-east-1::event/EC2/AWS_EC2_OPERATIONAL_ISSUE/AWS_EC2_OPERATIONAL_ISSUE_1A2B3_C4D5E6F7A8B",
			"region_name": "N. Virginia", "status": "3", "service": service, "service_name": "Amazon Elastic Compute Cloud",
			"summary": title, "event_log": log,
			"impacted_services": map[string]any{"ec2-us-east-1": map[string]any{"service_name": "Amazon Elastic Compute Cloud", "current": "3", "max": "3"},
				"elb-us-east-1": map[string]any{"service_name": "Elastic Load Balancing", "current": "2", "max": "2"}},
		})
	}
	ce, err := json.Marshal(events)
	if err != nil {
		panic(err)
	}
	return routes{
		"/status-mirror/rss/all.rss":          textResp("application/rss+xml", rss),
		"/health-mirror/public/currentevents": resp{ct: "application/json", body: utf16BOM(string(ce))},
	}
}

// utf16BOM encodes s as UTF-16 big endian with a byte-order mark, as currentevents is served.
func utf16BOM(s string) []byte {
	units := utf16.Encode([]rune("\ufeff" + s))
	out := make([]byte, 0, 2*len(units))
	for _, c := range units {
		out = append(out, byte(c>>8), byte(c))
	}
	return out
}

// ---- Azure ----

func azurePage(u string, n int) routes {
	var item string
	if n < 2 {
		desc := fmt.Sprintf("<p>Starting at approximately 14:00 UTC on 2 November 2026, customers using API Management in West Europe may have experienced elevated error rates.</p><p>Current Status:</p><p>%s</p>", stages[n].body)
		item = fmt.Sprintf(`    <item>
      <guid
        isPermaLink="false">elevated-api-error-rates-in-west-europe</guid>
      <link>https://azurestatusprodwus.azurewebsites.net/en-us/status/</link>
      <category>API Management</category>
      <category>West Europe</category>
      <title>%s </title>
      <description>%s</description>
      <pubDate>%s</pubDate>
    </item>
`, title, html.EscapeString(desc), at(n).Format("Mon, 02 Jan 2006 15:04:05 Z"))
	}
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<rss xmlns:a10="http://www.w3.org/2005/Atom" version="2.0">
  <channel>
    <title>Azure Status</title>
    <link>https://azurestatusprodwus.azurewebsites.net/en-us/status/</link>
    <description>Azure Status</description>
    <language>en-us</language>
    <lastBuildDate>%s</lastBuildDate>
%s  </channel>
</rss>`, at(n).Format("Mon, 02 Jan 2006 15:04:05 Z"), item)
	return routes{"/en-us/status/feed/": textResp("application/rss+xml; charset=utf-8", feed)}
}

// ---- Slack ----

func slackPage(u string, n int) routes {
	pt := time.FixedZone("PST", -8*3600)
	st := func(i int) string { return at(i).In(pt).Format("2006-01-02T15:04:05-07:00") }
	var notes []any
	for i := 0; i <= n; i++ { // oldest first
		notes = append(notes, map[string]any{"body": "<p>" + stages[i].body + "</p>", "date_created": st(i)})
	}
	status := "active"
	if n == 2 {
		status = "resolved"
	}
	inc := map[string]any{"id": 1601, "title": title, "type": "incident", "status": status,
		"url": "https://slack-status.com/2026-11/a3f09c1d2e4b5678", "date_created": st(0), "date_updated": st(n),
		"services": []any{"Apps/Integrations/APIs"}, "notes": notes}
	current := map[string]any{"status": "active", "date_created": st(0), "date_updated": st(n), "active_incidents": []any{inc}}
	if n == 2 {
		current = map[string]any{"status": "ok", "active_incidents": []any{}, "date_created": st(n), "date_updated": st(n)}
	}
	return routes{
		"/api/v2.0.0/history": jsonResp([]any{inc}),
		"/api/v2.0.0/current": jsonResp(current),
	}
}

// ---- Generic feed ----

func feedPage(u string, n int) routes {
	var content strings.Builder
	for i := n; i >= 0; i-- { // newest first
		fmt.Fprintf(&content, "<p><small>%s <var data-var='date'>%d</var>, <var data-var='time'>%s</var> UTC</small><br><strong>%s</strong> - %s</p>",
			at(i).Format("Jan"), at(i).Day(), at(i).Format("15:04"), stages[i].label, stages[i].body)
	}
	content.WriteString("<p>This incident affected: API.</p>")
	feed := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<feed xml:lang="en-US" xmlns="http://www.w3.org/2005/Atom">
  <id>tag:status.acme.test,2005:/history</id>
  <link rel="alternate" type="text/html" href="%[1]s"/>
  <link rel="self" type="application/atom+xml" href="%[1]s/history.atom"/>
  <title>Acme Status - Incident History</title>
  <updated>%[2]s</updated>
  <author>
    <name>Acme</name>
  </author>
  <entry>
    <id>tag:status.acme.test,2005:Incident/24680001</id>
    <published>%[3]s</published>
    <updated>%[2]s</updated>
    <link rel="alternate" type="text/html" href="%[1]s/incidents/k3x9p2m7q1wz"/>
    <title>%[4]s</title>
    <content type="html">%[5]s</content>
  </entry>
</feed>
`, u, rfc(n), rfc(0), title, html.EscapeString(content.String()))
	return routes{"/history.atom": textResp("application/atom+xml", feed)}
}
