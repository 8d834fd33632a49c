package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/mcp"
)

// The MCP tools through the SDK's own client, over both transports: in memory (what
// `watcher mcp` runs on stdio: the API's handlers in process) and Streamable HTTP at /mcp
// of the real server with web.auth on.

// connectInMemory serves the tools over e's handler in memory and returns a client
// session.
func connectInMemory(t *testing.T, e *env) *sdk.ClientSession {
	t.Helper()
	ctx := t.Context()
	srv := mcp.NewServer(mcp.InProcess(e.srv.Handler()), mcp.Options{Version: "test"})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	return connect(t, ct)
}

func connect(t *testing.T, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// withToken adds the bearer token to every request.
type withToken struct {
	token string
	next  http.RoundTripper
}

func (b withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectHTTP connects to /mcp of a server with a bearer token configured.
func connectHTTP(t *testing.T) (*env, *sdk.ClientSession) {
	t.Helper()
	e := authEnv(t, config.Auth{BearerToken: config.NewSecret(bearerSecret)})
	hc := &http.Client{Transport: withToken{bearerSecret, http.DefaultTransport}, Timeout: 30 * time.Second}
	return e, connect(t, &sdk.StreamableClientTransport{Endpoint: e.http.URL + "/mcp", HTTPClient: hc, MaxRetries: -1})
}

func TestMCPToolsInMemory(t *testing.T) { checkTools(t, connectInMemory(t, newEnv(t).seed())) }

func TestMCPToolsOverHTTPWithAuth(t *testing.T) {
	_, cs := connectHTTP(t)
	checkTools(t, cs)
}

// call calls a tool and decodes its structured result into out; it fails the test on a
// protocol error or a tool error.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	reflect.ValueOf(out).Elem().SetZero() // a field the result leaves out is not the last call's
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, b, err)
	}
}

// toolError calls a tool that must fail and returns its message.
func toolError(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: a protocol error, want a tool error: %v", name, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: got a result, want a tool error: %s", name, args, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func checkTools(t *testing.T, cs *sdk.ClientSession) {
	ctx := t.Context()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: want a description, an input and an output schema", tool.Name)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: not marked read-only", tool.Name)
		}
	}
	want := []string{"diff_incident", "get_incident", "list_events", "list_sources", "list_versions", "related_incidents", "search_incidents", "source_stats"}
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Errorf("tools: got %v, want %v", names, want)
	}

	t.Run("list_sources", func(t *testing.T) {
		var out struct{ Sources []api.Source }
		call(t, cs, "list_sources", nil, &out)
		if len(out.Sources) != 2 || out.Sources[0].Name != "acme" || out.Sources[0].Incidents != 3 {
			t.Errorf("got %+v, want acme (3 incidents) and beta", out.Sources)
		}
	})
	t.Run("search_incidents", func(t *testing.T) {
		var out struct {
			Incidents  []api.IncidentItem
			NextCursor string `json:"next_cursor"`
		}
		call(t, cs, "search_incidents", map[string]any{"query": "deploy"}, &out)
		if len(out.Incidents) != 1 || out.Incidents[0].ID != "inc-a" || out.Incidents[0].Versions != 3 || out.NextCursor != "" {
			t.Errorf("deploy: got %+v, want inc-a with 3 versions, one page", out)
		}
		// A word of the first version's title only: found, and said to be gone.
		call(t, cs, "search_incidents", map[string]any{"query": "Intermittent"}, &out)
		if len(out.Incidents) != 1 || out.Incidents[0].Matched == nil ||
			*out.Incidents[0].Matched != (api.Match{Version: 1, Field: "title", Latest: false}) {
			t.Errorf("intermittent: got %+v, want inc-a matched in version 1's title, not the latest", out.Incidents)
		}
		// Paging, one at a time, through every acme incident; then open and since.
		var ids []string
		args := map[string]any{"query": "", "source": "acme", "limit": 1}
		for range 5 {
			call(t, cs, "search_incidents", args, &out)
			for _, in := range out.Incidents {
				ids = append(ids, in.ID)
			}
			if out.NextCursor == "" {
				break
			}
			args["cursor"] = out.NextCursor
		}
		if want := []string{"mnt-1", "inc-b", "inc-a"}; !slices.Equal(ids, want) {
			t.Errorf("paged one by one: got %v, want %v", ids, want)
		}
		call(t, cs, "search_incidents", map[string]any{"query": "", "open": false}, &out)
		if len(out.Incidents) != 1 || out.Incidents[0].ID != "inc-a" {
			t.Errorf("open false: got %+v, want inc-a", out.Incidents)
		}
		call(t, cs, "search_incidents", map[string]any{"query": "", "since": t0.Add(20 * time.Minute).Format(time.RFC3339)}, &out)
		if got := len(out.Incidents); got != 3 { // inc-a resolved after it, inc-b and beta's open; not the maintenance
			t.Errorf("since: got %d incidents %+v, want 3", got, out.Incidents)
		}
	})
	t.Run("source_stats", func(t *testing.T) {
		var st api.SourceStats
		call(t, cs, "source_stats", map[string]any{"source": "acme"}, &st)
		if st.Days != 90 || st.Incidents != 2 || st.Edits.TitlesChanged != 1 || st.Edits.UpdatesEdited != 1 ||
			st.MedianResolveS == nil || *st.MedianResolveS != 1500 || st.ComponentOutageS != nil {
			t.Errorf("acme: got %+v", st)
		}
		call(t, cs, "source_stats", map[string]any{"source": "acme", "days": 1}, &st)
		if st.Days != 1 {
			t.Errorf("days 1: got %d", st.Days)
		}
		if msg := toolError(t, cs, "source_stats", map[string]any{"source": "nobody"}); !strings.Contains(msg, "unknown source") {
			t.Errorf("unknown source: got %q", msg)
		}
	})
	t.Run("get_incident", func(t *testing.T) {
		var inc api.Incident
		call(t, cs, "get_incident", map[string]any{"source": "acme", "id": "inc-a"}, &inc)
		if inc.Version != 3 || inc.Postmortem == nil {
			t.Errorf("latest: got version %d, postmortem %v; want 3 with a postmortem", inc.Version, inc.Postmortem)
		}
		call(t, cs, "get_incident", map[string]any{"source": "acme", "id": "inc-a", "version": 1}, &inc)
		if inc.Version != 1 || inc.Title != "Intermittent API errors" {
			t.Errorf("version 1: got %d %q", inc.Version, inc.Title)
		}
		call(t, cs, "get_incident", map[string]any{"source": "acme", "id": "inc-a", "at": t0.Add(15 * time.Minute).Format(time.RFC3339)}, &inc)
		if inc.Version != 2 {
			t.Errorf("at t0+15m: got version %d, want 2", inc.Version)
		}
	})
	t.Run("list_versions", func(t *testing.T) {
		var out struct {
			Versions   []api.Version
			NextCursor string `json:"next_cursor"`
		}
		call(t, cs, "list_versions", map[string]any{"source": "acme", "id": "inc-a", "limit": 2}, &out)
		if len(out.Versions) != 2 || out.Versions[0].Version != 3 || out.NextCursor == "" {
			t.Fatalf("first page: got %+v, want versions 3, 2 and a cursor", out)
		}
		call(t, cs, "list_versions", map[string]any{"source": "acme", "id": "inc-a", "limit": 2, "cursor": out.NextCursor}, &out)
		if len(out.Versions) != 1 || out.Versions[0].Version != 1 || out.NextCursor != "" {
			t.Errorf("second page: got %+v, want version 1 alone", out)
		}
	})
	t.Run("diff_incident", func(t *testing.T) {
		var d api.Diff
		call(t, cs, "diff_incident", map[string]any{"source": "acme", "id": "inc-a"}, &d)
		if d.From != 2 || d.To != 3 || len(d.Changes) == 0 {
			t.Errorf("latest change: got %d → %d with %d changes", d.From, d.To, len(d.Changes))
		}
		call(t, cs, "diff_incident", map[string]any{"source": "acme", "id": "inc-a", "from": 0, "to": 1}, &d)
		if d.From != 0 || d.To != 1 || d.Changes[0].Before != nil {
			t.Errorf("0 → 1: got %d → %d, first change %+v", d.From, d.To, d.Changes[0])
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		for _, tt := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"get_incident", map[string]any{"source": "acme", "id": "nope"}, "acme/nope: unknown incident"},
			{"get_incident", map[string]any{"source": "nope", "id": "inc-a"}, "nope/inc-a: unknown incident"},
			{"get_incident", map[string]any{"source": "acme", "id": "inc-a", "version": 9}, "no version 9"},
			{"get_incident", map[string]any{"source": "acme", "id": "inc-a", "version": 0}, "minimum"},
			{"get_incident", map[string]any{"source": "acme", "id": "inc-a", "at": "yesterday"}, `at: "yesterday" is not an RFC 3339 time`},
			{"get_incident", map[string]any{"source": "acme", "id": "inc-a", "at": t0.Add(-time.Hour).Format(time.RFC3339)}, "no version in force"},
			{"get_incident", map[string]any{"source": "acme", "id": "inc-a", "version": 1, "at": t0.Format(time.RFC3339)}, "not both"},
			{"get_incident", map[string]any{"source": "acme"}, "id"},
			{"get_incident", map[string]any{"source": "acme", "id": 7}, "id"},
			{"search_incidents", map[string]any{"query": "", "source": "nope"}, `unknown source "nope"`},
			{"search_incidents", map[string]any{"query": "", "since": "2026-13-01"}, "since"},
			{"search_incidents", map[string]any{"query": "", "limit": 1000}, "maximum"},
			{"search_incidents", map[string]any{"query": "", "cursor": "garbage"}, "cursor"},
			{"search_incidents", map[string]any{}, "query"},
			{"list_versions", map[string]any{"source": "acme", "id": "inc-a", "cursor": "garbage"}, "cursor"},
			{"list_versions", map[string]any{"source": "acme", "id": "nope"}, "unknown incident"},
			{"diff_incident", map[string]any{"source": "acme", "id": "inc-a", "to": 7}, "no version 7"},
			{"diff_incident", map[string]any{"source": "acme", "id": "inc-a", "from": -1}, "minimum"},
			{"diff_incident", map[string]any{"source": "acme", "id": "nope"}, "unknown incident"},
		} {
			if got := toolError(t, cs, tt.tool, tt.args); !strings.Contains(got, tt.want) {
				t.Errorf("%s %v: got %q, want it to say %q", tt.tool, tt.args, got, tt.want)
			}
		}
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
			t.Error("an unknown tool: got no error")
		}
	})
	t.Run("resource", func(t *testing.T) {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.IncidentURI("acme", "inc-a")})
		if err != nil {
			t.Fatal(err)
		}
		var inc api.Incident
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &inc); err != nil || inc.ID != "inc-a" || inc.Version != 3 {
			t.Errorf("got %s (%v), want inc-a version 3", res.Contents[0].Text, err)
		}
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.IncidentURI("acme", "nope")}); err == nil {
			t.Error("an unknown incident: got no error")
		}
		tmpls, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(tmpls.ResourceTemplates) != 1 {
			t.Errorf("templates: got %+v, %v", tmpls, err)
		}
	})
	t.Run("prompt", func(t *testing.T) {
		res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "summarise_changes", Arguments: map[string]string{"source": "acme", "id": "inc-a"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Messages[0].Content.(*sdk.TextContent).Text; !strings.Contains(got, "version 3") || !strings.Contains(got, "acme/inc-a") {
			t.Errorf("got %q, want the incident and its versions", got)
		}
		var inc api.Incident
		if err := json.Unmarshal([]byte(res.Messages[1].Content.(*sdk.EmbeddedResource).Resource.Text), &inc); err != nil || inc.Version != 3 {
			t.Errorf("attached: got version %d (%v), want the latest, 3", inc.Version, err)
		}
		if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "summarise_changes", Arguments: map[string]string{"source": "acme", "id": "nope"}}); err == nil {
			t.Error("an unknown incident: got no error")
		}
	})
}

// /mcp is behind web.auth like every other route.
func TestMCPNeedsAuth(t *testing.T) {
	e, _ := connectHTTP(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, header := range []http.Header{nil, {"Authorization": {"Bearer wrong"}}} {
		req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/mcp", strings.NewReader(body))
		req.Header = header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST /mcp with %v: got %d, want 401", header, resp.StatusCode)
		}
	}
	// With the token, by the name a reverse proxy on this machine forwards: answered (the
	// Host check of guard.go admits any name once auth is on).
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/mcp", strings.NewReader(body))
	req.Host = "status.example.test"
	req.Header = http.Header{"Authorization": {"Bearer " + bearerSecret}, "Content-Type": {"application/json"},
		"Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {"2025-06-18"}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), "search_incidents") {
		t.Errorf("POST /mcp for a proxied host name: got %d %s, want 200 with the tools", resp.StatusCode, got)
	}
	// A client without the token cannot even start.
	c := sdk.NewClient(&sdk.Implementation{Name: "anonymous", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.http.URL + "/mcp", MaxRetries: -1}, nil); err == nil {
		cs.Close()
		t.Error("connect without the token: got no error")
	}
}

// Without web.auth, /mcp answers only the host names the server serves, like every route
// (guard.go): a page rebinding its own name to the loopback daemon gets 421.
func TestMCPHostCheck(t *testing.T) {
	e := newEnv(t).seed()
	for _, tt := range []struct {
		host string
		want int
	}{{"evil.example", http.StatusMisdirectedRequest}, {"localhost", http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Host = tt.host
		req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2025-06-18"}}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("POST /mcp for Host %s: got %d, want %d", tt.host, resp.StatusCode, tt.want)
		}
	}
}
