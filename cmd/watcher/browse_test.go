package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/diff"
)

// TestAPIDiffCaptionsUpdates: through the daemon's API, the printed change set still
// says which update a change is (the updates come from the two versions).
func TestAPIDiffCaptionsUpdates(t *testing.T) {
	answers := map[string]string{
		"/api/v1/incidents/acme/i1/diff":       `{"from":1,"to":2,"summary":"1 update edited.","changes":[{"field":"updates[u1].body","before":"a","after":"b"}]}`,
		"/api/v1/incidents/acme/i1/versions/2": `{"updates":[{"id":"u1","status":"identified","posted_at":"2026-07-01T17:39:00Z"}]}`,
		"/api/v1/incidents/acme/i1/versions/1": `{"updates":[{"id":"u1","status":"identified","posted_at":"2026-07-01T17:39:00Z"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	a := &apiClient{base: srv.URL, hc: srv.Client()}
	cs, err := a.Diff(context.Background(), "acme", "i1", -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	got := diff.Text(cs.Changes, cs.incs...)
	if want := "updates[u1].body (Identified · 2026-07-01 17:39 UTC):"; !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to contain %q", got, want)
	}
}
