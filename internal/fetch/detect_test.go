package fetch_test

// Provider auto-detection against local copies of every platform's payloads: the real
// captures in testdata/<platform>/ (provenance in testdata/SOURCES.md) and,
// where none exists, the synthetic-* fixtures written from each format's documentation
// (Cachet's API, status.io's page, the Slack current answer, the feeds), which say so at
// their top. Look-alikes and catch-all servers check that nothing is accepted on a 200
// alone. Host rules are tested by injection, since the test servers live on 127.0.0.1.

import (
	"context"
	"errors"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/aws"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/betterstack"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/cachet"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/feed"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/gcp"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/incidentio"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/instatus"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/slack"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/statusio"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/statuspage"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/statuswatch/statuswatch/internal/fetch/all"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/azure"
)

// platformData reads <platform>/<name> of the testdata: the platform's own package's
// testdata/ once it has moved out of this package, else this package's.
func platformData(tb testing.TB, platform, name string) []byte {
	tb.Helper()
	moved, _ := filepath.Glob(filepath.Join("platform", "*", "testdata", platform, name))
	moved = append(moved, filepath.Join("historyfeed", "testdata", platform, name))
	for _, p := range append(moved, filepath.Join("testdata", platform, name)) {
		if b, err := os.ReadFile(p); err == nil {
			return b
		}
	}
	tb.Fatalf("no testdata %s/%s", platform, name)
	return nil
}

// detectRoute is what a detectServer answers on one path.
type detectRoute struct {
	status int // default 200
	ct     string
	body   []byte
	header map[string]string
}

// detectServer serves routes by path; other paths get the catch-all, else 404. It counts
// and logs the requests.
type detectServer struct {
	mu       sync.Mutex
	routes   map[string]detectRoute
	catchAll *detectRoute
	paths    []string
}

func (s *detectServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	rt, ok := s.routes[r.URL.Path]
	if !ok && s.catchAll != nil {
		rt, ok = *s.catchAll, true
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	for k, v := range rt.header {
		w.Header().Set(k, v)
	}
	if rt.ct != "" {
		w.Header().Set("Content-Type", rt.ct)
	}
	if rt.status != 0 {
		w.WriteHeader(rt.status)
	}
	w.Write(rt.body)
}

func (s *detectServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

const (
	ctJSON = "application/json; charset=utf-8"
	ctHTML = "text/html; charset=utf-8"
	ctRSS  = "application/rss+xml; charset=utf-8"
	ctAtom = "application/atom+xml; charset=utf-8"
)

// htmlPage is a status page's HTML as a single-page app serves it: no platform in it.
var htmlPage = []byte(`<!DOCTYPE html><html><head><title>Acme Status</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)

// noHostRules is an injected HostRules that knows no host, so the detection past the
// host rules is what is tested.
func noHostRules(string) (string, bool) { return "", false }

func json200(b []byte) detectRoute { return detectRoute{ct: ctJSON, body: b} }

func TestDetectPlatforms(t *testing.T) {
	page := detectRoute{ct: ctHTML, body: htmlPage}
	tests := []struct {
		name     string
		routes   map[string]detectRoute
		path     string // the URL's path, default "/"
		kind     string
		urlPath  string // the Detection URL's path; default: path
		evidence string // a part of the evidence
	}{
		{
			name:     "statuspage github summary",
			routes:   map[string]detectRoute{"/": page, "/api/v2/summary.json": json200(platformData(t, "statuspage", "github-summary-2022-11-25.json"))},
			kind:     statuspage.Kind,
			evidence: `/api/v2/summary.json has page.id "kctbh9vrtdwd" and components[] with page_id and group/showcase (Statuspage shape)`,
		},
		{
			name:     "statuspage claude summary, page under a path",
			routes:   map[string]detectRoute{"/acme": page, "/acme/api/v2/summary.json": json200(platformData(t, "statuspage", "claude-summary-active-incident-2026-07-29.json"))},
			path:     "/acme",
			kind:     statuspage.Kind,
			evidence: `page.id "tymt9n04zgry"`,
		},
		{
			name: "statuspage by header alone",
			routes: map[string]detectRoute{"/": {ct: ctHTML, body: htmlPage, header: map[string]string{
				"X-Statuspage-Version": "e611fa6f646155acd17e8c45dc9a34062f7354b0", "X-Statuspage-Skip-Logging": "true",
			}}},
			kind:     statuspage.Kind,
			evidence: "header x-statuspage-version",
		},
		{
			name:     "statuspage given as its summary endpoint",
			routes:   map[string]detectRoute{"/api/v2/summary.json": json200(platformData(t, "statuspage", "github-summary-2022-11-25.json"))},
			path:     "/api/v2/summary.json",
			kind:     statuspage.Kind,
			urlPath:  "/",
			evidence: "(Statuspage shape)",
		},
		{
			name:     "incident.io openai compat summary",
			routes:   map[string]detectRoute{"/": page, "/api/v2/summary.json": json200(platformData(t, "incident.io", "openai-statuspage-compat-summary-2026-07-22.json"))},
			kind:     incidentio.Kind,
			evidence: `/api/v2/summary.json has ULID page.id "01JMDK9XYNY6RXSED6SDWW50WY"`,
		},
		{
			name:     "incident.io cohere compat summary",
			routes:   map[string]detectRoute{"/": page, "/api/v2/summary.json": json200(platformData(t, "incident.io", "cohere-statuspage-compat-summary-2026-07-23.json"))},
			kind:     incidentio.Kind,
			evidence: "incident.io's Statuspage-compatible shape",
		},
		{
			name: "incident.io given as its feed.atom: the platform wins over kind feed",
			routes: map[string]detectRoute{
				"/feed.atom":           {ct: ctAtom, body: platformData(t, "incident.io", "synthetic-incidentio-feed.atom")},
				"/api/v2/summary.json": json200(platformData(t, "incident.io", "openai-statuspage-compat-summary-2026-07-22.json")),
			},
			path:     "/feed.atom",
			kind:     incidentio.Kind,
			urlPath:  "/",
			evidence: "ULID",
		},
		{
			name:     "instatus perplexity at /api/v2/summary.json",
			routes:   map[string]detectRoute{"/": page, "/api/v2/summary.json": json200(platformData(t, "instatus", "perplexity-summary-2026-07-23.json"))},
			kind:     instatus.Kind,
			evidence: `/api/v2/summary.json has page.status "ONEMAJOROUTAGE" and activeIncidents[] (Instatus shape)`,
		},
		{
			name:     "instatus documented /summary.json only",
			routes:   map[string]detectRoute{"/": page, "/summary.json": json200(platformData(t, "instatus", "synthetic-instatus-summary-doc-example.json"))},
			kind:     instatus.Kind,
			evidence: `/summary.json has page.status "HASISSUES" and activeIncidents[] and activeMaintenances[] (Instatus shape)`,
		},
		{
			name:     "better stack huggingface index.json",
			routes:   map[string]detectRoute{"/": page, "/index.json": json200(platformData(t, "betterstack", "huggingface-index-2026-07-19.json"))},
			kind:     betterstack.Kind,
			evidence: `/index.json is JSON:API with data.type "status_page" and aggregate_state (Better Stack shape)`,
		},
		{
			name:     "cachet incidents, the page itself a 404",
			routes:   map[string]detectRoute{"/api/v1/incidents": json200(platformData(t, "cachet", "synthetic-cachet-incidents.json"))},
			kind:     cachet.Kind,
			evidence: "/api/v1/incidents has meta.pagination and data[] of incidents with status codes (Cachet shape)",
		},
		{
			name:     "google cloud incidents.json",
			routes:   map[string]detectRoute{"/": page, "/incidents.json": json200(platformData(t, "google-cloud", "incidents-2-with-incident-report.json"))},
			kind:     gcp.Kind,
			evidence: "/incidents.json is an array of incidents with number, external_desc, begin and updates[] (Google Cloud shape)",
		},
		{
			name:     "slack current, all well",
			routes:   map[string]detectRoute{"/": page, "/api/v2.0.0/current": json200(platformData(t, "slack", "synthetic-slack-current-ok.json"))},
			kind:     slack.Kind,
			evidence: `/api/v2.0.0/current has status "ok" and active_incidents[] (Slack shape)`,
		},
		{
			name:     "slack current, an active incident",
			routes:   map[string]detectRoute{"/": page, "/api/v2.0.0/current": json200(platformData(t, "slack", "synthetic-slack-current-active.json"))},
			kind:     slack.Kind,
			evidence: `status "active"`,
		},
		{
			name:     "status.io page",
			routes:   map[string]detectRoute{"/": {ct: ctHTML, body: platformData(t, "statusio", "synthetic-statusio-page.html")}},
			kind:     statusio.Kind,
			evidence: "page names status.io page id 5b36dc6502d06804c08349f7",
		},
		{
			name:     "status.io history feed on the page's own domain",
			routes:   map[string]detectRoute{"/pages/5b36dc6502d06804c08349f7/rss": {ct: ctRSS, body: platformData(t, "statusio", "synthetic-statusio-feed.rss")}},
			path:     "/pages/5b36dc6502d06804c08349f7/rss",
			kind:     statusio.Kind,
			evidence: "URL is the status.io history feed /pages/5b36dc6502d06804c08349f7/rss",
		},
		{
			name:     "bespoke RSS feed",
			routes:   map[string]detectRoute{"/incidents.rss": {ct: ctRSS, body: platformData(t, "feed", "synthetic-yandex-cloud.rss")}},
			path:     "/incidents.rss",
			kind:     feed.Kind,
			evidence: "URL answers an RSS feed titled",
		},
		{
			name:     "a feed at a status.io-like path whose items link elsewhere is a feed",
			routes:   map[string]detectRoute{"/pages/5b36dc6502d06804c08349f8/rss": {ct: ctRSS, body: platformData(t, "statusio", "synthetic-statusio-feed.rss")}},
			path:     "/pages/5b36dc6502d06804c08349f8/rss",
			kind:     feed.Kind,
			evidence: `URL answers an RSS feed titled "GitLab System Status"`,
		},
		{
			name:     "statuspage history.atom with no JSON beside it is a feed",
			routes:   map[string]detectRoute{"/history.atom": {ct: ctAtom, body: platformData(t, "feed", "synthetic-statuspage-history.atom")}},
			path:     "/history.atom",
			kind:     feed.Kind,
			evidence: "URL answers an Atom feed",
		},
		{
			name:     "AWS all.rss",
			routes:   map[string]detectRoute{"/rss/all.rss": {ct: ctRSS, body: platformData(t, "aws", "all.rss")}},
			path:     "/rss/all.rss",
			kind:     aws.Kind,
			urlPath:  "/",
			evidence: `URL is rss/all.rss with generator "AWS Service Health Dashboard RSS Generator"`,
		},
		{
			name:     "Azure status feed, active",
			routes:   map[string]detectRoute{"/en-us/status/feed/": {ct: ctRSS, body: platformData(t, "azure", "status-feed-active-2026-07-23.xml")}},
			path:     "/en-us/status/feed/",
			kind:     azure.Kind,
			urlPath:  "/en-us/status/",
			evidence: `"Azure Status"`,
		},
		{
			name:     "Azure status feed, healthy and empty",
			routes:   map[string]detectRoute{"/en-us/status/feed/": {ct: ctRSS, body: platformData(t, "azure", "status-feed-healthy-empty.xml")}},
			path:     "/en-us/status/feed/",
			kind:     azure.Kind,
			urlPath:  "/en-us/status/",
			evidence: "Azure status feed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &detectServer{routes: tt.routes}
			ts := fetchtest.NewServer(t, srv)
			path := tt.path
			if path == "" {
				path = "/"
			}
			d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{}), HostRules: noHostRules}
			got, err := d.Detect(context.Background(), ts.URL+path)
			if err != nil {
				t.Fatalf("Detect: %v (requests %v)", err, srv.requests())
			}
			want := tt.urlPath
			if want == "" {
				want = path
			}
			t.Logf("%s\t%s\t%s", got.Kind, got.URL, got.Evidence)
			if got.Kind != tt.kind || got.URL != ts.URL+want {
				t.Errorf("got %s %s, want %s %s (evidence %q)", got.Kind, got.URL, tt.kind, ts.URL+want, got.Evidence)
			}
			if !strings.Contains(got.Evidence, tt.evidence) {
				t.Errorf("got evidence %q, want it to contain %q", got.Evidence, tt.evidence)
			}
			if strings.ContainsAny(got.Evidence, "\t\n") {
				t.Errorf("evidence %q holds a tab or newline", got.Evidence)
			}
			if n := len(srv.requests()); n > fetch.MaxDetectRequests {
				t.Errorf("%d requests, want at most %d: %v", n, fetch.MaxDetectRequests, srv.requests())
			}
		})
	}
}

// TestDetectLookAlikes: payloads of one platform served where another's would be, and
// servers that answer every path, are recognised as what they are or as nothing.
func TestDetectLookAlikes(t *testing.T) {
	github := platformData(t, "statuspage", "github-summary-2022-11-25.json")
	openai := platformData(t, "incident.io", "openai-statuspage-compat-summary-2026-07-22.json")
	tests := []struct {
		name     string
		routes   map[string]detectRoute
		catchAll *detectRoute
		kind     string // "" wants ErrNotDetected
	}{
		{
			name:     "catch-all 200 HTML",
			catchAll: &detectRoute{ct: ctHTML, body: htmlPage},
		},
		{
			name:     "catch-all 200 HTML served as JSON",
			catchAll: &detectRoute{ct: ctJSON, body: htmlPage},
		},
		{
			name:     "catch-all 200 {}",
			catchAll: &detectRoute{ct: ctJSON, body: []byte(`{}`)},
		},
		{
			name:     "catch-all 200 []",
			catchAll: &detectRoute{ct: ctJSON, body: []byte(`[]`)},
		},
		{
			name:     "catch-all 200 empty",
			catchAll: &detectRoute{ct: ctJSON},
		},
		{
			name:     "catch-all generic page JSON",
			catchAll: &detectRoute{ct: ctJSON, body: []byte(`{"page":{"id":"x","name":"Acme","status":"ok"},"status":{"indicator":"none"},"data":{"type":"page","id":"1"},"meta":{"pagination":{}},"active_incidents":[]}`)},
		},
		{
			name:   "nothing but 404",
			routes: map[string]detectRoute{},
		},
		{
			name:     "every path answers the Statuspage summary: Statuspage",
			catchAll: &detectRoute{ct: ctJSON, body: github},
			kind:     statuspage.Kind,
		},
		{
			name:     "every path answers incident.io's summary: incident.io, not Instatus",
			catchAll: &detectRoute{ct: ctJSON, body: openai},
			kind:     incidentio.Kind,
		},
		{
			name: "incident.io's summary at Instatus's /summary.json only: nothing",
			routes: map[string]detectRoute{
				"/": {ct: ctHTML, body: htmlPage}, "/summary.json": json200(openai),
			},
		},
		{
			name: "Statuspage page id with incident.io's components: nothing",
			routes: map[string]detectRoute{"/api/v2/summary.json": json200([]byte(
				`{"page":{"id":"kctbh9vrtdwd","name":"X"},"status":{"indicator":"none"},"incidents":[],"scheduled_maintenances":[],
				  "components":[{"id":"01JMXBRMFE4MAP2BHSJNZ787WX","name":"API","status":"operational","page_id":"kctbh9vrtdwd"}]}`))},
		},
		{
			name: "ULID page id with Statuspage's components: nothing",
			routes: map[string]detectRoute{"/api/v2/summary.json": json200([]byte(
				`{"page":{"id":"01JMDK9XYNY6RXSED6SDWW50WY","name":"X"},"status":{"indicator":"none"},
				  "components":[{"id":"01JMXBRMFE4MAP2BHSJNZ787WX","name":"API","status":"operational","group":false,"showcase":true}]}`))},
		},
		{
			name: "Instatus words beside a Statuspage status object: nothing",
			routes: map[string]detectRoute{"/api/v2/summary.json": json200([]byte(
				`{"page":{"name":"X","status":"UP"},"status":{"indicator":"none"}}`))},
		},
		{
			name: "JSON:API of another type: nothing",
			routes: map[string]detectRoute{"/index.json": json200([]byte(
				`{"data":{"id":"1","type":"article","attributes":{"aggregate_state":"operational"}}}`))},
		},
		{
			name: "a paginated list that is no Cachet: nothing",
			routes: map[string]detectRoute{"/api/v1/incidents": json200([]byte(
				`{"meta":{"pagination":{"total":1,"per_page":5,"current_page":1,"total_pages":1}},"data":[{"id":"a","title":"x"}]}`))},
		},
		{
			name: "an array of other objects at incidents.json: nothing",
			routes: map[string]detectRoute{"/incidents.json": json200([]byte(
				`[{"id":"1","name":"Incident","created_at":"2026-01-01T00:00:00Z"}]`))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &detectServer{routes: tt.routes, catchAll: tt.catchAll}
			ts := fetchtest.NewServer(t, srv)
			d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{}), HostRules: noHostRules}
			got, err := d.Detect(context.Background(), ts.URL+"/")
			if n := len(srv.requests()); n > fetch.MaxDetectRequests {
				t.Errorf("%d requests, want at most %d: %v", n, fetch.MaxDetectRequests, srv.requests())
			}
			// Probes of several platforms on one path share its request.
			seen := map[string]int{}
			for _, p := range srv.requests() {
				if seen[p]++; seen[p] == 2 && p != "/" {
					t.Errorf("%s requested twice, want once: %v", p, srv.requests())
				}
			}
			if tt.kind != "" {
				if err != nil || got.Kind != tt.kind {
					t.Fatalf("got %+v, %v; want kind %s", got, err, tt.kind)
				}
				return
			}
			if err == nil {
				t.Fatalf("got %+v, want an error", got)
			}
			if !errors.Is(err, fetch.ErrNotDetected) {
				t.Errorf("error %v does not match ErrNotDetected", err)
			}
			// The error says what was tried: every probe.
			for _, p := range []string{"page:", "/api/v2/summary.json:", "/summary.json:", "/index.json:", "/api/v1/incidents:", "/incidents.json:", "/api/v2.0.0/current:"} {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q does not say it tried %s", err, p)
				}
			}
		})
	}
}

// TestDetectErrorSaysWhy: the error of a catch-all HTML server names, per endpoint, what
// it answered.
func TestDetectErrorSaysWhy(t *testing.T) {
	srv := &detectServer{catchAll: &detectRoute{ct: ctHTML, body: htmlPage}, routes: map[string]detectRoute{
		"/index.json": {status: http.StatusNotFound},
	}}
	ts := fetchtest.NewServer(t, srv)
	d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{}), HostRules: noHostRules}
	_, err := d.Detect(context.Background(), ts.URL)
	if err == nil {
		t.Fatal("want an error")
	}
	t.Log(err)
	for _, want := range []string{
		"host rules (none for 127.0.0.1)",
		"page: 200 HTML, no platform header, not a feed, no status.io page id",
		"/api/v2/summary.json: got HTML, not JSON",
		"/index.json: HTTP 404 Not Found",
		"/incidents.json: got HTML, not JSON",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestDetectHostRules: an injected rule decides before any request, and its kind must be
// a registered one.
func TestDetectHostRules(t *testing.T) {
	srv := &detectServer{catchAll: &detectRoute{ct: ctHTML, body: htmlPage}}
	ts := fetchtest.NewServer(t, srv)
	rules := func(host string) (string, bool) {
		if host == "127.0.0.1" {
			return gcp.Kind, true
		}
		return "", false
	}
	d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{}), HostRules: rules}
	got, err := d.Detect(context.Background(), ts.URL+"/incidents.json?x=1#top")
	if err != nil {
		t.Fatal(err)
	}
	want := fetch.Detection{Kind: gcp.Kind, URL: ts.URL + "/", Evidence: "host rule: 127.0.0.1"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("a host rule made %d requests, want none", n)
	}

	d.HostRules = func(string) (string, bool) { return "nosuchkind", true }
	if _, err := d.Detect(context.Background(), ts.URL); err == nil || !strings.Contains(err.Error(), `unknown kind "nosuchkind"`) {
		t.Errorf("got %v, want an unknown-kind error", err)
	}

	d.HostRules = func(string) (string, bool) { return feed.Kind, true }
	got, err = d.Detect(context.Background(), ts.URL+"/history.atom")
	if err != nil || got.URL != ts.URL+"/history.atom" {
		t.Errorf("got %+v, %v; a feed's URL is the feed itself", got, err)
	}
}

// noNetwork fails any request: default host rules must decide without one.
type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("unexpected request to %s", r.URL)
	return nil, errors.New("no network in this test")
}

// TestDetectDefaultHostRules runs Detect with the default rules on the real hosts; no
// request is made, so nothing leaves the machine.
func TestDetectDefaultHostRules(t *testing.T) {
	d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{Transport: noNetwork{t}})}
	tests := []struct {
		in, kind, url, evidence string
	}{
		{"https://acme.statuspage.io", statuspage.Kind, "https://acme.statuspage.io", "host rule: *.statuspage.io"},
		{"https://acme.statuspage.io/api/v2/summary.json", statuspage.Kind, "https://acme.statuspage.io/", "host rule: *.statuspage.io"},
		{"https://status.cloud.google.com/incidents.json", gcp.Kind, "https://status.cloud.google.com/", "host rule: status.cloud.google.com"},
		{"https://health.aws.amazon.com/health/status", aws.Kind, "https://health.aws.amazon.com/health/status", "host rule: health.aws.amazon.com"},
		{"https://azure.status.microsoft/en-us/status/feed/", azure.Kind, "https://azure.status.microsoft/en-us/status/", "host rule: azure.status.microsoft"},
		{"https://azure.status.microsoft/en-us/status", azure.Kind, "https://azure.status.microsoft/en-us/status/", "host rule: azure.status.microsoft"},
		{"https://azure.status.microsoft/", azure.Kind, "https://azure.status.microsoft/en-us/status/", "host rule: azure.status.microsoft"},
		{"https://Slack-Status.com.", slack.Kind, "https://Slack-Status.com.", "host rule: slack-status.com"},
		{"https://statuspage.incident.io/lovable", incidentio.Kind, "https://statuspage.incident.io/lovable", "host rule: statuspage.incident.io"},
		{"https://testing-widget.instatus.com", instatus.Kind, "https://testing-widget.instatus.com", "host rule: *.instatus.com"},
		{"https://acme.betteruptime.com/index.json", betterstack.Kind, "https://acme.betteruptime.com/", "host rule: *.betteruptime.com"},
		{"https://letsencrypt.status.io/pages/55957a99e800baa4470002da/rss", statusio.Kind, "https://letsencrypt.status.io/pages/55957a99e800baa4470002da/rss", "host rule: *.status.io"},
	}
	for _, tt := range tests {
		got, err := d.Detect(context.Background(), tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if want := (fetch.Detection{Kind: tt.kind, URL: tt.url, Evidence: tt.evidence}); got != want {
			t.Errorf("%s: got %+v, want %+v", tt.in, got, want)
		}
	}
}

func TestDefaultHostRules(t *testing.T) {
	tests := []struct {
		host string
		kind string // "" wants no rule
	}{
		{"status.cloud.google.com", gcp.Kind},
		{"health.aws.amazon.com", aws.Kind},
		{"status.aws.amazon.com", aws.Kind},
		{"azure.status.microsoft", azure.Kind},
		{"status.azure.com", azure.Kind},
		{"slack-status.com", slack.Kind},
		{"status.slack.com", slack.Kind},
		{"status.incident.io", incidentio.Kind},
		{"statuspage.incident.io", incidentio.Kind},
		{"acme.statuspage.io", statuspage.Kind},
		{"ACME.StatusPage.io.", statuspage.Kind},
		{"jira-core.status.atlassian.com", statuspage.Kind},
		{"metastatuspage.com", statuspage.Kind},
		{"acme.instatus.com", instatus.Kind},
		{"acme.betteruptime.com", betterstack.Kind},
		{"status.betterstack.com", betterstack.Kind},
		{"letsencrypt.status.io", statusio.Kind},
		// The platforms' own sites, apps and APIs are no status page.
		{"www.statuspage.io", ""},
		{"api.statuspage.io", ""},
		{"statuspage.io", ""},
		{"dashboard.instatus.com", ""},
		{"instatus.com", ""},
		{"uptime.betterstack.com", ""},
		{"betterstack.com", ""},
		{"api.status.io", ""},
		{"status.io", ""},
		{"app.incident.io", ""},
		{"incident.io", ""},
		// Look-alike hosts.
		{"notstatuspage.io", ""},
		{"statuspage.io.evil.example", ""},
		{"status.cloud.google.com.evil.example", ""},
		{"www.githubstatus.com", ""},
		{"127.0.0.1", ""},
		{"", ""},
	}
	for _, tt := range tests {
		kind, ok := fetch.DefaultHostRules(tt.host)
		if ok != (tt.kind != "") || kind != tt.kind {
			t.Errorf("DefaultHostRules(%q) = %q, %v; want %q", tt.host, kind, ok, tt.kind)
		}
	}
	// Every host a platform declares is recognised as that platform, and no two
	// platforms declare the same host or suffix.
	owner := map[string]string{}
	for _, kind := range fetch.Kinds() {
		p, _ := fetch.Lookup(kind)
		for _, h := range append(slices.Clone(p.Hosts), p.HostSuffixes...) {
			if o, dup := owner[h]; dup {
				t.Errorf("host rule %s declared by %s and %s", h, o, p.Kind)
			}
			owner[h] = p.Kind
		}
		for _, h := range p.Hosts {
			if kind, ok := fetch.DefaultHostRules(h); !ok || kind != p.Kind {
				t.Errorf("DefaultHostRules(%q) = %q, %v; want %q", h, kind, ok, p.Kind)
			}
		}
	}
}

// TestDetectBadInput: what is no page URL, and a Detector without client.
func TestDetectBadInput(t *testing.T) {
	d := &fetch.Detector{HostRules: noHostRules}
	for _, in := range []string{"", "status.example.com", "ftp://status.example.com/", "http://%zz"} {
		if _, err := d.Detect(context.Background(), in); err == nil {
			t.Errorf("Detect(%q): want an error", in)
		}
	}
	if _, err := d.Detect(context.Background(), "http://127.0.0.1:1/"); err == nil || !strings.Contains(err.Error(), "no client") {
		t.Errorf("got %v, want a no-client error", err)
	}
}

// TestDetectUnreachable: a page that cannot be read at all fails at once, without the
// probes, and the error names the URL but not its password.
func TestDetectUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	u := ts.URL
	ts.Close()
	u = strings.Replace(u, "http://", "http://user:s3cret@", 1)
	d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{Timeout: 2 * time.Second}), HostRules: noHostRules}
	_, err := d.Detect(context.Background(), u)
	if err == nil {
		t.Fatal("want an error")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q shows the password", err)
	}
	if errors.Is(err, fetch.ErrNotDetected) {
		t.Errorf("error %q: unreachable is not 'not detected'", err)
	}
}

// TestDetectHeadersSentNotShown: the detector's headers go with every request and never
// into the error.
func TestDetectHeadersSentNotShown(t *testing.T) {
	var mu sync.Mutex
	var missing []string
	ts := fetchtest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-123" {
			mu.Lock()
			missing = append(missing, r.URL.Path)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", ctHTML)
		w.Write(htmlPage)
	}))
	d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{}), HostRules: noHostRules, Headers: map[string]string{"Authorization": "Bearer tok-123"}}
	_, err := d.Detect(context.Background(), ts.URL)
	if err == nil || strings.Contains(err.Error(), "tok-123") {
		t.Errorf("got %v; want an error that does not show the header", err)
	}
	if len(missing) > 0 {
		t.Errorf("requests without the header: %v", missing)
	}
}

// TestDetectCancelled: a cancelled context ends the detection with its error.
func TestDetectCancelled(t *testing.T) {
	srv := &detectServer{catchAll: &detectRoute{ct: ctHTML, body: htmlPage}}
	ts := fetchtest.NewServer(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{}), HostRules: noHostRules}
	if _, err := d.Detect(ctx, ts.URL); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestDetectBodyCap: probes read through the client's body cap; an answer over it is a
// failed probe, not a crash or a detection.
func TestDetectBodyCap(t *testing.T) {
	srv := &detectServer{routes: map[string]detectRoute{
		"/":                    {ct: ctHTML, body: htmlPage},
		"/api/v2/summary.json": json200(platformData(t, "statuspage", "github-summary-2022-11-25.json")),
	}}
	ts := fetchtest.NewServer(t, srv)
	d := &fetch.Detector{Client: fetchtest.MustClient(t, fetch.ClientOptions{MaxBody: 1024}), HostRules: noHostRules}
	_, err := d.Detect(context.Background(), ts.URL)
	if err == nil || !strings.Contains(err.Error(), "/api/v2/summary.json: response exceeds 1024 bytes") {
		t.Errorf("got %v, want the summary probe to fail on the cap", err)
	}
}
