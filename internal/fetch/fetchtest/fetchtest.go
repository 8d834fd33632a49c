// Package fetchtest holds what every platform's tests share: a programmable status page,
// a client, a real archive to poll into, the invariants every normalised incident keeps,
// and the check that sanitised HTML runs nothing.
package fetchtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	xhtml "golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/cputime"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest/fakehttp"
	"github.com/statuswatch/statuswatch/internal/model"
)

// PollNow is the clock of the polls of a test.
var PollNow = time.Date(2026, 8, 18, 12, 0, 0, 0, time.UTC)

// Testdata reads testdata/<platform>/<name>, failing the test when it cannot.
func Testdata(tb testing.TB, platform, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", platform, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// AddSeeds adds every file of testdata/<platform> to f's seed corpus, failing when there
// is none: a fuzzer of a platform starts from its real (or documented) payloads.
func AddSeeds(f *testing.F, platform string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", platform, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in testdata/%s: %v", platform, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// The programmable page and the server of fakehttp, under the names the platforms'
// tests use.
type (
	FakePage     = fakehttp.FakePage
	Route        = fakehttp.Route
	Seen         = fakehttp.Seen
	CloseCounter = fakehttp.CloseCounter
)

// NewFakePage returns a FakePage with no route.
func NewFakePage() *FakePage { return fakehttp.NewFakePage() }

// NewServer starts an httptest server for h, closed at the end of the test.
func NewServer(tb testing.TB, h http.Handler) *httptest.Server { return fakehttp.NewServer(tb, h) }

// MustClient builds a Client for tests, failing the test on error.
func MustClient(tb testing.TB, o fetch.ClientOptions) *fetch.Client {
	tb.Helper()
	c, err := fetch.NewClient(o)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// CheckIncident checks the invariants every adapter's incidents keep.
func CheckIncident(t *testing.T, inc model.Incident) {
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

// CheckFeedIncident checks the invariants of an incident read from a history feed: stable
// update keys, sanitised HTML bodies in time order.
func CheckFeedIncident(t *testing.T, inc model.Incident) {
	t.Helper()
	if inc.ID == "" || inc.Components == nil || !slices.IsSorted(inc.Components) {
		t.Errorf("%s: got id %q, components %q", inc.Title, inc.ID, inc.Components)
	}
	ids := map[string]bool{}
	for i, u := range inc.Updates {
		if ids[u.ID] || len(u.ID) != 16 {
			t.Errorf("%s: update %d: got id %q (duplicate or not a stable key)", inc.ID, i, u.ID)
		}
		ids[u.ID] = true
		if u.Format != model.FormatHTML || u.Body != strings.TrimSpace(u.Body) || u.PostedAt.Location() != time.UTC {
			t.Errorf("%s: update %d: got %+v", inc.ID, i, u)
		}
		if i > 0 && u.PostedAt.Before(inc.Updates[i-1].PostedAt) {
			t.Errorf("%s: update %d posted before update %d", inc.ID, i, i-1)
		}
		for _, bad := range []string{"<script", "onclick", "<img", "<small", "<var"} {
			if strings.Contains(u.HTML, bad) {
				t.Errorf("%s: update %d: HTML keeps %s: %q", inc.ID, i, bad, u.HTML)
			}
		}
	}
}

// Archive polls one provider and records each result in a real archive, as the
// daemon does: the fetch state and Archived come from the archive.
type Archive struct {
	t      *testing.T
	Store  *archive.Store // the archive polled into
	prov   fetch.Provider
	source model.Source
	State  model.FetchState // the fetch state after the last poll
	Now    time.Time        // the clock of the next poll
}

// NewArchive polls a source of kind into a new archive in t.TempDir, from PollNow.
func NewArchive(t *testing.T, kind string, src model.Source) *Archive {
	t.Helper()
	store, err := archive.Open(filepath.Join(t.TempDir(), "watcher.db"), archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	p, err := fetch.New(kind, MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return &Archive{t: t, Store: store, prov: p, source: src, Now: PollNow}
}

// Poll makes one poll and records it; the clock moves 2 minutes per poll.
func (a *Archive) Poll() (*fetch.Result, archive.Result, error) {
	a.t.Helper()
	defer func() { a.Now = a.Now.Add(2 * time.Minute) }()
	res, err := a.prov.Poll(context.Background(), fetch.Request{
		Source: a.source,
		State:  a.State,
		Archived: func(id string) *model.Incident {
			inc, err := a.Store.Latest(a.source.Name, id)
			if err != nil {
				a.t.Fatal(err)
			}
			return inc
		},
		Now: a.Now,
	})
	if err != nil {
		return res, archive.Result{}, err
	}
	if res.Snapshot == nil {
		a.State = res.State
		return res, archive.Result{}, nil
	}
	r, err := a.Store.Record(a.source.Name, res.Snapshot, res.State, res.Bodies, archive.Policy{})
	if err == nil {
		a.State = res.State
	}
	return res, r, err
}

// ByID returns the incident with the given id, failing the test when there is none.
func ByID(t *testing.T, incs []model.Incident, id string) model.Incident {
	t.Helper()
	for _, inc := range incs {
		if inc.ID == id {
			return inc
		}
	}
	t.Fatalf("no incident %s among %d", id, len(incs))
	return model.Incident{}
}

// CheckIncidents checks what every normalised incident must satisfy: an id, UTC times,
// sorted unique components, updates oldest first with unique non-empty ids.
func CheckIncidents(t *testing.T, incs []model.Incident) {
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

// LiveHTML returns the first thing in s that a browser would run or load — a script,
// style, image or frame element, an event-handler attribute, a javascript: URL — or "".
// Words like "onclick" in text are not live: only the parsed structure counts.
func LiveHTML(s string) string {
	z := xhtml.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "img", "iframe", "object", "embed", "svg", "form":
				return "<" + tok.Data + ">"
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					return a.Key + " attribute"
				}
				if v := strings.ToLower(strings.TrimSpace(a.Val)); strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:") {
					return a.Key + "=" + a.Val
				}
			}
		}
	}
}

// MustTime parses an RFC 3339 time as UTC, panicking on a bad one (test tables only).
func MustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// CPUMeter reports the process's CPU time per iteration as cpu-ns/op, next to ns/op: on a
// shared machine wall time per op swings with the neighbours' load, CPU time much less.
// It counts every thread of the process (GC included).
func CPUMeter(b *testing.B) func() {
	start := cputime.Process()
	return func() {
		b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
	}
}

// MustJSON marshals v, failing the test on error.
func MustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// IncidentsBody is a Statuspage v2 list document: a page and incidents under key.
func IncidentsBody(tb testing.TB, key string, incidents ...map[string]any) []byte {
	tb.Helper()
	if incidents == nil {
		incidents = []map[string]any{}
	}
	return MustJSON(tb, map[string]any{
		"page": map[string]any{"id": "pg", "name": "Example Cloud", "url": "https://status.example.com"},
		key:    incidents,
	})
}

// RawIncident is a minimal Statuspage incident object.
func RawIncident(id, status string) map[string]any {
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

// CheckComponents checks a component set as every platform must build it: a list (never
// nil), each component named, in one of the five states, its key once, in the one order
// (model.Components.Sort). A nil set passes: nothing was read.
func CheckComponents(t testing.TB, cs *model.Components) {
	t.Helper()
	if cs == nil {
		return
	}
	if cs.List == nil {
		t.Errorf("components: got a nil list, want an empty one for a page without any")
	}
	keys := map[string]bool{}
	for _, c := range cs.List {
		if c.Name == "" || !c.Status.Valid() || keys[c.Key()] {
			t.Errorf("bad component %+v (name, one of the five states, a key of its own)", c)
		}
		keys[c.Key()] = true
	}
	sorted := model.Components{List: slices.Clone(cs.List)}
	sorted.Sort()
	if !slices.Equal(sorted.List, cs.List) {
		t.Errorf("components not in their order: %+v", cs.List)
	}
}
