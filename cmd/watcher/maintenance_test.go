package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

func TestBackupAndCompact(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page.Set([]fakepage.Incident{{
		ID: "inc1", Name: "API errors", Status: "investigating", Impact: "major", CreatedAt: t0, UpdatedAt: t0, StartedAt: t0,
		Updates: []fakepage.Update{{ID: "u1", Status: "investigating", Body: "Looking into it.", CreatedAt: t0, UpdatedAt: t0, DisplayAt: t0}},
	}}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, srv.URL)
	mustRun(t, exitOK, cfg, "poll")

	backup := filepath.Join(dir, "backup.db")
	r := mustRun(t, exitOK, cfg, "backup", backup)
	wantContains(t, "backup", r.stdout, "written to "+backup)

	r = mustRun(t, exitOK, cfg, "compact")
	wantContains(t, "compact", r.stdout, "compacted")

	// Restore: the copy in place of the archive serves the same history.
	if err := os.Rename(backup, filepath.Join(dir, "watcher.db")); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, exitOK, cfg, "history", "acme/inc1")
	if !strings.Contains(r.stdout, "New incident") {
		t.Errorf("restored archive: history lacks version 1:\n%s", r.stdout)
	}
}

func TestBackupAndCompactWhileTheDaemonRuns(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	srv := httptest.NewServer(page)
	defer srv.Close()
	dir := t.TempDir()
	cfg := daemonConfig(t, dir, map[string]string{"acme": srv.URL})
	d := startDaemon(t, cfg)
	postPoll(t, d, "acme")

	backup := filepath.Join(dir, "hot.db")
	mustRun(t, exitOK, cfg, "backup", backup)
	if fi, err := os.Stat(backup); err != nil || fi.Size() == 0 {
		t.Fatalf("hot backup through the daemon: %v", err)
	}
	r := mustRun(t, exitError, cfg, "compact")
	wantContains(t, "compact while running", r.stderr, "stop the daemon first")
	d.stop(t)
}
