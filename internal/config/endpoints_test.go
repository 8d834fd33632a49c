package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch"
)

// TestEndpointNames: an endpoint name the source's platform does not declare is an
// error naming the nearest known one, not an override silently ignored.
func TestEndpointNames(t *testing.T) {
	const head = "sources:\n  - name: acme\n    url: https://status.acme.test\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"misspelled, statuspage", head + "    kind: statuspage\n    endpoints:\n      incidnets: https://p.test/i.json\n",
			`sources[0].endpoints.incidnets (line 6): no endpoint "incidnets" of kind statuspage (did you mean incidents?); known: incident, incident-page, incidents, scheduled-maintenances, summary`},
		{"misspelled, auto", head + "    endpoints:\n      summray: https://p.test/s.json\n",
			`sources[0].endpoints.summray (line 5): no endpoint "summray" of any platform (did you mean summary?)`},
		{"another platform's", head + "    kind: gcp\n    endpoints:\n      summary: https://p.test/s.json\n",
			`sources[0].endpoints.summary (line 6): no endpoint "summary" of kind gcp; known: incidents`},
		{"far from any", head + "    kind: azure\n    endpoints:\n      nothing-like-it: https://p.test/s.json\n",
			`sources[0].endpoints.nothing-like-it (line 6): no endpoint "nothing-like-it" of kind azure; known: feed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "watcher.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, yaml string }{
		{"statuspage", head + "    kind: statuspage\n    endpoints:\n      incidents: https://p.test/i.json\n      incident-page: https://p.test/i/{id}\n"},
		{"auto, any platform's", head + "    endpoints:\n      history: https://p.test/h.atom\n"},
		{"status.io", head + "    kind: statusio\n    endpoints:\n      status: https://api.status.io/1.0/status/5b36dc6502d06804c08349f7\n"},
	} {
		t.Run("valid "+tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.yaml), "watcher.yaml"); err != nil {
				t.Errorf("got %v, want no error", err)
			}
		})
	}
}

// TestExampleListsEndpointNames: config.example.yaml names every kind's endpoints as the
// adapters declare them.
func TestExampleListsEndpointNames(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The comment block of the endpoints key, as one line of text.
	var text strings.Builder
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "#   endpoints ") {
			in = true
		} else if in && !strings.HasPrefix(l, "#      ") {
			break
		}
		if in {
			text.WriteString(strings.TrimSpace(strings.TrimPrefix(l, "#")) + " ")
		}
	}
	listed := map[string][]string{}
	_, rest, _ := strings.Cut(text.String(), "any other is an error):")
	for _, seg := range strings.Split(rest, ";") {
		kind, names, ok := strings.Cut(seg, ":")
		if !ok {
			continue
		}
		for _, n := range strings.Split(names, ",") {
			listed[strings.TrimSpace(kind)] = append(listed[strings.TrimSpace(kind)], strings.TrimSpace(n))
		}
	}
	for _, kind := range fetch.Kinds() {
		got := slices.Sorted(slices.Values(listed[kind]))
		if want := fetch.EndpointNames(kind); !slices.Equal(got, want) {
			t.Errorf("config.example.yaml lists %q for kind %s, want %q", got, kind, want)
		}
	}
}

// TestKindsFromRegistry: the kinds a source may name are auto and the fetch registry's,
// every one of them, and the error for another lists exactly those.
func TestKindsFromRegistry(t *testing.T) {
	const head = "sources:\n  - name: acme\n    url: https://status.acme.test\n    kind: "
	for _, kind := range append([]string{"auto"}, fetch.Kinds()...) {
		t.Run(kind, func(t *testing.T) {
			cfg, err := Parse([]byte(head+kind+"\n"), "watcher.yaml")
			if err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if got := cfg.Sources[0].Kind; got != kind {
				t.Errorf("got kind %q, want %q", got, kind)
			}
		})
	}
	_, err := Parse([]byte(head+"atlassian\n"), "watcher.yaml")
	want := "must be one of auto, " + strings.Join(fetch.Kinds(), ", ") + `, found "atlassian"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
}
