package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
)

// pollFixture is a config with a Statuspage page holding one open incident, a page that
// always answers 503, and Slack.
func pollFixture(t *testing.T) (cfg string, slack *fakeslack.Server) {
	t.Helper()
	page := &fakepage.Statuspage{Name: "Acme Cloud"}
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page.Set([]fakepage.Incident{{
		ID: "abc123", Name: "Elevated API errors", Status: "investigating", Impact: "major",
		CreatedAt: t0, UpdatedAt: t0, StartedAt: t0,
		Updates: []fakepage.Update{{ID: "u1", Status: "investigating", Body: "We are investigating.", CreatedAt: t0, UpdatedAt: t0, DisplayAt: t0}},
	}}, nil)
	srv := httptest.NewServer(page)
	t.Cleanup(srv.Close)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(broken.Close)
	slack = fakeslack.New(fakeslack.Options{Token: "xoxb-test"})
	t.Cleanup(slack.Close)
	dir := t.TempDir()
	cfg = filepath.Join(dir, "config.yaml")
	yml := fmt.Sprintf(`database: %s
listen: ""
slack: {token: xoxb-test, channel: "#vendor-status", api_url: %q}
sources:
  - {name: acme, title: Acme Cloud, url: %q, kind: statuspage}
  - {name: broken, url: %q, kind: statuspage}
`, filepath.Join(dir, "watcher.db"), slack.APIURL(), srv.URL+"/", broken.URL+"/")
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, slack
}

func posts(s *fakeslack.Server) int {
	n := 0
	for _, c := range s.Calls() {
		if c.Method == "chat.postMessage" {
			n++
		}
	}
	return n
}

func TestPollPrintsEachFailureOnceAndASummary(t *testing.T) {
	cfg, slack := pollFixture(t)
	slack.Fail(50, fakeslack.Fault{Method: "chat.postMessage", Status: 500})

	// Slack answers 500: the round gives delivery its short default budget, in which
	// the backoff (2 s, then 4 s) allows two or three tries, not the five of 30 s.
	r := mustRun(t, exitPartial, cfg, "poll")
	want := []string{
		"broken: incidents: fetch " + "http://127.0.0.1:",
		"delivery: message 1: #vendor-status: slack chat.postMessage: HTTP 500",
		"1 of 2 sources read, 1 failed, 0 notifications delivered, 1 still queued for the next run or the daemon (delivery had -deliver-timeout 5s)",
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines on stderr, want %d (one per failure and the summary):\n%s", len(lines), len(want), r.stderr)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("stderr line %d: got %q, want it to start with %q", i+1, lines[i], w)
		}
	}
	if n := posts(slack); n < 1 || n > 3 {
		t.Errorf("got %d chat.postMessage tries, want 1 to 3 within the default budget", n)
	}
	out := mustRun(t, exitOK, cfg, "outbox", "list")
	wantContains(t, "outbox list", out.stdout, "pending", "acme/abc123 v1")

	// A shorter budget: one try, since the first backoff (2 s ±20%) does not fit.
	slack.Reset()
	slack.Fail(50, fakeslack.Fault{Method: "chat.postMessage", Status: 500})
	mustRun(t, exitPartial, cfg, "poll", "-source", "acme", "-deliver-timeout", "1s")
	if n := posts(slack); n != 1 {
		t.Errorf("-deliver-timeout 1s: got %d chat.postMessage tries, want 1", n)
	}

	// Slack hangs: the budget's deadline ends the run; the message stays queued.
	slack.Reset()
	slack.Fail(5, fakeslack.Fault{Method: "chat.postMessage", Delay: time.Minute})
	r = mustRun(t, exitPartial, cfg, "poll", "-source", "acme", "-deliver-timeout", "500ms")
	wantContains(t, "hung Slack", r.stderr, "1 of 1 source read, 0 failed, 0 notifications delivered, 1 still queued")
	if strings.Contains(r.stderr, "deadline exceeded") {
		t.Errorf("got the context's error on stderr, want only the summary:\n%s", r.stderr)
	}

	// Slack is back: the queued message goes out.
	slack.Reset()
	r = mustRun(t, exitOK, cfg, "poll", "-source", "acme")
	if got, want := strings.TrimSpace(r.stderr), "1 of 1 source read, 0 failed, 1 notification delivered"; got != want {
		t.Errorf("got stderr %q, want %q", got, want)
	}
	if n := posts(slack); n != 1 {
		t.Errorf("got %d chat.postMessage calls, want 1", n)
	}
}

func TestPollDeliverTimeoutMustBePositive(t *testing.T) {
	_, stderr, code := runIn(t, "poll", "-deliver-timeout", "0s")
	if code != exitUsage || !strings.Contains(stderr, "-deliver-timeout must be above 0") {
		t.Errorf("got exit %d, stderr %q; want exit 2 and the reason", code, stderr)
	}
}

func TestPollThroughTheDaemonSummarises(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme Cloud"}
	page.Set(nil, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	yml := fmt.Sprintf("database: %s\nlisten: %s\nsources:\n  - {name: acme, url: %q, kind: statuspage, schedule: '@every 1h'}\n  - {name: nowhere, url: 'http://127.0.0.1:1/', kind: statuspage, schedule: '@every 1h'}\n",
		filepath.Join(dir, "watcher.db"), freeAddr(t, dir), srv.URL+"/")
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, cfg)
	defer d.stop(t)
	r := mustRun(t, exitPartial, cfg, "poll")
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	want := []string{
		"acme: polled by the daemon: 0 incidents changed",
		"nowhere: ",
		"1 of 2 sources read by the daemon, 1 failed; the daemon delivers the notifications",
	}
	if len(lines) != len(want) {
		t.Fatalf("got stderr\n%s\nwant %d lines", r.stderr, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: got %q, want it to start with %q", i+1, lines[i], w)
		}
	}
}

// `watcher poll` writes the maintenance reminders due, as the daemon does: a run from
// cron gets them, once.
func TestPollRemindsMaintenance(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme Cloud"}
	now := time.Now().UTC().Truncate(time.Second)
	start, until := now.Add(30*time.Minute), now.Add(90*time.Minute)
	page.Set(nil, []fakepage.Incident{{ID: "mnt1", Name: "Database upgrade", Status: "scheduled", Impact: "maintenance",
		CreatedAt: now, UpdatedAt: now, StartedAt: start, ScheduledFor: &start, ScheduledUntil: &until}})
	srv := httptest.NewServer(page)
	t.Cleanup(srv.Close)
	slack := fakeslack.New(fakeslack.Options{Token: "xoxb-test"})
	t.Cleanup(slack.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	yml := fmt.Sprintf("database: %s\nlisten: \"\"\nslack: {token: xoxb-test, channel: \"#acme\", api_url: %q}\n"+
		"sources:\n  - {name: acme, title: Acme Cloud, url: %q, kind: statuspage}\n",
		filepath.Join(dir, "watcher.db"), slack.APIURL(), srv.URL+"/")
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, exitOK, cfg, "poll")
	mustRun(t, exitOK, cfg, "poll")
	roots := slack.Messages("#acme")
	if len(roots) != 1 {
		t.Fatalf("roots: got %+v, want the maintenance's", roots)
	}
	replies := slack.Replies("#acme", roots[0].TS)
	if len(replies) != 1 || !strings.HasPrefix(replies[0].Text, "Acme Cloud · Maintenance starts in 30m: Database upgrade") {
		t.Errorf("replies: got %+v, want one reminder", replies)
	}
}
