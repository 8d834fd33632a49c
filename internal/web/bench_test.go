package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// BenchmarkIncident serves GET /api/v1/incidents/{source}/{id} for an incident with 1,000
// versions (SPEC §8: an incident page with 1,000 versions renders in under 20 ms).
func BenchmarkIncident(b *testing.B) {
	e := newEnv(b)
	inc := incA(3)
	for i := range 1000 {
		inc.Updates = append(inc.Updates[:3:3], model.Update{ID: "edit", Status: model.StatusResolved,
			Body: fmt.Sprintf("Follow-up %d: the vendor keeps editing this incident.", i), Format: model.FormatText,
			PostedAt: t0.Add(time.Hour)})
		e.record("acme", t0.Add(time.Duration(i)*time.Minute), []model.Incident{inc})
	}
	h := e.srv.Handler()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/incidents/acme/inc-a", nil)
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
