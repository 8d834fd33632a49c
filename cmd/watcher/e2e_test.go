package main

// The end-to-end test of the core pipeline (issue 2): the real binary against an httptest
// Statuspage page, stepping one incident through its life with `watcher poll`, and checking
// the archive through `history`, `diff` and `incidents` as a user would.

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

var binary string // the built watcher, set by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "watcher-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "watcher")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build watcher: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

func watcher(t *testing.T, cfg string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "WATCHER_CONFIG="+cfg, "SLACK_BOT_TOKEN=", "STATE_DIRECTORY=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run watcher %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// mustRun runs the binary and fails unless it exits with want.
func mustRun(t *testing.T, want int, cfg string, args ...string) result {
	t.Helper()
	r := watcher(t, cfg, args...)
	if os.Getenv("E2E_SHOW") != "" {
		t.Logf("$ watcher %s → %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	if r.code != want {
		t.Fatalf("watcher %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

func writeConfig(t *testing.T, dir, pageURL string) string {
	t.Helper()
	cfg := filepath.Join(dir, "config.yaml")
	data := "database: " + filepath.Join(dir, "watcher.db") + "\n" +
		"listen: \"\"\n" +
		"sources:\n" +
		"  - name: acme\n" +
		"    title: Acme Cloud\n" +
		"    url: " + pageURL + "\n" +
		"    kind: statuspage\n"
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s: missing %q in:\n%s", what, w, got)
		}
	}
}

func TestIncidentLifeEndToEnd(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme Cloud"}
	srv := httptest.NewServer(page)
	defer srv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, srv.URL+"/")
	db := filepath.Join(dir, "watcher.db")

	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	ptr := func(t time.Time) *time.Time { return &t }
	old := fakepage.Incident{
		ID: "old1", Name: "Old resolved outage", Status: "resolved", Impact: "minor",
		CreatedAt: at(-5000), UpdatedAt: at(-4900), StartedAt: at(-5000), ResolvedAt: ptr(at(-4900)),
		Updates: []fakepage.Update{{ID: "o1", Status: "resolved", Body: "Fixed.", CreatedAt: at(-4900), UpdatedAt: at(-4900), DisplayAt: at(-4900)}},
	}
	api := fakepage.Component{ID: "c1", Name: "API", Status: "degraded_performance"}
	inc := fakepage.Incident{
		ID: "abc123", Name: "Elevated API errors", Status: "investigating", Impact: "major",
		CreatedAt: at(0), UpdatedAt: at(0), StartedAt: at(0), Components: []fakepage.Component{api},
		Updates: []fakepage.Update{{ID: "u1", Status: "investigating", Body: "We are investigating elevated error rates on the API.", CreatedAt: at(0), UpdatedAt: at(0), DisplayAt: at(0)}},
	}

	t.Run("first poll archives history quietly", func(t *testing.T) {
		page.Set([]fakepage.Incident{old}, nil)
		r := mustRun(t, exitOK, cfg, "poll")
		if r.stdout != "" {
			t.Errorf("first poll of a resolved history printed notifications:\n%s", r.stdout)
		}
		r = mustRun(t, exitOK, cfg, "incidents")
		wantContains(t, "incidents", r.stdout, "acme/old1", "Old resolved outage")
	})

	t.Run("new incident", func(t *testing.T) {
		page.Set([]fakepage.Incident{inc, old}, nil)
		r := mustRun(t, exitOK, cfg, "poll")
		wantContains(t, "poll stdout", r.stdout, "Acme Cloud: New incident: Elevated API errors", "investigating", "major", "API")
		r = mustRun(t, exitOK, cfg, "diff", "acme/abc123", "0", "1")
		wantContains(t, "diff 0→1", r.stdout, "title", "Elevated API errors", "status", "impact", "components", "updates[u1]", "started_at")
		for _, field := range []string{"title:", "status:", "impact:", "components:", "started_at:", "updates[u1] (Investigating · "} {
			i := strings.Index(r.stdout, field)
			if i < 0 {
				t.Errorf("diff 0→1 lacks field %s", field)
				continue
			}
			rest := r.stdout[i:]
			if j := strings.Index(rest, "After:"); j < 0 || !strings.Contains(rest[:j], "Before: not present") {
				t.Errorf("diff 0→1, field %s: want \"Before: not present\", got:\n%s", field, rest)
			}
		}
	})

	inc.Status, inc.UpdatedAt = "identified", at(20)
	inc.Updates = append([]fakepage.Update{{ID: "u2", Status: "identified", Body: "We identified a faulty deploy and are rolling it back.", CreatedAt: at(20), UpdatedAt: at(20), DisplayAt: at(20)}}, inc.Updates...)
	t.Run("new update", func(t *testing.T) {
		page.Set([]fakepage.Incident{inc, old}, nil)
		r := mustRun(t, exitOK, cfg, "poll")
		wantContains(t, "poll stdout", r.stdout, "Acme Cloud: Updated incident: Elevated API errors", "investigating → identified", "1 update added", "faulty deploy")
	})

	// A silent edit: the vendor rewords the first update; only updated_at tells.
	inc.Updates[1].Body = "We are investigating elevated error rates on the API in eu-west-1."
	inc.Updates[1].UpdatedAt = at(25)
	inc.UpdatedAt = at(25)
	t.Run("edited update", func(t *testing.T) {
		page.Set([]fakepage.Incident{inc, old}, nil)
		r := mustRun(t, exitOK, cfg, "poll")
		wantContains(t, "poll stdout", r.stdout, "1 update edited", "updates[u1].body (Investigating · ", "eu-west-1")
		// Not a terminal: the edit is marked as git diff --word-diff marks it.
		wantContains(t, "poll stdout", r.stdout, "on the API{+ in eu-west-1+}.")
		r = mustRun(t, exitOK, cfg, "diff", "acme/abc123", "2", "3")
		wantContains(t, "diff 2→3", r.stdout, "updates[u1].body (Investigating · ", "  We are investigating elevated error rates on the API{+ in eu-west-1+}.\n")
	})

	inc.Status, inc.UpdatedAt, inc.ResolvedAt = "resolved", at(90), ptr(at(90))
	inc.Updates = append([]fakepage.Update{{ID: "u3", Status: "resolved", Body: "This incident has been resolved.", CreatedAt: at(90), UpdatedAt: at(90), DisplayAt: at(90)}}, inc.Updates...)
	t.Run("resolved", func(t *testing.T) {
		page.Set([]fakepage.Incident{inc, old}, nil)
		r := mustRun(t, exitOK, cfg, "poll")
		wantContains(t, "poll stdout", r.stdout, "Acme Cloud: Resolved: Elevated API errors", "identified → resolved")
	})

	inc.Status, inc.UpdatedAt = "postmortem", at(3000)
	inc.PostmortemBody = "## Root cause\nA configuration change removed capacity from the API fleet."
	inc.PostmortemPublishedAt = ptr(at(3000))
	t.Run("postmortem", func(t *testing.T) {
		page.Set([]fakepage.Incident{inc, old}, nil)
		r := mustRun(t, exitOK, cfg, "poll")
		wantContains(t, "poll stdout", r.stdout, "Acme Cloud: Postmortem: Elevated API errors", "postmortem published", "Root cause")
	})

	t.Run("history", func(t *testing.T) {
		r := mustRun(t, exitOK, cfg, "history", "acme/abc123")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 6 { // header + 5 versions
			t.Fatalf("history: got %d lines, want 6:\n%s", len(lines), r.stdout)
		}
		wantContains(t, "history", r.stdout, "investigating → identified", "1 update edited", "postmortem published")
		r = mustRun(t, exitOK, cfg, "diff", "acme/abc123")
		wantContains(t, "diff latest", r.stdout, "version 4 → 5", "postmortem.body", "Before: not present")
	})

	t.Run("unchanged polls write nothing", func(t *testing.T) {
		before := fileSum(t, db)
		page.Requests()
		for i := range 3 {
			r := mustRun(t, exitOK, cfg, "poll")
			if r.stdout != "" {
				t.Errorf("unchanged poll %d printed:\n%s", i+1, r.stdout)
			}
		}
		if after := fileSum(t, db); after != before {
			t.Errorf("three unchanged polls changed the archive file")
		}
		for _, req := range page.Requests() {
			if req.Path == "/api/v2/incidents.json" && (req.IfNoneMatch == "" || req.Status != 304) {
				t.Errorf("unchanged poll of %s: If-None-Match %q, status %d; want a conditional GET answered 304", req.Path, req.IfNoneMatch, req.Status)
			}
			if !strings.HasPrefix(req.UserAgent, "statuswatch/") {
				t.Errorf("User-Agent %q, want statuswatch/…", req.UserAgent)
			}
		}
	})

	t.Run("failing page exits 3 and keeps the archive", func(t *testing.T) {
		page.FailNext(100)
		defer page.FailNext(0)
		r := mustRun(t, exitPartial, cfg, "poll")
		wantContains(t, "stderr", r.stderr, "acme")
		r = mustRun(t, exitOK, cfg, "incidents", "-source", "acme")
		wantContains(t, "incidents", r.stdout, "acme/abc123", "postmortem")
	})
}

func TestBrowseNeverCreatesArchive(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "http://127.0.0.1:1/")
	r := mustRun(t, exitError, cfg, "incidents")
	wantContains(t, "stderr", r.stderr, "no archive at")
	if _, err := os.Stat(filepath.Join(dir, "watcher.db")); !os.IsNotExist(err) {
		t.Errorf("incidents created an archive (stat: %v)", err)
	}
}

func TestCommandsAnswerHelp(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			r := watcher(t, "/nonexistent", c.name, "-h")
			if r.code != exitOK {
				t.Errorf("watcher %s -h: exit %d, want 0\n%s", c.name, r.code, r.stderr)
			}
			if r.stderr != "" {
				t.Errorf("watcher %s -h: got stderr %q, want nothing", c.name, r.stderr)
			}
			wantContains(t, "usage on stdout", r.stdout, "usage: watcher "+c.name)
		})
	}
}

func TestBadConfigIsOneLine(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("sources:\n  - name: acme\n    url: https://example.com\n    schedule: \"61 * * * *\"\n"), 0o600)
	r := mustRun(t, exitError, cfg, "check")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "error: sources[0].schedule (line 4): ") {
		t.Errorf("bad config: got stderr %q, want one line starting \"error: sources[0].schedule (line 4): \"", r.stderr)
	}
}
