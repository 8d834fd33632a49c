package web

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/atom"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/ui"
)

// goldenRaw compares got with testdata/name byte for byte, or rewrites it with -update.
func goldenRaw(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the page renders now (go test -update rewrites it; review with git diff):\n%s",
			path, firstDifference(string(want), string(got)))
	}
}

// firstDifference shows the first line where want and got part.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl
		}
	}
	return "(no line differs)"
}

// seedSources is the daemon's view of the seeded archive's sources.
func seedSources() []SourceStatus {
	return []SourceStatus{
		{Name: "acme", Title: "Acme", URL: "https://status.acme.test", Kind: "statuspage", LastPollAt: now.Add(-30 * time.Second), LastSuccessAt: now.Add(-30 * time.Second)},
		{Name: "beta", Title: "Beta", URL: "https://user:hunter2@status.beta.test/history.atom", Kind: "feed", LastPollAt: now.Add(-time.Minute),
			LastSuccessAt: now.Add(-20 * time.Minute), ConsecutiveFailures: 2, LastError: "GET https://status.beta.test/history.atom: timeout"},
		{Name: "gamma", Title: "Gamma", URL: "https://status.gamma.test", Kind: "statuspage", Paused: true},
	}
}

// htmlGet fetches a page as a browser would and checks what every page carries.
func (e *env) htmlGet(path string, want int) response {
	e.tb.Helper()
	r := e.do(http.MethodGet, path, http.Header{"Accept": {"text/html,application/xhtml+xml"}})
	if r.status != want {
		e.tb.Fatalf("GET %s: status: got %d, want %d; body %s", path, r.status, want, r.body)
	}
	if got := r.header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		e.tb.Errorf("GET %s: Content-Type: got %q", path, got)
	}
	if got := r.header.Get("Content-Security-Policy"); got != ui.ContentSecurityPolicy {
		e.tb.Errorf("GET %s: Content-Security-Policy: got %q, want %q", path, got, ui.ContentSecurityPolicy)
	}
	if !strings.HasPrefix(string(r.body), "<!doctype html>\n<html lang=\"en\">") {
		e.tb.Errorf("GET %s: not a page: %.80s", path, r.body)
	}
	return r
}

func TestPagesGolden(t *testing.T) {
	e := newEnv(t).seed()
	e.daemon.SourcesFn = seedSources
	tests := []struct{ name, path string }{
		{"dashboard", "/"},
		{"source", "/sources/acme"},
		{"source_failing", "/sources/beta"},
		{"source_paused", "/sources/gamma"},
		{"incident", "/incidents/acme/inc-a"},
		{"incident_maintenance", "/incidents/acme/mnt-1"},
		{"incident_hashed_id", "/incidents/beta/" + betaID},
		{"change_first", "/incidents/acme/inc-a/changes/1"},
		{"change_last", "/incidents/acme/inc-a/changes/3"},
		{"compare", "/incidents/acme/inc-a/diff?from=1&to=3"},
		{"compare_from_nothing", "/incidents/acme/inc-a/diff?from=0&to=2"},
		{"search", "/search?q=DEPLOY+api"},
		{"search_removed", "/search?q=intermittent"},
		{"search_empty", "/search"},
		{"not_found", "/incidents/acme/nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := http.StatusOK
			if tt.name == "not_found" {
				want = http.StatusNotFound
			}
			r := e.htmlGet(tt.path, want)
			goldenRaw(t, "page_"+tt.name+".html", r.body)
		})
	}
}

func TestFeedsGolden(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.BaseURL = "https://watch.example.com" }).seed()
	e.daemon.SourcesFn = seedSources
	for _, tt := range []struct{ name, path string }{
		{"feed", "/feed.atom"},
		{"feed_source", "/sources/beta/feed.atom"},
		{"feed_empty_source", "/sources/gamma/feed.atom"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(tt.path, http.StatusOK)
			if got := r.header.Get("Content-Type"); got != "application/atom+xml; charset=utf-8" {
				t.Errorf("Content-Type: got %q", got)
			}
			var f atom.Feed
			if err := xml.Unmarshal(r.body, &f); err != nil {
				t.Fatalf("not XML: %v", err)
			}
			goldenRaw(t, tt.name+".atom", r.body)
		})
	}
}

// TestFeedBaseURL checks that a feed's links are under BaseURL and its ids name its host,
// and that without BaseURL the ids stay the same whatever address the reader uses.
func TestFeedBaseURL(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.BaseURL = "https://watch.example.com/status/" }).seed()
	var f atom.Feed
	r := e.get("/feed.atom", http.StatusOK)
	if err := xml.Unmarshal(r.body, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 5 { // 3 changes after a first poll, and each source's first poll
		t.Fatalf("got %d entries, want 5 (every change of the seed, a first poll as one)", len(f.Entries))
	}
	first := f.Entries[0]
	if want := "tag:watch.example.com,2026-07-01:acme/inc-a/3"; first.ID != want {
		t.Errorf("id: got %q, want %q", first.ID, want)
	}
	if want := "https://watch.example.com/status/incidents/acme/inc-a/changes/3"; first.Links[0].Href != want {
		t.Errorf("link: got %q, want %q", first.Links[0].Href, want)
	}
	if want := "https://watch.example.com/status/feed.atom"; f.Links[0].Href != want {
		t.Errorf("self: got %q, want %q", f.Links[0].Href, want)
	}

	plain := newEnv(t).seed()
	ids := func(host string) []string {
		req, _ := http.NewRequest(http.MethodGet, plain.http.URL+"/feed.atom", nil)
		req.Host = host
		resp, err := plain.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var f atom.Feed
		if err := xml.NewDecoder(resp.Body).Decode(&f); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range f.Entries {
			out = append(out, e.ID)
			if !strings.HasPrefix(e.Links[0].Href, "http://"+host+"/incidents/") && !strings.HasPrefix(e.Links[0].Href, "http://"+host+"/sources/") {
				t.Errorf("link %q: want it under the address asked, %s", e.Links[0].Href, host)
			}
		}
		return out
	}
	a, b := ids("localhost:8080"), ids("127.0.0.1:9999")
	if strings.Join(a, " ") != strings.Join(b, " ") || !strings.HasPrefix(a[0], "tag:localhost,") {
		t.Errorf("ids depend on the address: %q vs %q", a, b)
	}
}

// TestPageLinksUnderBaseURL checks that a UI served under a path links under it.
func TestPageLinksUnderBaseURL(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.BaseURL = "https://example.com/watch" }).seed()
	body := string(e.htmlGet("/incidents/acme/inc-a", http.StatusOK).body)
	for _, want := range []string{`href="/watch/static/style.css?v=`, `href="/watch/sources/acme"`, `href="/watch/incidents/acme/inc-a/changes/3"`, `action="/watch/search"`} {
		if !strings.Contains(body, want) {
			t.Errorf("want %s in the page", want)
		}
	}
	if strings.Contains(body, `href="/sources/`) || strings.Contains(body, `href="/incidents/`) {
		t.Errorf("a link escapes the prefix")
	}
}

func TestPageErrors(t *testing.T) {
	e := newEnv(t).seed()
	e.daemon.SourcesFn = seedSources
	tests := []struct {
		name, path string
		want       int
		message    string
	}{
		{"unknown source", "/sources/nope", http.StatusNotFound, "No source is named nope"},
		{"unknown incident", "/incidents/acme/nope", http.StatusNotFound, "No incident nope is archived for acme."},
		{"incident of an unknown source", "/incidents/nope/inc-a", http.StatusNotFound, "No incident inc-a"},
		{"change 0", "/incidents/acme/inc-a/changes/0", http.StatusNotFound, "Changes are numbered from 1"},
		{"change not a number", "/incidents/acme/inc-a/changes/x", http.StatusNotFound, "Changes are numbered from 1"},
		{"change beyond the last", "/incidents/acme/inc-a/changes/4", http.StatusNotFound, "There is no change 4"},
		{"compare, bad from", "/incidents/acme/inc-a/diff?from=x", http.StatusBadRequest, "from: want a version number"},
		{"compare, to 0", "/incidents/acme/inc-a/diff?to=0", http.StatusBadRequest, "to: want a version number from 1 on"},
		{"compare, beyond the last", "/incidents/acme/inc-a/diff?from=1&to=9", http.StatusNotFound, "there is no version 9"},
		{"compare, unknown incident", "/incidents/acme/nope/diff", http.StatusNotFound, "No incident nope"},
		{"source page, bad cursor", "/sources/acme?before=nope", http.StatusBadRequest, "before: not a cursor"},
		{"source page, a cursor of the API", "/sources/acme?before=" + param.Cursor(incidentsCursor, "2026-07-01T12:00:00Z", "acme", "inc-a"), http.StatusBadRequest, "before: not a cursor"},
		{"unrouted path, from a browser", "/nope", http.StatusNotFound, "There is no page at this address."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.htmlGet(tt.path, tt.want)
			if !strings.Contains(string(r.body), tt.message) {
				t.Errorf("got\n%s\nwant it to say %q", r.body, tt.message)
			}
		})
	}
	t.Run("unknown source feed", func(t *testing.T) {
		e.get("/sources/nope/feed.atom", http.StatusNotFound)
	})
	t.Run("wrong method, from a browser", func(t *testing.T) {
		r := e.do(http.MethodPost, "/search", http.Header{"Accept": {"text/html"}})
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD" ||
			!strings.Contains(string(r.body), "cannot be asked for with POST") {
			t.Errorf("got %d Allow %q\n%s", r.status, r.header.Get("Allow"), r.body)
		}
	})
	t.Run("archive failure", func(t *testing.T) {
		broken := newEnv(t).seed()
		if err := broken.store.Close(); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/", "/sources/acme", "/incidents/acme/inc-a", "/incidents/acme/inc-a/changes/1", "/search?q=x"} {
			r := broken.htmlGet(path, http.StatusInternalServerError)
			if strings.Contains(string(r.body), broken.store.Path()) || strings.Contains(string(r.body), "database not open") {
				t.Errorf("%s: the page tells internals", path)
			}
		}
	})
}

// TestPagesNeedAuth checks that every UI route, the static files included, is behind
// web.auth, and that a page with credentials shows no secret.
func TestPagesNeedAuth(t *testing.T) {
	const token = "ui-bearer-secret-0123456789"
	e := newEnv(t, func(o *Options) { o.Auth = config.Auth{BearerToken: config.NewSecret(token)} }).seed()
	paths := []string{"/", "/sources/acme", "/incidents/acme/inc-a", "/incidents/acme/inc-a/changes/1",
		"/incidents/acme/inc-a/diff", "/search?q=api", "/feed.atom", "/sources/acme/feed.atom", "/static/style.css"}
	for _, p := range paths {
		if r := e.do(http.MethodGet, p, nil); r.status != http.StatusUnauthorized {
			t.Errorf("%s without credentials: got %d, want 401", p, r.status)
		}
		r := e.do(http.MethodGet, p, http.Header{"Authorization": {"Bearer " + token}})
		if r.status != http.StatusOK {
			t.Errorf("%s with credentials: got %d, want 200", p, r.status)
		}
		if strings.Contains(string(r.body), token) {
			t.Errorf("%s: the page shows the token", p)
		}
	}
}

func TestSourceURLRedacted(t *testing.T) {
	e := newEnv(t).seed()
	e.daemon.SourcesFn = seedSources
	for _, p := range []string{"/", "/sources/beta"} {
		if body := string(e.htmlGet(p, http.StatusOK).body); strings.Contains(body, "hunter2") {
			t.Errorf("%s shows the password of a source URL", p)
		}
	}
}

// TestSourcePaging lists a source with many incidents a page at a time.
func TestSourcePaging(t *testing.T) {
	e := newEnv(t)
	var incs []model.Incident
	for i := range 130 {
		incs = append(incs, model.Incident{ID: fmt.Sprintf("i%03d", i), Kind: model.KindIncident,
			Status: model.StatusResolved, Impact: model.ImpactMinor, Title: "Incident " + strconv.Itoa(i),
			StartedAt: t0.Add(-time.Duration(i) * time.Hour), ResolvedAt: t0.Add(-time.Duration(i)*time.Hour + 10*time.Minute)})
	}
	e.record("many", t0, incs)
	first := string(e.htmlGet("/sources/many", http.StatusOK).body)
	if n := strings.Count(first, `<tr>`) - 1; n != param.DefaultLimit {
		t.Fatalf("first page: %d rows, want %d", n, param.DefaultLimit)
	}
	i := strings.Index(first, `rel="next"`)
	j := strings.LastIndex(first[:i], `href="`)
	next := strings.ReplaceAll(first[j+len(`href="`):i-2], "&amp;", "&")
	second := string(e.htmlGet(next, http.StatusOK).body)
	if n := strings.Count(second, `<tr>`) - 1; n != 30 {
		t.Errorf("second page: %d rows, want 30", n)
	}
	if !strings.Contains(second, ">Incident 129<") || strings.Contains(second, ">Incident 99<") || strings.Contains(second, `rel="next"`) {
		t.Errorf("second page: want incidents 100 to 129 and no next page")
	}
}

// TestIncidentHistoryPaging checks that a long history is listed a page at a time, and
// that the compare page still offers every version.
func TestIncidentHistoryPaging(t *testing.T) {
	const historyPage = 100 // the changes the incident page lists at a time
	e := newEnv(t)
	inc := incA(1)
	for i := range historyPage + 5 {
		inc.Updates[0].Body = fmt.Sprintf("Edit %d.", i)
		e.record("acme", t0.Add(time.Duration(i)*time.Minute), []model.Incident{inc})
	}
	first := string(e.htmlGet("/incidents/acme/inc-a", http.StatusOK).body)
	if n := strings.Count(first, `class="history-link"`); n != historyPage {
		t.Errorf("first page: %d changes, want %d", n, historyPage)
	}
	if !strings.Contains(first, `href="/incidents/acme/inc-a?before=6#history-h" rel="next"`) || !strings.Contains(first, "105 versions") {
		t.Errorf("first page: no link to the older changes, or the wrong count")
	}
	older := string(e.htmlGet("/incidents/acme/inc-a?before=6", http.StatusOK).body)
	if n := strings.Count(older, `class="history-link"`); n != 5 {
		t.Errorf("second page: %d changes, want 5", n)
	}
	if !strings.Contains(older, "/changes/5\"") || strings.Contains(older, "/changes/6\"") || strings.Contains(older, `rel="next"`) {
		t.Errorf("second page: want changes 1 to 5 and no older page")
	}
	// The incident as it is now, whatever the page of history.
	if !strings.Contains(older, "Edit 104.") {
		t.Errorf("second page: the updates are not the latest version's")
	}
	e.htmlGet("/incidents/acme/inc-a?before=1", http.StatusBadRequest)
	e.htmlGet("/incidents/acme/inc-a?before=x", http.StatusBadRequest)

	compare := string(e.htmlGet("/incidents/acme/inc-a/diff?from=3&to=105", http.StatusOK).body)
	if n := strings.Count(compare, "<option "); n != 2*105+1 {
		t.Errorf("compare: %d options, want %d", n, 2*105+1)
	}
	if !strings.Contains(compare, `<option value="3" selected>Version 3 · 2026-07-01 12:02:00 UTC</option>`) {
		t.Errorf("compare: version 3 not selected and named by its time")
	}
}
