package web

import (
	"fmt"
	"html"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/correlate"
	"github.com/statuswatch/statuswatch/internal/model"
)

// cloudInc is an open incident started at t0+m minutes saying body.
func cloudInc(id, title string, m int, body string) model.Incident {
	at := t0.Add(time.Duration(m) * time.Minute)
	return model.Incident{ID: id, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title: title, StartedAt: at,
		Updates: []model.Update{{ID: id + "-1", Status: model.StatusInvestigating, Body: body, Format: model.FormatText, PostedAt: at}}}
}

// seedCloud archives an AWS outage seen by three vendors and one unrelated incident:
//
//	t0      aws:     Increased error rates in US-EAST-1
//	t0+4m   vercel:  Elevated errors (our provider in us-east-1)
//	t0+9m   netlify: Deploys failing (us-east-1)
//	t0+6m   github:  Webhooks delayed (nothing in common)
func (e *env) seedCloud() *env {
	e.tb.Helper()
	e.record("aws", t0, []model.Incident{cloudInc("ec2-use1", "Increased error rates", 0, "We are investigating increased error rates for EC2 APIs in the US-EAST-1 Region.")})
	e.record("vercel", t0.Add(4*time.Minute), []model.Incident{cloudInc("v1", "Elevated errors <b>now</b>", 4, "An upstream provider has issues in us-east-1.")})
	e.record("netlify", t0.Add(9*time.Minute), []model.Incident{cloudInc("n1", "Deploys failing", 9, "Builds in us-east-1 fail.")})
	e.record("github", t0.Add(6*time.Minute), []model.Incident{cloudInc("g1", "Webhooks delayed", 6, "Webhook deliveries are delayed.")})
	return e
}

func TestAPIRelated(t *testing.T) {
	e := newEnv(t).seedCloud()
	var got []api.Related
	e.getJSON("/api/v1/incidents/vercel/v1/related", http.StatusOK, &got)
	if len(got) != 2 {
		t.Fatalf("got %d related, want aws and netlify: %+v", len(got), got)
	}
	aws, netlify := got[0], got[1]
	if aws.Source != "aws" || aws.ID != "ec2-use1" || aws.Title != "Increased error rates" || time.Time(aws.StartedAt) != t0 {
		t.Errorf("first related %+v, want aws's incident", aws)
	}
	// aws's incident names EC2 and the region: EC2 implies AWS, and the source is aws.
	if want := []string{"same term: us-east-1", "started 4m apart"}; !slices.Equal(aws.Reasons, want) {
		t.Errorf("reasons %q, want %q", aws.Reasons, want)
	}
	if want := []string{"same term: us-east-1", "started 5m apart"}; netlify.Source != "netlify" || !slices.Equal(netlify.Reasons, want) {
		t.Errorf("second related %+v, want netlify with %q", netlify, want)
	}
	if aws.UIURL != "/incidents/aws/ec2-use1" {
		t.Errorf("ui_url %q", aws.UIURL)
	}
	var none []api.Related
	if r := e.getJSON("/api/v1/incidents/github/g1/related", http.StatusOK, &none); len(none) != 0 || strings.TrimSpace(string(r.body)) != "[]" {
		t.Errorf("unrelated incident: %s, want []", r.body)
	}
	if msg := errorOf(t, e.get("/api/v1/incidents/vercel/nope/related", http.StatusNotFound)); msg != "unknown incident" {
		t.Errorf("unknown incident: %q", msg)
	}
}

func TestAPIEvents(t *testing.T) {
	e := newEnv(t).seedCloud()
	var evs []api.Event
	e.getJSON("/api/v1/events", http.StatusOK, &evs)
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1: %+v", len(evs), evs)
	}
	ev := evs[0]
	if ev.ID != "aws.ec2-use1" || time.Time(ev.StartedAt) != t0 || !time.Time(ev.EndedAt).IsZero() {
		t.Errorf("event %+v, want aws.ec2-use1 from t0, open", ev)
	}
	if !slices.Equal(ev.Sources, []string{"aws", "netlify", "vercel"}) || !slices.Equal(ev.Terms, []string{"AWS", "us-east-1"}) {
		t.Errorf("sources %q terms %q", ev.Sources, ev.Terms)
	}
	var ids []string
	for _, in := range ev.Incidents {
		ids = append(ids, in.Source+"/"+in.ID)
	}
	if !slices.Equal(ids, []string{"aws/ec2-use1", "vercel/v1", "netlify/n1"}) {
		t.Errorf("incidents %q, want by start", ids)
	}
	var one api.Event
	e.getJSON("/api/v1/events/aws.ec2-use1", http.StatusOK, &one)
	if one.ID != ev.ID || len(one.Incidents) != 3 || one.UIURL != "/events/aws.ec2-use1" {
		t.Errorf("GET /events/{id}: %+v", one)
	}
	if msg := errorOf(t, e.get("/api/v1/events/nope", http.StatusNotFound)); msg != "unknown event" {
		t.Errorf("unknown event: %q", msg)
	}

	for _, tc := range []struct {
		query string
		n     int
	}{
		{"?from=" + t0.Add(-time.Hour).Format(time.RFC3339), 1},
		{"?to=" + t0.Add(-time.Minute).Format(time.RFC3339), 0},
		{"?to=" + t0.Format(time.RFC3339), 1},
		{"?from=" + now.Add(time.Hour).Format(time.RFC3339), 1}, // open: under way still
	} {
		var got []api.Event
		e.getJSON("/api/v1/events"+tc.query, http.StatusOK, &got)
		if len(got) != tc.n {
			t.Errorf("%s: %d events, want %d", tc.query, len(got), tc.n)
		}
	}
	for _, q := range []string{"?from=yesterday", "?from=2026-07-02T00:00:00Z&to=2026-07-01T00:00:00Z", "?limit=0", "?before=xyz"} {
		e.get("/api/v1/events"+q, http.StatusBadRequest)
	}

	// The answer follows the archive: a second, later event appears; the list pages
	// newest first.
	res := cloudInc("ec2-use1", "Increased error rates", 0, "We are investigating increased error rates for EC2 APIs in the US-EAST-1 Region.")
	res.Status, res.ResolvedAt = model.StatusResolved, t0.Add(50*time.Minute)
	e.record("aws", t0.Add(50*time.Minute), []model.Incident{res})
	e.record("github", t0.Add(70*time.Minute), []model.Incident{cloudInc("g1", "Webhooks delayed", 6, "Webhook deliveries are delayed."),
		cloudInc("g2", "DNS resolution errors", 60, "Our DNS provider is failing.")})
	e.record("slack", t0.Add(71*time.Minute), []model.Incident{cloudInc("s1", "Messages fail", 65, "A DNS issue upstream.")})
	var page1, page2 []api.Event
	r := e.getJSON("/api/v1/events?limit=1", http.StatusOK, &page1)
	if len(page1) != 1 || page1[0].ID != "github.g2" {
		t.Fatalf("first page %+v, want the later event github.g2", page1)
	}
	e.getJSON(r.header.Get("Link")[1:strings.Index(r.header.Get("Link"), ">")], http.StatusOK, &page2)
	if len(page2) != 1 || page2[0].ID != "aws.ec2-use1" || !time.Time(page2[0].EndedAt).IsZero() {
		t.Errorf("second page %+v, want aws.ec2-use1, still open (vercel and netlify are)", page2)
	}
}

func TestUIEvents(t *testing.T) {
	e := newEnv(t).seedCloud()
	page := string(e.get("/events", http.StatusOK).body)
	for _, want := range []string{`href="/events/aws.ec2-use1"`, "Aws, Netlify and Vercel", "us-east-1", "1 event"} {
		if !strings.Contains(page, want) {
			t.Errorf("/events lacks %q", want)
		}
	}
	page = string(e.get("/events/aws.ec2-use1", http.StatusOK).body)
	for _, want := range []string{`<svg class="eventline"`, `href="/incidents/vercel/v1"`, "same term: us-east-1", "started 9m apart",
		html.EscapeString("Elevated errors <b>now</b>")} {
		if !strings.Contains(page, want) {
			t.Errorf("/events/{id} lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>now</b>") {
		t.Error("a vendor's title is not escaped on the event page")
	}
	if got := strings.Count(page, `class="ev-bar ev-open"`); got != 3 {
		t.Errorf("%d open bars, want 3", got)
	}
	e.get("/events/nope", http.StatusNotFound)

	page = string(e.get("/incidents/vercel/v1", http.StatusOK).body)
	for _, want := range []string{`id="related-h"`, `href="/incidents/aws/ec2-use1"`, "started 4m apart", `href="/events/aws.ec2-use1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("incident page lacks %q", want)
		}
	}
	if page := string(e.get("/incidents/github/g1", http.StatusOK).body); strings.Contains(page, `id="related-h"`) {
		t.Error("an incident without related ones shows the Related panel")
	}
}

// TestEventsDependsOn: depends_on from the config relates incidents that share no term.
func TestEventsDependsOn(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.Correlation = correlate.Options{DependsOn: map[string][]string{"twingate": {"gcp"}}}
	})
	e.record("gcp", t0, []model.Incident{cloudInc("c1", "Cloud SQL errors", 0, "Errors.")})
	e.record("twingate", t0.Add(3*time.Minute), []model.Incident{cloudInc("t1", "Login failures", 3, "Some users cannot log in.")})
	var got []api.Related
	e.getJSON("/api/v1/incidents/twingate/t1/related", http.StatusOK, &got)
	if len(got) != 1 || !slices.Equal(got[0].Reasons, []string{"twingate depends on gcp", "started 3m apart"}) {
		t.Errorf("related %+v", got)
	}
}

// TestMCPEvents: the tools related_incidents and list_events answer what the API does,
// and a bad argument is a tool error.
func TestMCPEvents(t *testing.T) {
	cs := connectInMemory(t, newEnv(t).seedCloud())
	var rel struct{ Related []api.Related }
	call(t, cs, "related_incidents", map[string]any{"source": "vercel", "id": "v1"}, &rel)
	if len(rel.Related) != 2 || rel.Related[0].Source != "aws" || !slices.Contains(rel.Related[0].Reasons, "same term: us-east-1") {
		t.Errorf("related_incidents: %+v", rel.Related)
	}
	var evs struct{ Events []api.Event }
	call(t, cs, "list_events", map[string]any{"from": t0.Format(time.RFC3339)}, &evs)
	if len(evs.Events) != 1 || evs.Events[0].ID != "aws.ec2-use1" || len(evs.Events[0].Incidents) != 3 {
		t.Errorf("list_events: %+v", evs.Events)
	}
	call(t, cs, "list_events", map[string]any{"to": t0.Add(-time.Hour).Format(time.RFC3339)}, &evs)
	if len(evs.Events) != 0 {
		t.Errorf("list_events before anything: %+v", evs.Events)
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"related_incidents", map[string]any{"source": "vercel", "id": "nope"}, "unknown incident"},
		{"related_incidents", map[string]any{"source": "vercel"}, "id"},
		{"list_events", map[string]any{"from": "yesterday"}, "from"},
		{"list_events", map[string]any{"limit": 1000}, "maximum"},
	} {
		if got := toolError(t, cs, tt.tool, tt.args); !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: got %q, want it to say %q", tt.tool, tt.args, got, tt.want)
		}
	}
}

// TestUIEventBounded: a large event's page explains at most relationsShown pairs.
func TestUIEventBounded(t *testing.T) {
	e := newEnv(t)
	for i := range 25 {
		src := fmt.Sprintf("v%02d", i)
		e.record(src, t0.Add(time.Duration(i)*time.Minute), []model.Incident{cloudInc("i", "DNS errors", i, "Our DNS provider fails.")})
	}
	page := string(e.get("/events/v00.i", http.StatusOK).body)
	// 25 incidents, each related to every other: 300 pairs.
	if got := strings.Count(page, `<ul class="reasons"`); got != 200 {
		t.Errorf("%d pairs explained, want 200", got)
	}
	if !strings.Contains(page, "And 100 more related pairs") {
		t.Error("the page does not say how many pairs it leaves out")
	}
}
