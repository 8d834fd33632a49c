package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// t0 is the start of every test's timeline; the server's clock stands at now.
var (
	t0  = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	now = t0.Add(2 * time.Hour)
)

// fakeDaemon is a Daemon whose methods are func fields; a nil field answers as an idle
// daemon would.
type fakeDaemon struct {
	SourcesFn func() []SourceStatus
	PollNowFn func(ctx context.Context, source string) (int, error)
	HealthFn  func() error
}

var _ Daemon = (*fakeDaemon)(nil)

func (d *fakeDaemon) Sources() []SourceStatus {
	if d.SourcesFn == nil {
		return nil
	}
	return d.SourcesFn()
}

func (d *fakeDaemon) PollNow(ctx context.Context, source string) (int, error) {
	if d.PollNowFn == nil {
		return 0, ErrUnknownSource
	}
	return d.PollNowFn(ctx, source)
}

func (d *fakeDaemon) Health() error {
	if d.HealthFn == nil {
		return nil
	}
	return d.HealthFn()
}

// syncBuffer is a log destination safe for the server's concurrent handlers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is a server under test: a real archive in a temp dir, a fake daemon, the server
// behind an httptest.Server, and its log.
type env struct {
	tb     testing.TB
	store  *archive.Store
	daemon *fakeDaemon
	srv    *Server
	http   *httptest.Server
	logs   *syncBuffer
}

// newEnv opens an empty archive and serves it; opts change the Options before New.
func newEnv(tb testing.TB, opts ...func(*Options)) *env {
	tb.Helper()
	store := mustOpenStore(tb, filepath.Join(tb.TempDir(), "watcher.db"))
	e := &env{tb: tb, store: store, daemon: &fakeDaemon{}, logs: &syncBuffer{}}
	o := Options{
		Store:   store,
		Daemon:  e.daemon,
		Log:     slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:     func() time.Time { return now },
		TitleOf: func(source string) string { return strings.ToUpper(source[:1]) + source[1:] },
	}
	for _, f := range opts {
		f(&o)
	}
	e.srv = New(o)
	e.http = httptest.NewServer(e.srv.Handler())
	tb.Cleanup(e.http.Close)
	return e
}

func mustOpenStore(tb testing.TB, path string) *archive.Store {
	tb.Helper()
	store, err := archive.Open(path, archive.Options{NoSync: true, Now: func() time.Time { return now }})
	if err != nil {
		tb.Fatalf("archive.Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := store.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return store
}

// response is an answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request to the server and checks what every answer must carry: the
// security headers, and the JSON content type on the API (but for the backup).
func (e *env) do(method, path string, header http.Header) response {
	e.tb.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, nil)
	if err != nil {
		e.tb.Fatalf("%s %s: %v", method, path, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		e.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.tb.Fatalf("%s %s: read body: %v", method, path, err)
	}
	for k, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	} {
		if got := resp.Header.Get(k); got != want {
			e.tb.Errorf("%s %s: header %s: got %q, want %q", method, path, k, got, want)
		}
	}
	if strings.HasPrefix(path, "/api/") && (!notJSON(path) || resp.StatusCode != http.StatusOK) {
		if got := resp.Header.Get("Content-Type"); got != contentTypeJSON {
			e.tb.Errorf("%s %s: Content-Type: got %q, want %q", method, path, got, contentTypeJSON)
		}
		if !json.Valid(body) {
			e.tb.Errorf("%s %s: body is not JSON: %q", method, path, body)
		}
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

// notJSON reports whether a successful answer at path is not JSON: the backup, an export
// bundle, a CSV list.
func notJSON(path string) bool {
	p, q, _ := strings.Cut(path, "?")
	return p == "/api/v1/backup" || strings.HasSuffix(p, "/export") || strings.Contains(q, "format=csv")
}

// get sends a GET and fails the test unless the status is want.
func (e *env) get(path string, want int) response {
	e.tb.Helper()
	r := e.do(http.MethodGet, path, nil)
	if r.status != want {
		e.tb.Fatalf("GET %s: status: got %d, want %d; body %s", path, r.status, want, r.body)
	}
	return r
}

// getJSON sends a GET expecting want and decodes the body into v.
func (e *env) getJSON(path string, want int, v any) response {
	e.tb.Helper()
	r := e.get(path, want)
	if err := json.Unmarshal(r.body, v); err != nil {
		e.tb.Fatalf("GET %s: decode %s: %v", path, r.body, err)
	}
	return r
}

// errorOf returns the "error" of a JSON error answer.
func errorOf(tb testing.TB, r response) string {
	tb.Helper()
	var e api.Error
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" {
		tb.Fatalf("not an error answer: %s (%v)", r.body, err)
	}
	return e.Error
}

// record archives a snapshot of source fetched at t with the given bodies.
func (e *env) record(source string, t time.Time, incs []model.Incident, bodies ...model.Body) {
	e.tb.Helper()
	snap := &model.Snapshot{Source: source, FetchedAt: t, Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
	if _, err := e.store.Record(source, snap, nil, bodies, archive.Policy{}); err != nil {
		e.tb.Fatalf("Record %s at %s: %v", source, t, err)
	}
}

// body is a fetched body with its hash.
func body(endpoint string, data []byte) model.Body {
	return model.Body{Endpoint: endpoint, Hash: hashOf(data), Data: data}
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// The seeded archive (seed): two sources, four incidents.
const (
	betaProviderID = "tag:beta.test,2005:Incident/1" // not plain: its URL id is hashed
	acmeSummary    = "summary never archived"        // a body referenced only by hash
)

var (
	betaID     = model.URLID(betaProviderID)
	betaBody   = []byte{0xff, 0xfe, 'o', 0, 'k', 0} // UTF-16LE with BOM: not UTF-8
	acmeBodies = [][]byte{[]byte(`{"incidents":1}`), []byte(`{"incidents":2}`), []byte(`{"incidents":3}`)}
)

// incA is acme's incident inc-a as version n (1..3) shows it: opened, identified (title
// reworded, a component and an update added), then resolved with a postmortem and a
// silent edit of the first update.
func incA(n int) model.Incident {
	inc := model.Incident{
		ID: "inc-a", Kind: model.KindIncident, Status: model.StatusInvestigating, StatusRaw: "investigating",
		Impact: model.ImpactMinor, Title: "Intermittent API errors", StartedAt: t0, Components: []string{"API"},
		Updates: []model.Update{{ID: "a-1", Status: model.StatusInvestigating,
			Body: "We are investigating elevated error rates.", Format: model.FormatText, PostedAt: t0}},
		URL: "https://status.acme.test/incidents/inc-a",
	}
	if n >= 2 {
		inc.Status, inc.StatusRaw, inc.Title = model.StatusIdentified, "identified", "Elevated API errors"
		inc.Components = []string{"API", "Dashboard"}
		inc.Updates = append(inc.Updates, model.Update{ID: "a-2", Status: model.StatusIdentified,
			Body: "The cause is a bad deploy of the API gateway.", Format: model.FormatText, PostedAt: t0.Add(8 * time.Minute)})
	}
	if n >= 3 {
		inc.Status, inc.StatusRaw, inc.ResolvedAt = model.StatusResolved, "resolved", t0.Add(25*time.Minute)
		inc.Updates[0].Body = "We are investigating elevated error rates on the API."
		inc.Updates = append(inc.Updates, model.Update{ID: "a-3", Status: model.StatusResolved,
			Body: "This incident has been resolved.", Format: model.FormatText, PostedAt: t0.Add(25 * time.Minute)})
		inc.Postmortem = &model.Postmortem{Body: "A bad deploy caused errors for 25 minutes.", Format: model.FormatText,
			PublishedAt: t0.Add(28 * time.Minute)}
	}
	return inc
}

var (
	incB = model.Incident{
		ID: "inc-b", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title: "Database latency", StartedAt: t0.Add(5 * time.Minute), Components: []string{"Database"},
		Updates: []model.Update{{ID: "b-1", Status: model.StatusInvestigating, Body: "Replica lag is elevated.",
			Format: model.FormatMarkdown, PostedAt: t0.Add(5 * time.Minute)}},
	}
	mnt1 = model.Incident{
		ID: "mnt-1", Kind: model.KindMaintenance, Status: model.StatusScheduled, Impact: model.ImpactMaintenance,
		Title: "Database upgrade", ScheduledFor: t0.Add(48 * time.Hour), ScheduledUntil: t0.Add(50 * time.Hour),
		Updates: []model.Update{{ID: "m-1", Status: model.StatusScheduled, Body: "We will upgrade the primary.",
			Format: model.FormatHTML, PostedAt: t0}},
	}
	betaInc = model.Incident{
		ID: betaProviderID, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactUnknown,
		Title: "Login failures", StartedAt: t0.Add(-time.Hour),
		Updates: []model.Update{{ID: "x1", Status: model.StatusInvestigating, Body: "Some users cannot log in.",
			Format: model.FormatText, PostedAt: t0.Add(-time.Hour)}},
	}
)

// seed archives the test timeline:
//
//	t0       acme: inc-a v1, mnt-1 v1
//	t0+5m    beta: its incident v1 (a body that is not UTF-8)
//	t0+10m   acme: inc-a v2, inc-b v1
//	t0+30m   acme: inc-a v3 (resolved, postmortem), plus a body referenced only by hash
func (e *env) seed() *env {
	e.tb.Helper()
	e.record("acme", t0, []model.Incident{incA(1), mnt1}, body("incidents", acmeBodies[0]))
	e.record("beta", t0.Add(5*time.Minute), []model.Incident{betaInc}, body("history", betaBody))
	e.record("acme", t0.Add(10*time.Minute), []model.Incident{incA(2), incB, mnt1}, body("incidents", acmeBodies[1]))
	e.record("acme", t0.Add(30*time.Minute), []model.Incident{incA(3), incB, mnt1},
		body("incidents", acmeBodies[2]),
		model.Body{Endpoint: "summary", Hash: hashOf([]byte(acmeSummary))})
	return e
}

// golden compares got, indented, with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("indent %s: %v", got, err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s: got\n%s\nwant\n%s", path, buf.Bytes(), want)
	}
}
