package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// testdata reads a file of testdata/statuspage. The JSON files are real payloads copied
// byte for byte from the real captures of testdata/statuspage (provenance in testdata/SOURCES.md); files named
// synthetic-* are written from the format's documentation and say so at their top.
func testdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "statuspage", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mustClient builds a Client for tests, failing the test on error.
func mustClient(tb testing.TB, o ClientOptions) *Client {
	tb.Helper()
	c, err := NewClient(o)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// mustProvider builds the Provider of kind around a default Client, failing the test on
// error.
func mustProvider(tb testing.TB, kind string) Provider {
	tb.Helper()
	p, err := New(kind, mustClient(tb, ClientOptions{}))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// seen is one request as a test server received it.
type seen struct {
	Path            string
	IfNoneMatch     string
	IfModifiedSince string
	UserAgent       string
	Header          http.Header
}

// route is what a fakeStatuspage answers on one path.
type route struct {
	Status       int
	Body         []byte
	ContentType  string // default application/json
	ETag         string // sent with 200; a matching If-None-Match gets a 304
	LastModified string
	RetryAfter   string
}

// fakeStatuspage is a programmable status page: a route per path, a log of every
// request. Unknown paths answer 404.
type fakeStatuspage struct {
	mu     sync.Mutex
	routes map[string]route
	log    []seen
}

func newFakeStatuspage() *fakeStatuspage {
	return &fakeStatuspage{routes: map[string]route{}}
}

func (f *fakeStatuspage) set(path string, r route) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[path] = r
}

// requests returns the requests so far and forgets them.
func (f *fakeStatuspage) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.log
	f.log = nil
	return out
}

func (f *fakeStatuspage) paths() []string {
	var p []string
	for _, s := range f.requests() {
		p = append(p, s.Path)
	}
	return p
}

func (f *fakeStatuspage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.log = append(f.log, seen{
		Path:            r.URL.Path,
		IfNoneMatch:     r.Header.Get("If-None-Match"),
		IfModifiedSince: r.Header.Get("If-Modified-Since"),
		UserAgent:       r.UserAgent(),
		Header:          r.Header.Clone(),
	})
	rt, ok := f.routes[r.URL.Path]
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if rt.RetryAfter != "" {
		w.Header().Set("Retry-After", rt.RetryAfter)
	}
	if rt.ETag != "" {
		w.Header().Set("ETag", rt.ETag)
	}
	if rt.LastModified != "" {
		w.Header().Set("Last-Modified", rt.LastModified)
	}
	if rt.ETag != "" && r.Header.Get("If-None-Match") == rt.ETag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	ct := rt.ContentType
	if ct == "" {
		ct = "application/json; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	if rt.Status != 0 {
		w.WriteHeader(rt.Status)
	}
	w.Write(rt.Body)
}

// closeCounter is a transport wrapper that counts response bodies handed out and closed,
// so a test can check that every path closes what it opened.
type closeCounter struct {
	rt             http.RoundTripper
	opened, closed atomic.Int64
}

func (c *closeCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	resp.Body = &countedBody{ReadCloser: resp.Body, n: &c.closed}
	return resp, nil
}

type countedBody struct {
	io.ReadCloser
	n    *atomic.Int64
	once sync.Once
}

func (b *countedBody) Close() error {
	b.once.Do(func() { b.n.Add(1) })
	return b.ReadCloser.Close()
}

// staticTransport answers every request in memory with one body, for benchmarks that
// measure our side of a fetch without a socket.
type staticTransport struct {
	body []byte
	etag string
}

func (t staticTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"application/json"}}
	if t.etag != "" {
		h.Set("ETag", t.etag)
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: int64(len(t.body)),
		Request:       r,
	}, nil
}

// newServer starts an httptest server for h, closed at the end of the test.
func newServer(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	s := httptest.NewServer(h)
	tb.Cleanup(s.Close)
	return s
}

// incidentsBody builds a Statuspage incidents.json from raw incident objects.
func incidentsBody(tb testing.TB, key string, incidents ...map[string]any) []byte {
	tb.Helper()
	if incidents == nil {
		incidents = []map[string]any{}
	}
	b, err := json.Marshal(map[string]any{
		"page": map[string]any{"id": "pg", "name": "Example Cloud", "url": "https://status.example.com"},
		key:    incidents,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// rawIncident is a minimal Statuspage incident object.
func rawIncident(id, status string) map[string]any {
	return map[string]any{
		"id":         id,
		"name":       "Incident " + id,
		"status":     status,
		"impact":     "major",
		"created_at": "2026-03-03T14:02:00.000Z",
		"started_at": "2026-03-03T14:02:00.000Z",
		"shortlink":  "https://stspg.io/" + id,
		"incident_updates": []map[string]any{{
			"id": id + "-u1", "status": "investigating", "body": "Looking into it.",
			"created_at": "2026-03-03T14:02:00.000Z", "display_at": "2026-03-03T14:02:00.000Z",
		}},
		"components": []map[string]any{},
	}
}

// generated50 is a realistic 50-incident incidents.json (~200 KB, compact, as Statuspage
// serves it) built from the real incidents in testdata: the 36-update GitHub incident once,
// then the other real incidents in turn, each copy with a new id.
func generated50(tb testing.TB) []byte {
	tb.Helper()
	var top struct {
		Page      map[string]any   `json:"page"`
		Incidents []map[string]any `json:"incidents"`
	}
	if err := json.Unmarshal(testdata(tb, "github-incidents-2026-08-top5.json"), &top); err != nil {
		tb.Fatal(err)
	}
	var big map[string]any
	var pool []map[string]any
	for _, inc := range top.Incidents {
		if inc["id"] == "zkxwbgr0cnmx" {
			big = inc
		} else {
			pool = append(pool, inc)
		}
	}
	for _, f := range []string{"github-incident-yck8ctxhxtwq.json", "github-incident-lc8s9rtyjmgq.json", "github-incident-c85syxc7gnbx.json"} {
		var d struct {
			Incident map[string]any `json:"incident"`
		}
		if err := json.Unmarshal(testdata(tb, f), &d); err != nil {
			tb.Fatal(err)
		}
		pool = append(pool, d.Incident)
	}
	var sum struct {
		Incidents []map[string]any `json:"incidents"`
	}
	if err := json.Unmarshal(testdata(tb, "github-summary-2022-11-25.json"), &sum); err != nil {
		tb.Fatal(err)
	}
	pool = append(pool, sum.Incidents...)

	out := []map[string]any{renumber(big, 0)}
	for i := 1; len(out) < 50; i++ {
		out = append(out, renumber(pool[(i-1)%len(pool)], i))
	}
	b, err := json.Marshal(map[string]any{"page": top.Page, "incidents": out})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// renumber returns a deep copy of a raw incident with a new id, in it and its updates.
func renumber(inc map[string]any, n int) map[string]any {
	b, _ := json.Marshal(inc)
	var c map[string]any
	json.Unmarshal(b, &c)
	id := fmt.Sprintf("%s%02d", c["id"], n)
	c["id"] = id
	if ups, ok := c["incident_updates"].([]any); ok {
		for _, u := range ups {
			if m, ok := u.(map[string]any); ok {
				m["incident_id"] = id
				m["id"] = fmt.Sprintf("%s%02d", m["id"], n)
			}
		}
	}
	return c
}

// platformData reads testdata/<platform>/<name>.
func platformData(tb testing.TB, platform, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", platform, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// byID returns the incident with the given id, failing the test when there is none.
func byID(t *testing.T, incs []model.Incident, id string) model.Incident {
	t.Helper()
	for _, inc := range incs {
		if inc.ID == id {
			return inc
		}
	}
	t.Fatalf("no incident %s among %d", id, len(incs))
	return model.Incident{}
}

// checkIncidents checks what every normalised incident must satisfy: an id, UTC times,
// sorted unique components, updates oldest first with unique non-empty ids.
func checkIncidents(t *testing.T, incs []model.Incident) {
	t.Helper()
	for _, inc := range incs {
		if inc.ID == "" || inc.Components == nil || inc.Updates == nil {
			t.Errorf("incident %q: got empty id or nil lists: %+v", inc.ID, inc)
		}
		if !slices.IsSorted(inc.Components) || len(slices.Compact(slices.Clone(inc.Components))) != len(inc.Components) {
			t.Errorf("incident %s: components %q not sorted and unique", inc.ID, inc.Components)
		}
		for _, tm := range []time.Time{inc.StartedAt, inc.ResolvedAt, inc.ScheduledFor, inc.ScheduledUntil} {
			if !tm.IsZero() && tm.Location() != time.UTC {
				t.Errorf("incident %s: time %v is not UTC", inc.ID, tm)
			}
		}
		ids := map[string]bool{}
		for i, u := range inc.Updates {
			if u.ID == "" || ids[u.ID] {
				t.Errorf("incident %s: update %d has an empty or repeated id %q", inc.ID, i, u.ID)
			}
			ids[u.ID] = true
			if i > 0 && u.PostedAt.Before(inc.Updates[i-1].PostedAt) {
				t.Errorf("incident %s: updates not oldest first at %d", inc.ID, i)
			}
			if !u.PostedAt.IsZero() && u.PostedAt.Location() != time.UTC {
				t.Errorf("incident %s: update time %v is not UTC", inc.ID, u.PostedAt)
			}
		}
	}
}

// cloudTestdata reads a file of testdata/<platform>.
func cloudTestdata(tb testing.TB, platform, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", platform, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// checkCloudIncident checks the invariants every adapter's incidents keep.
func checkCloudIncident(t *testing.T, inc model.Incident) {
	t.Helper()
	if inc.ID == "" || !slices.IsSorted(inc.Components) || len(slices.Compact(slices.Clone(inc.Components))) != len(inc.Components) {
		t.Fatalf("bad incident %+v", inc)
	}
	ids := map[string]bool{}
	for _, u := range inc.Updates {
		if ids[u.ID] {
			t.Fatalf("incident %s: update id %s twice", inc.ID, u.ID)
		}
		ids[u.ID] = true
		if !u.PostedAt.IsZero() && u.PostedAt.Location() != time.UTC {
			t.Fatalf("incident %s: update time %v not UTC", inc.ID, u.PostedAt)
		}
	}
	for _, tm := range []time.Time{inc.StartedAt, inc.ResolvedAt} {
		if !tm.IsZero() && tm.Location() != time.UTC {
			t.Fatalf("incident %s: time %v not UTC", inc.ID, tm)
		}
	}
}

// cloudArchive polls one provider and records each result in a real archive, as the
// daemon does: the fetch state and Archived come from the archive.
type cloudArchive struct {
	t      *testing.T
	store  *archive.Store
	prov   Provider
	source model.Source
	state  model.FetchState
	now    time.Time
}

func newCloudArchive(t *testing.T, kind string, src model.Source) *cloudArchive {
	t.Helper()
	store, err := archive.Open(filepath.Join(t.TempDir(), "watcher.db"), archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	p, err := New(kind, mustClient(t, ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return &cloudArchive{t: t, store: store, prov: p, source: src, now: pollNow}
}

// poll makes one poll and records it; the clock moves 2 minutes per poll.
func (a *cloudArchive) poll() (*Result, archive.Result, error) {
	a.t.Helper()
	defer func() { a.now = a.now.Add(2 * time.Minute) }()
	res, err := a.prov.Poll(context.Background(), Request{
		Source: a.source,
		State:  a.state,
		Archived: func(id string) *model.Incident {
			inc, err := a.store.Latest(a.source.Name, id)
			if err != nil {
				a.t.Fatal(err)
			}
			return inc
		},
		Now: a.now,
	})
	if err != nil {
		return res, archive.Result{}, err
	}
	if res.Snapshot == nil {
		a.state = res.State
		return res, archive.Result{}, nil
	}
	r, err := a.store.Record(a.source.Name, res.Snapshot, res.State, res.Bodies, archive.Policy{})
	if err == nil {
		a.state = res.State
	}
	return res, r, err
}

// mustJSON marshals v, failing the test on error.
func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
