package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

func TestDetectCommand(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(nil, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	r := mustRun(t, exitOK, "/nonexistent", "detect", srv.URL+"/")
	fields := strings.Split(strings.TrimSpace(r.stdout), "\t")
	if len(fields) != 3 || fields[0] != "statuspage" || fields[2] == "" {
		t.Errorf("detect: got %q, want statuspage<TAB>url<TAB>evidence", r.stdout)
	}
	r = mustRun(t, exitError, "/nonexistent", "detect", "http://127.0.0.1:1/")
	wantContains(t, "detect of nothing", r.stderr, "error:")
}

// TestAutoKindIsDetectedOnceAndMigrates: a kind: auto source is detected on its first
// poll and remembered; when the page moves to another platform and stops parsing, it is
// detected again and the old incidents are frozen as migrated, without a message.
func TestAutoKindIsDetectedOnceAndMigrates(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page.Set([]fakepage.Incident{{
		ID: "inc1", Name: "API errors", Status: "investigating", Impact: "major", CreatedAt: t0, UpdatedAt: t0, StartedAt: t0,
		Updates: []fakepage.Update{{ID: "u1", Status: "investigating", Body: "Looking into it.", CreatedAt: t0, UpdatedAt: t0, DisplayAt: t0}},
	}}, nil)
	// The page moves to incident.io halfway: its Statuspage-compatible JSON has ULID ids
	// and leaves out empty lists, which the Statuspage adapter cannot read.
	var moved atomic.Bool
	summary, err := os.ReadFile("testdata/cohere-statuspage-compat-summary-2026-07-23.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !moved.Load() {
			page.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v2/summary.json":
			w.Write(summary)
		case "/api/v2/incidents.json", "/api/v2/scheduled-maintenances.json":
			io.WriteString(w, `{"page":{"id":"01HEBDXXA856JY0M3E46GZHCH8","name":"Acme","url":"https://status.acme.example/","updated_at":"2026-07-23T22:56:25Z"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("database: %s\nlisten: \"\"\nsources:\n  - name: acme\n    url: %s\n", filepath.Join(dir, "watcher.db"), srv.URL)), 0o600)

	r := mustRun(t, exitOK, cfg, "poll")
	wantContains(t, "first poll of kind auto", r.stdout, "New incident: API errors")
	page.Requests()
	mustRun(t, exitOK, cfg, "poll")
	for _, req := range page.Requests() {
		if req.Path != "/api/v2/incidents.json" && req.Path != "/api/v2/scheduled-maintenances.json" && req.Path != "/api/v2/summary.json" {
			t.Errorf("second poll requested %s: detection should be remembered", req.Path)
		}
	}

	moved.Store(true)
	var out strings.Builder
	for i := range 3 { // three unreadable answers in a row, then detection runs again
		r := mustRun(t, exitPartial, cfg, "poll")
		out.WriteString(r.stdout)
		if i == 0 {
			wantContains(t, "poll of the moved page", r.stderr, "malformed")
		}
	}
	r = mustRun(t, exitOK, cfg, "poll") // detected again: incident.io
	out.WriteString(r.stdout)
	if strings.Contains(out.String(), "Removed") || strings.Contains(out.String(), "Resolved") {
		t.Errorf("the migration announced something:\n%s", out.String())
	}
	r = mustRun(t, exitOK, cfg, "incidents")
	wantContains(t, "incidents after the migration", r.stdout, "acme/inc1", "migrated")
	r = mustRun(t, exitOK, cfg, "poll")
	if r.stdout != "" {
		t.Errorf("a poll of the new platform printed:\n%s", r.stdout)
	}
}
