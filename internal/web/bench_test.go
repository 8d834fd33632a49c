package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// BenchmarkIncident serves GET /api/v1/incidents/{source}/{id} for an incident with 1,000
// versions (docs/design.md §8: an incident page with 1,000 versions renders in under 20 ms).
func BenchmarkIncident(b *testing.B) {
	h := thousandVersions(b)
	req := httptest.NewRequest(http.MethodGet, "http://localhost/api/v1/incidents/acme/inc-a", nil)
	check := httptest.NewRecorder()
	h.ServeHTTP(check, req)
	var got struct{ Version, Versions int }
	if err := json.Unmarshal(check.Body.Bytes(), &got); check.Code != http.StatusOK || err != nil || got.Versions != 1000 {
		b.Fatalf("got %d %+v (%v), want 200 and 1000 versions", check.Code, got, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
}

// BenchmarkIncidentPage renders the UI page of an incident with 1,000 versions: the
// incident as now and its whole history by day (docs/design.md §8: under 20 ms).
func BenchmarkIncidentPage(b *testing.B) {
	h := thousandVersions(b)
	req := httptest.NewRequest(http.MethodGet, "http://localhost/incidents/acme/inc-a", nil)
	check := httptest.NewRecorder()
	h.ServeHTTP(check, req)
	if check.Code != http.StatusOK || !strings.Contains(check.Body.String(), `/incidents/acme/inc-a/changes/1000"`) {
		b.Fatalf("got %d, want 200 and a history of 1000 changes", check.Code)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
}

// thousandVersions serves an archive holding acme's inc-a in 1,000 versions, each editing
// its last update. The requests name localhost, a host the server answers without
// web.auth (guard.go).
func thousandVersions(b *testing.B) http.Handler {
	e := newEnv(b)
	inc := incA(3)
	for i := range 1000 {
		inc.Updates = append(inc.Updates[:3:3], model.Update{ID: "edit", Status: model.StatusResolved,
			Body: fmt.Sprintf("Follow-up %d: the vendor keeps editing this incident.", i), Format: model.FormatText,
			PostedAt: t0.Add(time.Hour)})
		e.record("acme", t0.Add(time.Duration(i)*time.Minute), []model.Incident{inc})
	}
	return e.srv.Handler()
}
