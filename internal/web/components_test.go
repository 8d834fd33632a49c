package web

import (
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// comp is a component of group with the provider's word for its status.
func comp(group, name string, s model.ComponentStatus) model.Component {
	return model.Component{ID: "c-" + name, Name: name, Group: group, Status: s, StatusRaw: "raw " + string(s)}
}

// recordComponents archives a poll of source at t that read the component set cs with
// the page status given.
func (e *env) recordComponents(source string, t time.Time, page, description string, cs ...model.Component) {
	e.tb.Helper()
	// No listing: the poll says nothing of the incidents, which stay as they are.
	snap := &model.Snapshot{Source: source, FetchedAt: t,
		Components: &model.Components{PageStatus: page, PageDescription: description, List: cs}}
	if _, err := e.store.Record(source, snap, nil, nil, archive.Policy{}); err != nil {
		e.tb.Fatalf("Record %s at %s: %v", source, t, err)
	}
}

// seedComponents archives acme's components on top of seed:
//
//	t0+1m   API operational, Web operational (Core); DNS operational (Edge)
//	t0+20m  API degraded, DNS major outage
//	t0+40m  API operational again, DNS partial outage
func (e *env) seedComponents() *env {
	e.tb.Helper()
	op, deg, part, major := model.ComponentOperational, model.ComponentDegraded, model.ComponentPartialOutage, model.ComponentMajorOutage
	e.recordComponents("acme", t0.Add(time.Minute), "none", "All Systems Operational",
		comp("Core", "API", op), comp("Core", "Web", op), comp("Edge", "DNS", op))
	e.recordComponents("acme", t0.Add(20*time.Minute), "major", "Partial System Outage",
		comp("Core", "API", deg), comp("Core", "Web", op), comp("Edge", "DNS", major))
	e.recordComponents("acme", t0.Add(40*time.Minute), "minor", "Minor Service Outage",
		comp("Core", "API", op), comp("Core", "Web", op), comp("Edge", "DNS", part))
	return e
}

func TestListComponents(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	var got []map[string]any
	e.getJSON("/api/v1/sources/acme/components", http.StatusOK, &got)
	want := []map[string]any{
		{"name": "API", "group": "Core", "status": "operational", "status_raw": "raw operational", "since": "2026-07-01T12:40:00Z"},
		{"name": "Web", "group": "Core", "status": "operational", "status_raw": "raw operational", "since": "2026-07-01T12:01:00Z"},
		{"name": "DNS", "group": "Edge", "status": "partial_outage", "status_raw": "raw partial_outage", "since": "2026-07-01T12:40:00Z"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("latest: got\n%v\nwant\n%v", got, want)
	}

	e.getJSON("/api/v1/sources/acme/components?at=2026-07-01T12:30:00Z", http.StatusOK, &got)
	want = []map[string]any{
		{"name": "API", "group": "Core", "status": "degraded", "status_raw": "raw degraded", "since": "2026-07-01T12:20:00Z"},
		{"name": "Web", "group": "Core", "status": "operational", "status_raw": "raw operational", "since": "2026-07-01T12:01:00Z"},
		{"name": "DNS", "group": "Edge", "status": "major_outage", "status_raw": "raw major_outage", "since": "2026-07-01T12:20:00Z"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("at 12:30: got\n%v\nwant\n%v", got, want)
	}

	for _, tt := range []struct {
		name, path string
		status     int
		body       string
	}{
		{"before the first set", "/api/v1/sources/acme/components?at=2026-07-01T12:00:30Z", http.StatusOK, "[]"},
		{"a source with no components", "/api/v1/sources/beta/components", http.StatusOK, "[]"},
		{"unknown source", "/api/v1/sources/nope/components", http.StatusNotFound, `{"error":"unknown source"}`},
		{"bad time", "/api/v1/sources/acme/components?at=noon", http.StatusBadRequest,
			`{"error":"at: want an RFC 3339 time such as 2026-07-01T14:05:00Z, got \"noon\""}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(tt.path, tt.status)
			if got := strings.TrimSpace(string(r.body)); got != tt.body {
				t.Errorf("got %s, want %s", got, tt.body)
			}
		})
	}
}

func TestComponentHistory(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	var got []map[string]any
	e.getJSON("/api/v1/sources/acme/components/history", http.StatusOK, &got)
	// The first set read is no change: the history starts at the first change.
	want := []map[string]any{
		{"component": "API", "from": "operational", "to": "degraded", "at": "2026-07-01T12:20:00Z"},
		{"component": "DNS", "from": "operational", "to": "major_outage", "at": "2026-07-01T12:20:00Z"},
		{"component": "API", "from": "degraded", "to": "operational", "at": "2026-07-01T12:40:00Z"},
		{"component": "DNS", "from": "major_outage", "to": "partial_outage", "at": "2026-07-01T12:40:00Z"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", got, want)
	}
	all := want

	t.Run("range", func(t *testing.T) {
		var got []map[string]any
		e.getJSON("/api/v1/sources/acme/components/history?from=2026-07-01T12:20:00Z&to=2026-07-01T12:40:00Z", http.StatusOK, &got)
		if want := all[:2]; !reflect.DeepEqual(got, want) {
			t.Errorf("got\n%v\nwant\n%v", got, want)
		}
	})

	t.Run("pages", func(t *testing.T) {
		// Pages of one cut inside a version: nothing repeated, nothing skipped.
		var paged []map[string]any
		path := "/api/v1/sources/acme/components/history?limit=1"
		for range 20 {
			var page []map[string]any
			r := e.getJSON(path, http.StatusOK, &page)
			if len(page) != 1 {
				t.Fatalf("%s: got %d entries, want 1", path, len(page))
			}
			paged = append(paged, page...)
			link := r.header.Get("Link")
			if link == "" {
				break
			}
			if r.header.Get("X-Next-Cursor") == "" || !strings.HasSuffix(link, `>; rel="next"`) {
				t.Fatalf("next page: X-Next-Cursor %q, Link %q", r.header.Get("X-Next-Cursor"), link)
			}
			path = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
		}
		if !reflect.DeepEqual(paged, all) {
			t.Errorf("paged: got\n%v\nwant\n%v", paged, all)
		}
		if r := e.get("/api/v1/incidents?before="+param0(t, e), http.StatusBadRequest); !strings.Contains(errorOf(t, r), "not a cursor of this list") {
			t.Errorf("a history cursor on the incident list: got %s", r.body)
		}
	})

	for _, tt := range []struct {
		name, path string
		status     int
		body       string
	}{
		{"a source with no components", "/api/v1/sources/beta/components/history", http.StatusOK, "[]"},
		{"unknown source", "/api/v1/sources/nope/components/history", http.StatusNotFound, `{"error":"unknown source"}`},
		{"bad from", "/api/v1/sources/acme/components/history?from=x", http.StatusBadRequest,
			`{"error":"from: want an RFC 3339 time such as 2026-07-01T14:05:00Z, got \"x\""}`},
		{"bad cursor", "/api/v1/sources/acme/components/history?before=xyz", http.StatusBadRequest,
			`{"error":"before: not a cursor of this list (use the X-Next-Cursor or Link of the previous page)"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(tt.path, tt.status)
			if got := strings.TrimSpace(string(r.body)); got != tt.body {
				t.Errorf("got %s, want %s", got, tt.body)
			}
		})
	}
}

// param0 is the cursor of the first page of acme's history cut at one entry.
func param0(t *testing.T, e *env) string {
	t.Helper()
	r := e.get("/api/v1/sources/acme/components/history?limit=1", http.StatusOK)
	return r.header.Get("X-Next-Cursor")
}

func TestListSourcesComponents(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	var got []map[string]any
	e.getJSON("/api/v1/sources", http.StatusOK, &got)
	if len(got) != 2 {
		t.Fatalf("got %v, want acme and beta", got)
	}
	for k, want := range map[string]any{"page_status": "minor", "page_description": "Minor Service Outage",
		"components": 3.0, "components_not_operational": 1.0} {
		if got[0][k] != want {
			t.Errorf("acme %s: got %v, want %v", k, got[0][k], want)
		}
	}
	for _, k := range []string{"page_status", "page_description", "components", "components_not_operational"} {
		if v, ok := got[1][k]; ok {
			t.Errorf("beta, with no components: %s is %v, want it left out", k, v)
		}
	}
}

func TestComponentPagesGolden(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	// delta has no incident open, and a component degraded: "degraded, no incident";
	// epsilon's are all operational.
	e.recordComponents("delta", t0.Add(time.Hour), "minor", "Minor Service Outage",
		comp("", "Actions", model.ComponentDegraded), comp("", "Pages", model.ComponentOperational))
	e.recordComponents("epsilon", t0.Add(time.Hour), "none", "All Systems Operational",
		comp("", "Mail", model.ComponentOperational))
	e.daemon.SourcesFn = func() []SourceStatus {
		return append(seedSources(),
			SourceStatus{Name: "delta", Title: "Delta", URL: "https://status.delta.test", Kind: "statuspage",
				LastPollAt: now.Add(-time.Minute), LastSuccessAt: now.Add(-time.Minute)},
			SourceStatus{Name: "epsilon", Title: "Epsilon", URL: "https://status.epsilon.test", Kind: "statuspage",
				LastPollAt: now.Add(-time.Minute), LastSuccessAt: now.Add(-time.Minute)})
	}
	dash := string(e.htmlGet("/", http.StatusOK).body)
	delta, epsilon := strings.Index(dash, `<a href="/sources/delta">`), strings.Index(dash, `<a href="/sources/epsilon">`)
	if delta < 0 || epsilon < delta {
		t.Errorf("dashboard: delta (degraded, no incident) should be listed before epsilon (operational)")
	}
	if row := dash[delta:epsilon]; !strings.Contains(row, "Degraded, no incident") || !strings.Contains(row, "1 of 2 components not operational") ||
		!strings.Contains(row, "Page status: Minor Service Outage") {
		t.Errorf("dashboard: delta's row: %s", row)
	}
	if row := dash[epsilon:]; !strings.Contains(row, ">Operational</span>") || strings.Contains(row[:400], "not operational") {
		t.Errorf("dashboard: epsilon's row: %.400s", row)
	}
	for _, tt := range []struct{ name, path string }{
		{"source_components", "/sources/acme"},
		{"source_degraded_no_incident", "/sources/delta"},
		{"dashboard_components", "/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			goldenRaw(t, "page_"+tt.name+".html", e.htmlGet(tt.path, http.StatusOK).body)
		})
	}
}

// A page of 300 components, every one flapping every other day for 90 days, stays a
// reasonable size: strips are runs of days, and only the first 100 components get one.
func TestSourcePageOf300Components(t *testing.T) {
	e := newEnv(t)
	e.daemon.SourcesFn = seedSources
	list := func(s model.ComponentStatus) []model.Component {
		cs := make([]model.Component, 300)
		for i := range cs {
			cs[i] = comp("Region "+strconv.Itoa(i/50), "Data centre "+strconv.Itoa(i), s)
		}
		return cs
	}
	start := now.AddDate(0, 0, -89)
	for d := 0; d < 90; d += 2 {
		s := model.ComponentOperational
		if d%4 == 2 {
			s = model.ComponentMaintenance
		}
		e.recordComponents("acme", start.Add(time.Duration(d)*24*time.Hour), "none", "All Systems Operational", list(s)...)
	}
	r := e.htmlGet("/sources/acme", http.StatusOK)
	body := string(r.body)
	if n := strings.Count(body, `<li class="component">`); n != 300 {
		t.Errorf("got %d components listed, want 300", n)
	}
	if n := strings.Count(body, `<svg class="strip"`); n != 100 {
		t.Errorf("got %d strips, want 100", n)
	}
	if !strings.Contains(body, "Strips are drawn for the first 100 components; the other 200 are listed without one.") {
		t.Error("the page does not say that strips were cut")
	}
	// 13,500 changes take two reads of the archive, the second starting inside a
	// version: every component flapped alike, so every strip must be the same.
	strips := regexp.MustCompile(`(?s)<svg class="strip"[^>]*>(.*?)</svg>`).FindAllStringSubmatch(body, -1)
	if len(strips) == 100 && (strips[0][1] != strips[99][1] || strings.Count(strips[0][1], "<rect") < 40) {
		t.Errorf("strips differ or are too short:\n%s\n%s", strips[0][1], strips[99][1])
	}
	if len(body) > 1<<20 {
		t.Errorf("page of 300 components: %d bytes, want at most 1 MiB", len(body))
	}
	t.Logf("page of 300 flapping components: %d bytes", len(body))
}
