// Package e2e holds end-to-end tests that run the real watcher binary against local test
// servers, one per status-page platform.
package e2e

// TestEveryPlatformEndToEnd is the end-to-end test of issue 4 ("an end-to-end test per
// platform steps one incident through new → update → resolved and checks the versions and
// notifications"): it generalises cmd/watcher/e2e_test.go, which does this for Statuspage,
// to every provider kind. For each kind an httptest server on 127.0.0.1 serves that
// platform's endpoints, built here in the shape of the platform's real format (each case
// says where its shape comes from), in three states:
//
//  1. the incident is new (investigating, open);
//  2. the same incident with one more update;
//  3. the incident resolved, the way the platform says it: a resolved status on history
//     platforms, a resolution post or feed entry where an open-only list is backed by a
//     history (Instatus history.atom, status.io RSS, AWS all.rss), and mere absence on Azure,
//     whose feed lists open issues only: the archive resolves an open-only incident when two
//     well-formed polls in a row lack it, so that state is polled twice.
//
// After each state `watcher poll` runs once (twice for inferred resolution) and its console
// output must hold exactly the one notification the step calls for, then a last, unchanged
// poll must print nothing. `watcher incidents` gives the incident's URL id (never guessed:
// feed entry ids are hashed), `watcher history` must list three versions (one per state;
// on Azure the third is the inferred resolution) and `watcher diff <ref> 0 1` must show the
// first version's fields as new ("Before: not present").

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// title is the incident's title on every platform.
const title = "Elevated API error rates"

// t0 is when the incident starts. Times are fixed, so no run depends on the clock.
var t0 = time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)

// stage is one update of the incident's timeline, in Statuspage's status words; each
// platform below writes it in its own.
type stage struct {
	status string
	label  string // the word as feeds and pages display it
	body   string
	min    int // minutes after t0
}

var stages = [3]stage{
	{"investigating", "Investigating", "We are investigating elevated error rates on the API.", 0},
	{"identified", "Identified", "The cause is a faulty deploy of the API gateway; we are rolling it back.", 20},
	{"resolved", "Resolved", "The rollback is complete and error rates are back to normal.", 45},
}

// at is when update i was posted.
func at(i int) time.Time { return t0.Add(time.Duration(stages[i].min) * time.Minute) }

// rfc writes the time of update i as RFC 3339 in UTC.
func rfc(i int) string { return at(i).Format(time.RFC3339) }

// resp is one endpoint's answer.
type resp struct {
	ct   string
	body []byte
}

// routes is what a platform serves in one state: URL path → answer. Queries are ignored.
type routes map[string]resp

func jsonResp(v any) resp {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return resp{ct: "application/json; charset=utf-8", body: b}
}

func textResp(ct, s string) resp { return resp{ct: ct, body: []byte(s)} }

// vendor is the test server: it answers the routes of the current state, with an ETag and
// 304s unless the platform sends none (incident.io), and notes the paths it did not serve.
type vendor struct {
	etags bool

	mu      sync.Mutex
	routes  routes
	missing []string
	full    []string // paths answered with a body (not 304) since the last take
}

// takeFull returns the paths answered with a body since the last call.
func (v *vendor) takeFull() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.full
	v.full = nil
	return out
}

func (v *vendor) set(r routes) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.routes = r
}

func (v *vendor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	rt, ok := v.routes[r.URL.Path]
	if !ok {
		v.missing = append(v.missing, r.URL.Path)
	}
	v.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if v.etags {
		sum := sha256.Sum256(rt.body)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	v.mu.Lock()
	v.full = append(v.full, r.URL.Path)
	v.mu.Unlock()
	w.Header().Set("Content-Type", rt.ct)
	w.Write(rt.body)
}

// platform is one provider kind's case.
type platform struct {
	kind string
	// noETag: the platform sends no validators; the body hash recognises an unchanged answer.
	noETag bool
	// inferred: resolution is inferred from absence, so the resolved state is polled twice
	// and only the second poll announces it.
	inferred bool
	// source gives the source's url and endpoint overrides for the server at u.
	source func(u string) (string, map[string]string)
	// page gives what the server at u serves in state n (0 new, 1 updated, 2 resolved).
	page func(u string, n int) routes
}

// atRoot is the source of a platform served at the server's root.
func atRoot(u string) (string, map[string]string) { return u + "/", nil }

var platforms = []platform{
	// Shape: Atlassian Statuspage API v2 as in the testdata/statuspage of
	// internal/fetch/platform/statuspage (github-incidents-2026-08-top5.json,
	// claude-summary-active-incident-2026-07-29.json):
	// incidents.json, scheduled-maintenances.json and summary.json, updates newest first.
	{kind: "statuspage", source: atRoot, page: statuspagePage},
	// Shape: incident.io's Statuspage-compatible API as in testdata/incident.io
	// (openai-statuspage-compat-summary-2026-07-22.json: ULIDs, empty lists left out, no
	// ETag) and its feed.atom as in synthetic-incidentio-feed.atom, which gives components.
	{kind: "incidentio", noETag: true, source: atRoot, page: incidentioPage},
	// Shape: Instatus summary.json as in testdata/instatus/perplexity-summary-2026-07-23.json
	// (open items only; an empty list left out) and history.atom as in
	// synthetic-instatus-history.atom (a <p> per update, oldest first). Resolution: the
	// summary drops the incident and the feed's entry says Resolved, which the adapter
	// takes at once (no inference needed).
	{kind: "instatus", source: atRoot, page: instatusPage},
	// Shape: Better Stack index.json (JSON:API) as in
	// testdata/betterstack/huggingface-index-2026-07-19.json: status_page data, included
	// resources, status_report and status_update objects.
	{kind: "betterstack", source: atRoot, page: betterstackPage},
	// Shape: Cachet 2.x API v1 as in testdata/cachet/synthetic-cachet-incidents.json and
	// synthetic-cachet-components.json: status codes, "Y-m-d H:i:s" times, updates newest first.
	{kind: "cachet", source: atRoot, page: cachetPage},
	// Shape: status.io Public Status API as in testdata/statusio/synthetic-statusio-status.json,
	// the page's RSS history as in synthetic-statusio-feed.rss, and the page itself as in
	// synthetic-statusio-page.html (read once for the page id). The API lives on another
	// host, so endpoints.status points it at the test server. Resolution: the API stops
	// listing the incident and the feed has its closing item.
	{kind: "statusio", source: func(u string) (string, map[string]string) {
		return u + "/", map[string]string{"status": u + "/1.0/status/{id}"}
	}, page: statusioPage},
	// Shape: Google Cloud incidents.json as in
	// testdata/google-cloud/incidents-2-with-incident-report.json: one array, updates
	// newest first without ids, "end" set once over.
	{kind: "gcp", source: atRoot, page: gcpPage},
	// Shape: AWS all.rss as in testdata/aws/all.rss (guid …#<service>_<unix>, titles
	// "<level>: <summary>") and public/currentevents as in
	// health-public-currentevents-2026-08-01.utf16be.json (UTF-16 BE with a BOM). Both live
	// on other hosts than the dashboard: endpoints.rss and endpoints.currentevents point
	// them at paths of the test server that differ from the derived ones, so an ignored
	// override fails the poll. Resolution: the event leaves currentevents and the feed gets
	// its "Service is operating normally: [RESOLVED]" post, which resolves it at once (an
	// event that left currentevents without that post would be resolved by inference on
	// the second poll without it; internal/fetch's AWS tests cover that).
	{kind: "aws", source: func(u string) (string, map[string]string) {
		return u + "/health/status", map[string]string{
			"rss":           u + "/status-mirror/rss/all.rss",
			"currentevents": u + "/health-mirror/public/currentevents",
		}
	}, page: awsPage},
	// Shape: Azure status RSS as in testdata/azure/status-feed-active-2026-07-23.xml and
	// status-feed-healthy-empty.xml: one item per open issue, its description rewritten
	// under a new pubDate as the issue goes on, an empty channel when healthy. Resolution
	// is inferred from absence: two polls of the empty channel.
	{kind: "azure", inferred: true, source: func(u string) (string, map[string]string) {
		return u + "/en-us/status/", nil
	}, page: azurePage},
	// Shape: Slack status API v2.0.0 as in testdata/slack/history-api-v2.0.0.json (notes
	// oldest first, Pacific times) and synthetic-slack-current-active.json /
	// synthetic-slack-current-ok.json.
	{kind: "slack", source: atRoot, page: slackPage},
	// Shape: a Statuspage history.atom as in testdata/feed/synthetic-statuspage-history.atom
	// (dated paragraphs newest first, year-less dates, "This incident affected:"). The
	// source URL is the feed itself; the entry id is a tag: URI, so its URL id is hashed.
	{kind: "feed", source: func(u string) (string, map[string]string) {
		return u + "/history.atom", nil
	}, page: feedPage},
}

func TestEveryPlatformEndToEnd(t *testing.T) {
	testbin.Build(t) // once, before the subtests start their clocks

	var kinds []string
	for _, p := range platforms {
		kinds = append(kinds, p.kind)
	}
	for _, k := range fetch.Kinds() {
		if !slices.Contains(kinds, k) {
			t.Errorf("provider kind %q has no end-to-end case here", k)
		}
	}

	for _, p := range platforms {
		t.Run(p.kind, func(t *testing.T) {
			t.Parallel()
			lifecycle(t, p)
		})
	}
}

// lifecycle steps one platform's incident through its life with the real binary.
func lifecycle(t *testing.T, p platform) {
	v := &vendor{etags: !p.noETag}
	srv := httptest.NewServer(v)
	defer srv.Close()
	u := srv.URL
	dir := t.TempDir()
	env := writeConfig(t, dir, p, u)
	src := "Acme " + p.kind
	defer func() {
		if t.Failed() || os.Getenv("E2E_SHOW") != "" {
			v.mu.Lock()
			t.Logf("paths the server did not serve: %q", v.missing)
			v.mu.Unlock()
		}
	}()
	poll := func() string {
		t.Helper()
		out := testbin.Must(t, 0, env, "poll").Stdout
		if os.Getenv("E2E_SHOW") != "" {
			t.Logf("$ watcher poll\n%s", out)
		}
		return out
	}

	v.set(p.page(u, 0))
	out := poll()
	wantHeadlines(t, "new", out, src+": New incident: "+title)
	wantContains(t, "new", out, stages[0].body)

	v.set(p.page(u, 1))
	out = poll()
	wantHeadlines(t, "update", out, src+": Updated incident: "+title)
	wantContains(t, "update", out, stages[1].body)

	v.set(p.page(u, 2))
	if p.inferred {
		out = poll()
		wantHeadlines(t, "first poll without the incident", out)
	}
	out = poll()
	wantHeadlines(t, "resolved", out, src+": Resolved: "+title)
	if !p.inferred {
		wantContains(t, "resolved", out, stages[2].body)
	}

	// Unchanged polls print nothing. The first may still write (Instatus parses once more
	// after its set of open items changed); the second must leave the archive file as it
	// is and, where the platform sends validators, get nothing but 304s.
	if out = poll(); out != "" {
		t.Errorf("unchanged poll printed:\n%s", out)
	}
	db := filepath.Join(dir, "watcher.db")
	before := fileSum(t, db)
	v.takeFull()
	if out = poll(); out != "" {
		t.Errorf("second unchanged poll printed:\n%s", out)
	}
	if fileSum(t, db) != before {
		t.Errorf("second unchanged poll changed the archive file")
	}
	if full := v.takeFull(); !p.noETag && len(full) > 0 {
		t.Errorf("second unchanged poll: %q answered in full, want only 304s", full)
	}

	// The incident's reference, as the archive names it.
	r := testbin.Must(t, 0, env, "incidents", "-source", p.kind)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("incidents: want the header and one incident, got:\n%s", r.Stdout)
	}
	row := strings.Fields(lines[1])
	ref := row[0]
	if !strings.HasPrefix(ref, p.kind+"/") || row[1] != "resolved" {
		t.Errorf("incidents: want %s/<id> resolved, got %q", p.kind, lines[1])
	}

	// Three versions: new, updated, resolved.
	r = testbin.Must(t, 0, env, "history", ref)
	lines = strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 4 {
		t.Errorf("history %s: want the header and 3 versions, got:\n%s", ref, r.Stdout)
	} else if !strings.Contains(lines[3], "resolved") {
		t.Errorf("history %s: the last version does not say resolved:\n%s", ref, r.Stdout)
	}

	r = testbin.Must(t, 0, env, "diff", ref, "0", "1")
	wantContains(t, "diff 0 1", r.Stdout, "version 0 → 1", "Before: not present", title)
	r = testbin.Must(t, 0, env, "diff", ref, "2", "3")
	wantContains(t, "diff 2 3", r.Stdout, "version 2 → 3", "status:", "resolved")
}

// writeConfig writes the platform's config and returns the environment that selects it.
func writeConfig(t *testing.T, dir string, p platform, u string) []string {
	t.Helper()
	url, endpoints := p.source(u)
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nlisten: \"\"\nsources:\n", filepath.Join(dir, "watcher.db"))
	fmt.Fprintf(&b, "  - name: %s\n    title: Acme %s\n    url: %q\n    kind: %s\n    timeout: 10s\n", p.kind, p.kind, url, p.kind)
	if len(endpoints) > 0 {
		b.WriteString("    endpoints:\n")
		for _, k := range slices.Sorted(maps.Keys(endpoints)) {
			fmt.Fprintf(&b, "      %s: %q\n", k, endpoints[k])
		}
	}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"WATCHER_CONFIG=" + cfg}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// wantHeadlines checks that the console output holds exactly these notifications: a
// notification starts with a "== <headline>" line.
func wantHeadlines(t *testing.T, step, out string, want ...string) {
	t.Helper()
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if h, ok := strings.CutPrefix(l, "== "); ok {
			got = append(got, h)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: notifications %q, want %q; output:\n%s", step, got, want, out)
	}
}

func wantContains(t *testing.T, step, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s: missing %q in:\n%s", step, w, out)
		}
	}
}
