package web

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestPageHeadAndFooter: every page links its own JSON twin (footer and <link>), every
// page with a feed announces it, the pages that follow live data refresh themselves
// (more often while something is open), and the main navigation marks only the page it
// names.
func TestPageHeadAndFooter(t *testing.T) {
	e := newEnv(t).seed()
	e.daemon.SourcesFn = seedSources
	footJSON := regexp.MustCompile(`<a href="([^"]*)">JSON API</a>`)
	tests := []struct {
		path, json, feed string
		refresh          string // the meta element's content, "" for none
		nav              string // the item marked aria-current, "" for none
	}{
		{"/", "/api/v1/incidents?open=true", "/feed.atom", "60", "Overview"},
		{"/sources/acme", "/api/v1/incidents?source=acme", "/sources/acme/feed.atom", "60", ""},
		{"/sources/beta", "/api/v1/incidents?source=beta", "/sources/beta/feed.atom", "60", ""},
		{"/sources/gamma", "/api/v1/incidents?source=gamma", "/sources/gamma/feed.atom", "300", ""},
		{"/incidents/acme/inc-a", "/api/v1/incidents/acme/inc-a", "/sources/acme/feed.atom", "300", ""},
		{"/incidents/acme/inc-a/changes/2", "/api/v1/incidents/acme/inc-a/versions/2", "/sources/acme/feed.atom", "", ""},
		{"/incidents/acme/inc-a/diff?from=1&to=3", "/api/v1/incidents/acme/inc-a/diff?from=1&to=3", "/sources/acme/feed.atom", "", ""},
		{"/search?q=deploy", "/api/v1/incidents?q=deploy", "", "", "Search"},
		{"/search", "/api/v1/incidents", "", "", "Search"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			page := string(e.htmlGet(tt.path, http.StatusOK).body)
			m := footJSON.FindStringSubmatch(page)
			if m == nil {
				t.Fatalf("no JSON API link in the footer")
			}
			for _, link := range []string{`<a href="/api/v1/openapi.json">OpenAPI</a>`, `<a href="/maintenance.ics">Maintenance calendar</a>`} {
				if !strings.Contains(page, link) {
					t.Errorf("no %s in the footer", link)
				}
			}
			if got := html.UnescapeString(m[1]); got != tt.json {
				t.Errorf("JSON API link: got %q, want %q", got, tt.json)
			}
			if tt.json != "/api/v1/incidents" {
				if want := `<link rel="alternate" type="application/json" title="This page as JSON" href="` + html.EscapeString(tt.json) + `">`; !strings.Contains(strings.ReplaceAll(page, "&amp;", "&#38;"), strings.ReplaceAll(want, "&amp;", "&#38;")) {
					t.Errorf("want %s in the head", want)
				}
				if r := e.get(tt.json, http.StatusOK); !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
					t.Errorf("GET %s: Content-Type %q, want JSON", tt.json, r.header.Get("Content-Type"))
				}
			}
			feedLink := `<link rel="alternate" type="application/atom+xml" title="Changes (Atom)" href="` + tt.feed + `">`
			if got := strings.Contains(page, feedLink); got != (tt.feed != "") {
				t.Errorf("feed link %q in the head: got %v, want %v", tt.feed, got, tt.feed != "")
			}
			refresh := regexp.MustCompile(`<meta name="statuswatch-refresh" content="(\d+)">`).FindStringSubmatch(page)
			got := ""
			if refresh != nil {
				got = refresh[1]
			}
			if got != tt.refresh {
				t.Errorf("refresh: got %q, want %q", got, tt.refresh)
			}
			if strings.Contains(page, "<script>") || strings.Contains(page, " on") && regexp.MustCompile(`\son[a-z]+=`).MatchString(page) {
				t.Errorf("the page has inline script")
			}
			var current []string
			for _, m := range regexp.MustCompile(`<a href="[^"]*" aria-current="page">([^<]*)</a>`).FindAllStringSubmatch(page, -1) {
				current = append(current, m[1])
			}
			if want := tt.nav; strings.Join(current, ",") != want {
				t.Errorf("navigation marked current: got %q, want %q", current, want)
			}
		})
	}
}
