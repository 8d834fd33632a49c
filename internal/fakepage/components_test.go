package fakepage

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

// defaultSummary is the summary.json a page served before it had components to set: a
// page that sets none serves these bytes still.
const defaultSummary = `{"components":[{"created_at":"2026-01-01T00:00:00Z","description":null,"group":false,"group_id":null,"id":"fkcmp0api001","name":"API","only_show_if_degraded":false,"page_id":"fkpg0acme001","position":1,"showcase":true,"start_date":null,"status":"operational","updated_at":"2026-01-01T00:00:00Z"}],"incidents":[],"page":{"id":"fkpg0acme001","name":"Acme","time_zone":"Etc/UTC","updated_at":"2026-01-01T00:00:00Z","url":""},"scheduled_maintenances":[],"status":{"description":"All Systems Operational","indicator":"none"}}`

func get(t *testing.T, p *Statuspage, path, etag string) (int, string, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, rec.Header().Get("ETag"), b
}

func TestDefaultSummaryUnchanged(t *testing.T) {
	p := &Statuspage{Name: "Acme"}
	if _, _, b := get(t, p, "/api/v2/summary.json", ""); string(b) != defaultSummary {
		t.Errorf("got\n%s\nwant\n%s", b, defaultSummary)
	}
}

func TestSetComponentStatus(t *testing.T) {
	p := &Statuspage{Name: "Acme"}
	_, sumTag, _ := get(t, p, "/api/v2/summary.json", "")
	_, incTag, _ := get(t, p, "/api/v2/incidents.json", "")
	if code, _, _ := get(t, p, "/api/v2/summary.json", sumTag); code != http.StatusNotModified {
		t.Fatalf("unchanged summary: got %d, want 304", code)
	}
	if p.SetComponentStatus("nope", "major_outage") {
		t.Error("unknown id: got true")
	}
	if !p.SetComponentStatus("fkcmp0api001", "degraded_performance") {
		t.Fatal("API: got false")
	}
	code, tag, b := get(t, p, "/api/v2/summary.json", sumTag)
	if code != http.StatusOK || tag == sumTag {
		t.Fatalf("changed summary: got %d, ETag %s; want 200 and a new ETag", code, tag)
	}
	s, err := statuspagev2.DecodeSummary("application/json", b)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Components.List; len(c) != 1 || c[0].Status != model.ComponentDegraded || s.Components.PageStatus != "minor" {
		t.Errorf("got %+v, want API degraded, page minor", s.Components)
	}
	if code, _, _ := get(t, p, "/api/v2/incidents.json", incTag); code != http.StatusNotModified {
		t.Errorf("incidents after a component change: got %d, want 304 (only the summary changes)", code)
	}
}

func TestNewComponentPage(t *testing.T) {
	p := NewComponentPage("CDN", 300)
	_, _, b := get(t, p, "/api/v2/summary.json", "")
	s, err := statuspagev2.DecodeSummary("application/json", b)
	if err != nil {
		t.Fatal(err)
	}
	cs := s.Components
	if len(cs.List) != 300 || cs.PageStatus != "none" {
		t.Fatalf("got %d components, page %q; want 300 (the six groups not listed), none", len(cs.List), cs.PageStatus)
	}
	groups := map[string]int{}
	for _, c := range cs.List {
		groups[c.Group]++
		if !strings.HasPrefix(c.Name, "Data centre ") || c.Status != model.ComponentOperational {
			t.Errorf("got %+v", c)
		}
	}
	if len(groups) != 6 || groups["Europe"] != 50 {
		t.Errorf("got groups %v, want six of 50", groups)
	}
	p.SetComponentStatus(DataCentreID(7), "under_maintenance")
	if got := p.Components()[7]; got.Status != "under_maintenance" || got.ID != DataCentreID(7) {
		t.Errorf("got %+v", got)
	}
	_, _, b = get(t, p, "/api/v2/summary.json", "")
	s, _ = statuspagev2.DecodeSummary("application/json", b)
	if s.Components.PageStatus != "maintenance" {
		t.Errorf("got page status %q, want maintenance", s.Components.PageStatus)
	}
}
