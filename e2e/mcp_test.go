package e2e

// TestMCPEndToEnd is the outside test of issue 16: the demo's incident (internal/demo's
// script, polled step by step into an archive by the built binary) searched, read and
// diffed over MCP, by the Go SDK's client and by the official TypeScript SDK's
// (mcpclient/, from npm), over both transports: stdio (`watcher mcp`, on the archive file,
// then through the daemon's API while `watcher run` holds the file) and Streamable HTTP at
// /mcp of `watcher run`, behind web.auth.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/demo"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

const mcpToken = "e2e-mcp-token-4d1c"

// demoQuery finds the demo's incident, and only it.
const demoQuery = "authentication failures"

func TestMCPEndToEnd(t *testing.T) {
	bin := testbin.Build(t)
	page := &fakepage.Statuspage{Name: "Acme Cloud"}
	srv := httptest.NewServer(page)
	defer srv.Close()

	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	listen := testbin.FreeAddr(t)
	data := "database: " + filepath.Join(dir, "watcher.db") + "\n" +
		"listen: " + listen + "\n" +
		"web:\n  auth:\n    bearer_token: " + mcpToken + "\n" +
		"sources:\n  - name: acme\n    title: Acme Cloud\n    url: " + srv.URL + "/\n    kind: statuspage\n    schedule: \"@every 1h\"\n"
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	// The demo's script, ending a day ago: each step polled once gives its incident a
	// version per change (new, identified, the silent edit, monitoring, resolved, postmortem).
	steps := demo.Script(time.Now().Add(-4 * 24 * time.Hour).Truncate(time.Minute))
	for _, s := range steps {
		page.Set(s.Incidents, nil)
		testbin.Must(t, 0, nil, "poll", "-config", cfg)
	}
	const versions = 6

	stdio := func() sdk.Transport {
		return &sdk.CommandTransport{Command: exec.Command(bin, "mcp", "-config", cfg)}
	}
	t.Run("go client, stdio, archive file", func(t *testing.T) { checkDemo(t, stdio(), versions) })
	t.Run("typescript client, stdio, archive file", func(t *testing.T) {
		checkTS(t, tsClient(t, "stdio", bin, cfg), versions)
	})

	d := testbin.StartDaemon(t, bin, nil, "-config", cfg)
	endpoint := d.URL("/mcp")
	t.Run("go client, http", func(t *testing.T) {
		hc := &http.Client{Transport: withBearer{mcpToken}, Timeout: 30 * time.Second}
		checkDemo(t, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, versions)
	})
	t.Run("http without the token is 401", func(t *testing.T) {
		resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST /mcp without a token: got %d, want 401", resp.StatusCode)
		}
	})
	t.Run("typescript client, http", func(t *testing.T) {
		checkTS(t, tsClient(t, "http", endpoint, mcpToken), versions)
	})
	// The daemon holds the file now: `watcher mcp` reads through its API.
	t.Run("go client, stdio, through the daemon", func(t *testing.T) { checkDemo(t, stdio(), versions) })
}

type withBearer struct{ token string }

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// checkDemo searches, reads and diffs the demo's incident with the Go SDK's client.
func checkDemo(t *testing.T, tr sdk.Transport, versions int) {
	ctx := t.Context()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 8 {
		t.Fatalf("tools: got %v, %v; want 8", tools, err)
	}
	call := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %s: %v", name, b, err)
		}
	}
	var found struct{ Incidents []api.IncidentItem }
	call("search_incidents", map[string]any{"query": demoQuery}, &found)
	if len(found.Incidents) != 1 || found.Incidents[0].Versions != versions {
		t.Fatalf("search %q: got %+v, want the demo's incident with %d versions", demoQuery, found.Incidents, versions)
	}
	ref := map[string]any{"source": "acme", "id": found.Incidents[0].ID}
	var inc api.Incident
	call("get_incident", ref, &inc)
	if inc.Postmortem == nil || inc.Version != versions {
		t.Errorf("get_incident: got version %d, postmortem %v; want the latest with its postmortem", inc.Version, inc.Postmortem)
	}
	// The silent edit is change 3: the first update reworded.
	var d api.Diff
	call("diff_incident", map[string]any{"source": "acme", "id": found.Incidents[0].ID, "from": 2, "to": 3}, &d)
	if len(d.Changes) == 0 || !strings.Contains(*d.Changes[0].After, "North America") {
		t.Errorf("diff 2 → 3: got %+v, want the reworded first update", d)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_incident", Arguments: map[string]any{"source": "acme", "id": "nope"}})
	if err != nil || !res.IsError {
		t.Errorf("an unknown incident: got %+v, %v; want a tool error", res, err)
	}
}

// tsOutput is what mcpclient/client.mjs prints.
type tsOutput struct {
	Tools    []string
	Search   struct{ Incidents []api.IncidentItem }
	Diff     api.Diff
	First    api.Incident
	Resource api.Incident
	Prompt   string
	Bad      struct {
		IsError bool
		Text    string
	}
}

// tsClient runs mcpclient/client.mjs. It is skipped when node or the client's npm
// packages are missing, but not under CI (CI=true), where .ci/run installs them.
func tsClient(t *testing.T, args ...string) tsOutput {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "mcpclient")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	}
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("the TypeScript client needs node and `npm ci` in e2e/mcpclient: %v", err)
		}
		t.Fatalf("the TypeScript client needs node and `npm ci` in e2e/mcpclient (.ci/run installs them): %v", err)
	}
	cmd := exec.CommandContext(t.Context(), node, append([]string{"client.mjs"}, append(args, demoQuery)...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WATCHER_CONFIG=", "SLACK_BOT_TOKEN=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs %v: %v\n%s", args, err, errb.String())
	}
	var got tsOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("client.mjs printed %q: %v\n%s", out.String(), err, errb.String())
	}
	return got
}

func checkTS(t *testing.T, got tsOutput, versions int) {
	t.Helper()
	want := []string{"diff_incident", "get_incident", "list_events", "list_sources", "list_versions", "related_incidents", "search_incidents", "source_stats"}
	if !slices.Equal(got.Tools, want) {
		t.Errorf("tools: got %v, want %v", got.Tools, want)
	}
	if len(got.Search.Incidents) != 1 || got.Search.Incidents[0].Versions != versions {
		t.Fatalf("search: got %+v, want the demo's incident with %d versions", got.Search.Incidents, versions)
	}
	// The latest change: the postmortem published.
	if got.Diff.From != versions-1 || got.Diff.To != versions || !strings.Contains(got.Diff.Summary, "ostmortem") {
		t.Errorf("diff: got %d → %d %q, want %d → %d adding the postmortem", got.Diff.From, got.Diff.To, got.Diff.Summary, versions-1, versions)
	}
	if got.First.Version != 1 || got.First.Title != "Elevated authentication failures" {
		t.Errorf("version 1: got %d %q", got.First.Version, got.First.Title)
	}
	if got.Resource.Version != versions || got.Resource.ID != got.Search.Incidents[0].ID {
		t.Errorf("resource: got %s version %d, want the latest", got.Resource.ID, got.Resource.Version)
	}
	if !strings.Contains(got.Prompt, "version 3") {
		t.Errorf("prompt: got %q, want the versions listed", got.Prompt)
	}
	if !got.Bad.IsError || !strings.Contains(got.Bad.Text, "unknown incident") {
		t.Errorf("an unknown incident: got %+v, want a tool error", got.Bad)
	}
}
