package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools against the whole API are tested with the web server (internal/web/mcp_test.go
// and the end-to-end tests); here, what concerns this package alone.

// apiFunc is an API of one function.
type apiFunc func(ctx context.Context, path string, q url.Values, into any) (string, error)

func (f apiFunc) Get(ctx context.Context, path string, q url.Values, into any) (string, error) {
	return f(ctx, path, q, into)
}

func session(t *testing.T, a API) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(a, Options{}).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A failing archive read is a tool error that says so, for every tool.
func TestAPIFailureIsAToolError(t *testing.T) {
	cs := session(t, apiFunc(func(context.Context, string, url.Values, any) (string, error) {
		return "", &Error{Status: http.StatusInternalServerError, Message: "internal error: the archive could not be read"}
	}))
	for name, args := range map[string]map[string]any{
		"list_sources":     {},
		"search_incidents": {"query": "x"},
		"get_incident":     {"source": "a", "id": "b"},
		"list_versions":    {"source": "a", "id": "b"},
		"diff_incident":    {"source": "a", "id": "b"},
		"source_stats":     {"source": "a"},
	} {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: protocol error %v, want a tool error", name, err)
		}
		if !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "the archive could not be read") {
			t.Errorf("%s: got %+v, want a tool error naming the failure", name, res)
		}
	}
}

// search_incidents stops when its caller gives up, however many pages are left.
func TestSearchStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	api := apiFunc(func(ctx context.Context, _ string, _ url.Values, _ any) (string, error) {
		calls++
		if calls == 3 {
			cancel()
		}
		return "more", nil // an endless list of empty pages
	})
	_, _, err := (&tools{api: api}).search(ctx, nil, searchInput{})
	if !errors.Is(err, context.Canceled) || calls != 3 {
		t.Errorf("got %v after %d pages, want context.Canceled after 3", err, calls)
	}
}

func TestIncidentURI(t *testing.T) {
	for _, tt := range []struct{ source, id string }{{"acme", "inc-a"}, {"beta", "x/y z"}} {
		uri := IncidentURI(tt.source, tt.id)
		source, id, ok := parseIncidentURI(uri)
		if !ok || source != tt.source || id != tt.id {
			t.Errorf("%q: got %q %q %v", uri, source, id, ok)
		}
	}
	for _, uri := range []string{"statuswatch://incident/acme", "statuswatch://incident//x", "http://incident/a/b", "statuswatch://source/a/b"} {
		if _, _, ok := parseIncidentURI(uri); ok {
			t.Errorf("%q: parsed, want refused", uri)
		}
	}
}
