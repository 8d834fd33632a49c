package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// `watcher mcp` on stdio, driven by the SDK's own client: an incident polled twice is
// found, read and diffed; bad arguments are tool errors.
func TestMCPOverStdio(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme Cloud"}
	srv := httptest.NewServer(page)
	defer srv.Close()
	cfg := writeConfig(t, t.TempDir(), srv.URL+"/")
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	upd := func(id, status, body string, at time.Time) fakepage.Update {
		return fakepage.Update{ID: id, Status: status, Body: body, CreatedAt: at, UpdatedAt: at, DisplayAt: at}
	}
	inc := fakepage.Incident{ID: "abc123", Name: "Elevated API errors", Status: "investigating", Impact: "major",
		CreatedAt: t0, UpdatedAt: t0, StartedAt: t0,
		Updates: []fakepage.Update{upd("u1", "investigating", "We are investigating.", t0)}}
	page.Set([]fakepage.Incident{inc}, nil)
	mustRun(t, exitOK, cfg, "poll")
	inc.Status, inc.UpdatedAt = "identified", t0.Add(10*time.Minute)
	inc.Updates = append([]fakepage.Update{upd("u2", "identified", "A bad deploy of the gateway.", t0.Add(10*time.Minute))}, inc.Updates...)
	page.Set([]fakepage.Incident{inc}, nil)
	mustRun(t, exitOK, cfg, "poll")

	ctx := t.Context()
	cmd := exec.Command(binary, "mcp", "-config", cfg)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if init := cs.InitializeResult(); init.ServerInfo.Name != "statuswatch" || init.ServerInfo.Version != version {
		t.Errorf("server: got %+v, want statuswatch %s", init.ServerInfo, version)
	}
	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	decode := func(res *sdk.CallToolResult, out any) {
		t.Helper()
		if res.IsError {
			t.Fatalf("tool error: %+v", res.Content[0])
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	var sources struct{ Sources []api.Source }
	decode(call("list_sources", nil), &sources)
	if len(sources.Sources) != 1 || sources.Sources[0].Title != "Acme Cloud" || sources.Sources[0].Retired {
		t.Errorf("list_sources: got %+v, want acme, configured", sources.Sources)
	}
	var found struct{ Incidents []api.IncidentItem }
	decode(call("search_incidents", map[string]any{"query": "API errors"}), &found)
	if len(found.Incidents) != 1 || found.Incidents[0].ID != "abc123" || found.Incidents[0].Versions != 2 {
		t.Fatalf("search: got %+v, want abc123 with 2 versions", found.Incidents)
	}
	var d api.Diff
	decode(call("diff_incident", map[string]any{"source": "acme", "id": "abc123"}), &d)
	if d.From != 1 || d.To != 2 || !strings.Contains(d.Summary, "identified") {
		t.Errorf("diff: got %+v, want 1 → 2, identified", d)
	}
	if res := call("get_incident", map[string]any{"source": "acme", "id": "abc123", "at": "2026-11-02 14:00"}); !res.IsError {
		t.Errorf("a bad time: got %+v, want a tool error", res)
	}
}

// Without an archive there is nothing to serve: one error line on stderr, exit 1, nothing
// on stdout (the protocol's), and no archive created.
func TestMCPWithoutArchive(t *testing.T) {
	cfg := writeConfig(t, t.TempDir(), "https://status.example.com/")
	r := mustRun(t, exitError, cfg, "mcp", "-config", cfg)
	if r.stdout != "" || !strings.HasPrefix(r.stderr, "error: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("got stdout %q, stderr %q; want one error line on stderr", r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), "watcher.db")); !os.IsNotExist(err) {
		t.Errorf("the archive: got %v, want none created", err)
	}
}
