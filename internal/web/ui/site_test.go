package ui

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The pages are tested end to end through the server in internal/web, which routes them
// and sets the headers every answer carries (golden pages, browser tests); the tests here
// need what only this package can reach.

var now = time.Date(2026, 7, 1, 14, 0, 0, 0, time.UTC)

// newSite serves an empty archive in a temp dir without a daemon.
func newSite(t *testing.T) (*Site, *archive.Store) {
	t.Helper()
	store, err := archive.Open(filepath.Join(t.TempDir(), "watcher.db"), archive.Options{NoSync: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatalf("archive.Open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	s := New(Options{Store: store, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return now },
		Title: func(source string) string { return source }})
	return s, store
}

// serve calls h for a GET of target with the path values given as name, value pairs.
func serve(h http.HandlerFunc, target string, header http.Header, pathValues ...string) *http.Response {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header = header
	for i := 0; i+1 < len(pathValues); i += 2 {
		req.SetPathValue(pathValues[i], pathValues[i+1])
	}
	rec := httptest.NewRecorder()
	h(rec, req)
	return rec.Result()
}

func bodyOf(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParkedBanner(t *testing.T) {
	s, store := newSite(t)
	t0 := now.Add(-2 * time.Hour)
	snap := &model.Snapshot{Source: "acme", FetchedAt: t0, Listings: []model.Listing{{Kind: model.KindIncident}},
		Incidents: []model.Incident{
			{ID: "inc-a", Kind: model.KindIncident, Status: model.StatusInvestigating, Title: "API errors", StartedAt: t0},
			{ID: "inc-b", Kind: model.KindIncident, Status: model.StatusInvestigating, Title: "Database latency", StartedAt: t0},
		}}
	if _, err := store.Record("acme", snap, nil, nil, archive.Policy{}); err != nil {
		t.Fatal(err)
	}
	pages := map[string]func() *http.Response{
		"/": func() *http.Response { return serve(s.Dashboard, "/", nil) },
		"/incidents/acme/inc-a": func() *http.Response {
			return serve(s.Incident, "/incidents/acme/inc-a", nil, "source", "acme", "id", "inc-a")
		},
		"/search": func() *http.Response { return serve(s.Search, "/search", nil) },
	}
	s.parked.ttl = 0 // count on every page
	const banner = "parked.</strong>"
	if strings.Contains(bodyOf(t, pages["/"]()), banner) {
		t.Fatal("a banner with nothing parked")
	}
	msgs, err := store.Messages(model.MessagePending)
	if err != nil || len(msgs) < 2 {
		t.Fatalf("messages: %v %v", msgs, err)
	}
	for _, m := range msgs[:2] {
		if err := store.MarkAttempt(m.ID, "channel_not_found", true); err != nil {
			t.Fatal(err)
		}
	}
	for p, get := range pages {
		body := bodyOf(t, get())
		if !strings.Contains(body, "2 Slack messages are parked.</strong>") || !strings.Contains(body, "watcher outbox retry ID") {
			t.Errorf("%s: no banner for 2 parked messages", p)
		}
	}
	// With the cache of a running server, the count is reused for a while.
	s.parked.ttl = time.Hour
	pages["/"]()
	if err := store.Retry(msgs[0].ID); err != nil {
		t.Fatal(err)
	}
	if body := bodyOf(t, pages["/"]()); !strings.Contains(body, "2 Slack messages are parked.") {
		t.Errorf("the count was not reused")
	}
}

func TestStatic(t *testing.T) {
	s, _ := newSite(t)
	get := func(name, query string, header http.Header) *http.Response {
		return serve(s.Static, "/static/"+name+query, header, "file", name)
	}
	for name, ctype := range map[string]string{"style.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
		"favicon.svg": "image/svg+xml"} {
		r := get(name, "?v="+assetVersions()[name], nil)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", name, r.StatusCode)
		}
		if got := r.Header.Get("Content-Type"); got != ctype {
			t.Errorf("%s: Content-Type: got %q, want %q", name, got, ctype)
		}
		if got := r.Header.Get("Cache-Control"); !strings.Contains(got, "immutable") {
			t.Errorf("%s with its version: Cache-Control %q", name, got)
		}
		if got := get(name, "", nil).Header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("%s without its version: Cache-Control %q, want no-cache", name, got)
		}
		etag := r.Header.Get("ETag")
		if r := get(name, "", http.Header{"If-None-Match": {etag}}); r.StatusCode != http.StatusNotModified {
			t.Errorf("%s with If-None-Match: got %d, want 304", name, r.StatusCode)
		}
	}
	for _, name := range []string{"nope.css", "../render.go"} {
		if r := get(name, "", nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: got %d, want 404", name, r.StatusCode)
		}
	}
}

// TestTemplatesParse parses every page template, which the package does only on first use.
func TestTemplatesParse(t *testing.T) {
	for _, name := range pageNames {
		if pageTemplates()[name] == nil {
			t.Errorf("no template for page %q", name)
		}
	}
	if len(assetVersions()) == 0 {
		t.Error("no static assets")
	}
}
