package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
)

// incidentJSONIn decodes the parts of an incident answer the tests look at.
type incidentJSONIn struct {
	Source, ID, Title, Status, Impact, Kind, Description string
	ProviderID                                           string  `json:"provider_id"`
	Version                                              int     `json:"version"`
	ObservedAt                                           string  `json:"observed_at"`
	Versions                                             int     `json:"versions"`
	ResolvedAt                                           *string `json:"resolved_at"`
	UIURL                                                string  `json:"ui_url"`
	Components                                           []string
	Updates                                              []struct{ ID, Body string }
	Postmortem                                           *struct{ Body string }
}

func TestIncident(t *testing.T) {
	e := newEnv(t).seed()

	t.Run("latest, golden", func(t *testing.T) {
		r := e.get("/api/v1/incidents/acme/inc-a", http.StatusOK)
		golden(t, "incident.json", r.body)
	})

	tests := []struct {
		name, path                      string
		wantID, wantTitle, wantObserved string
		wantVersion, wantVersions       int
	}{
		{"latest of an open incident", "/api/v1/incidents/acme/inc-b", "inc-b", "Database latency", "2026-07-01T12:10:00Z", 1, 1},
		{"hashed id", "/api/v1/incidents/beta/" + betaID, betaID, "Login failures", "2026-07-01T12:05:00Z", 1, 1},
		{"provider id in the path", "/api/v1/incidents/beta/" + url.PathEscape(betaProviderID), betaID, "Login failures", "2026-07-01T12:05:00Z", 1, 1},
		{"version n", "/api/v1/incidents/acme/inc-a/versions/2", "inc-a", "Elevated API errors", "2026-07-01T12:10:00Z", 2, 3},
		{"version 1", "/api/v1/incidents/acme/inc-a/versions/1", "inc-a", "Intermittent API errors", "2026-07-01T12:00:00Z", 1, 3},
		{"at the first observation", "/api/v1/incidents/acme/inc-a/at?time=2026-07-01T12:00:00Z", "inc-a", "Intermittent API errors", "2026-07-01T12:00:00Z", 1, 3},
		{"at between versions", "/api/v1/incidents/acme/inc-a/at?time=2026-07-01T12:09:59.999Z", "inc-a", "Intermittent API errors", "2026-07-01T12:00:00Z", 1, 3},
		{"at exactly version 2", "/api/v1/incidents/acme/inc-a/at?time=2026-07-01T12:10:00Z", "inc-a", "Elevated API errors", "2026-07-01T12:10:00Z", 2, 3},
		{"at with an offset", "/api/v1/incidents/acme/inc-a/at?time=" + url.QueryEscape("2026-07-01T14:15:00+02:00"), "inc-a", "Elevated API errors", "2026-07-01T12:10:00Z", 2, 3},
		{"at with an unescaped +", "/api/v1/incidents/acme/inc-a/at?time=2026-07-01T14:15:00+02:00", "inc-a", "Elevated API errors", "2026-07-01T12:10:00Z", 2, 3},
		{"at long after", "/api/v1/incidents/acme/inc-a/at?time=2030-01-01T00:00:00Z", "inc-a", "Elevated API errors", "2026-07-01T12:30:00Z", 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got incidentJSONIn
			e.getJSON(tt.path, http.StatusOK, &got)
			if got.ID != tt.wantID || got.Title != tt.wantTitle || got.ObservedAt != tt.wantObserved ||
				got.Version != tt.wantVersion || got.Versions != tt.wantVersions {
				t.Errorf("got id %q title %q observed %q version %d of %d; want %q %q %q %d of %d",
					got.ID, got.Title, got.ObservedAt, got.Version, got.Versions,
					tt.wantID, tt.wantTitle, tt.wantObserved, tt.wantVersion, tt.wantVersions)
			}
		})
	}

	t.Run("a hashed id keeps the provider id", func(t *testing.T) {
		var got incidentJSONIn
		e.getJSON("/api/v1/incidents/beta/"+betaID, http.StatusOK, &got)
		if got.ProviderID != betaProviderID || got.UIURL != "/incidents/beta/"+betaID {
			t.Errorf("got provider_id %q ui_url %q, want %q, /incidents/beta/%s", got.ProviderID, got.UIURL, betaProviderID, betaID)
		}
		if want := "Beta experienced an incident on July 1, 2026, ongoing for 3h."; got.Description != want {
			t.Errorf("description: got %q, want %q", got.Description, want)
		}
	})

	t.Run("an older version is that version", func(t *testing.T) {
		var got incidentJSONIn
		e.getJSON("/api/v1/incidents/acme/inc-a/versions/2", http.StatusOK, &got)
		if got.Status != "identified" || got.ResolvedAt != nil || got.Postmortem != nil || len(got.Updates) != 2 ||
			!slices.Equal(got.Components, []string{"API", "Dashboard"}) {
			t.Errorf("got %+v", got)
		}
	})

	errs := []struct {
		name, path string
		want       int
		wantErr    string
	}{
		{"unknown incident", "/api/v1/incidents/acme/nope", http.StatusNotFound, "unknown incident"},
		{"unknown source", "/api/v1/incidents/nope/inc-a", http.StatusNotFound, "unknown incident"},
		{"version of an unknown incident", "/api/v1/incidents/acme/nope/versions/1", http.StatusNotFound, "unknown incident"},
		{"version past the latest", "/api/v1/incidents/acme/inc-a/versions/4", http.StatusNotFound, "incident has no version 4"},
		{"version 0", "/api/v1/incidents/acme/inc-a/versions/0", http.StatusBadRequest, "n: "},
		{"version not a number", "/api/v1/incidents/acme/inc-a/versions/two", http.StatusBadRequest, "n: "},
		{"huge version", "/api/v1/incidents/acme/inc-a/versions/99999999999", http.StatusNotFound, "incident has no version"},
		{"at before the first version", "/api/v1/incidents/acme/inc-a/at?time=2026-07-01T11:59:59Z", http.StatusNotFound, "no version in force"},
		{"at of an unknown incident", "/api/v1/incidents/acme/nope/at?time=2026-07-01T13:00:00Z", http.StatusNotFound, "unknown incident"},
		{"at without time", "/api/v1/incidents/acme/inc-a/at", http.StatusBadRequest, "time: required"},
		{"at with a bad time", "/api/v1/incidents/acme/inc-a/at?time=yesterday", http.StatusBadRequest, "time: want an RFC 3339"},
		{"at with a date only", "/api/v1/incidents/acme/inc-a/at?time=2026-07-01", http.StatusBadRequest, "time: want an RFC 3339"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(tt.path, tt.want)
			if got := errorOf(t, r); !strings.Contains(got, tt.wantErr) {
				t.Errorf("error: got %q, want it to contain %q", got, tt.wantErr)
			}
		})
	}
}

func TestListVersions(t *testing.T) {
	e := newEnv(t).seed()
	type item struct {
		Version    int    `json:"version"`
		ObservedAt string `json:"observed_at"`
		Summary    string `json:"summary"`
	}
	var all []item
	r := e.getJSON("/api/v1/incidents/acme/inc-a/versions", http.StatusOK, &all)
	if r.header.Get("X-Next-Cursor") != "" {
		t.Errorf("one page announced a next one")
	}
	var nums []int
	for _, it := range all {
		nums = append(nums, it.Version)
		if it.Summary == "" {
			t.Errorf("version %d: empty summary", it.Version)
		}
	}
	if !slices.Equal(nums, []int{3, 2, 1}) {
		t.Fatalf("versions: got %v, want [3 2 1]", nums)
	}
	if all[2].ObservedAt != "2026-07-01T12:00:00Z" || all[0].ObservedAt != "2026-07-01T12:30:00Z" {
		t.Errorf("observed_at: got %q … %q", all[0].ObservedAt, all[2].ObservedAt)
	}

	t.Run("paged", func(t *testing.T) {
		var got []int
		next := "/api/v1/incidents/acme/inc-a/versions?limit=2"
		for pages := 0; next != ""; pages++ {
			if pages > 3 {
				t.Fatal("paging does not end")
			}
			var page []item
			r := e.getJSON(next, http.StatusOK, &page)
			for _, it := range page {
				got = append(got, it.Version)
			}
			next = ""
			if link := r.header.Get("Link"); link != "" {
				next = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
				if c := r.header.Get("X-Next-Cursor"); !strings.Contains(next, "before="+c) {
					t.Errorf("Link %q does not carry X-Next-Cursor %q", link, c)
				}
			}
		}
		if !slices.Equal(got, []int{3, 2, 1}) {
			t.Errorf("got %v, want [3 2 1]", got)
		}
	})

	for _, tt := range []struct {
		name, path string
		want       int
	}{
		{"unknown incident", "/api/v1/incidents/acme/nope/versions", http.StatusNotFound},
		{"bad limit", "/api/v1/incidents/acme/inc-a/versions?limit=none", http.StatusBadRequest},
		{"incidents cursor", "/api/v1/incidents/acme/inc-a/versions?before=" + param.Cursor(incidentsCursor, "2026-07-01T12:00:00Z", "acme", "inc-a"), http.StatusBadRequest},
		{"cursor not a number", "/api/v1/incidents/acme/inc-a/versions?before=" + param.Cursor(versionsCursor, "x"), http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) { errorOf(t, e.get(tt.path, tt.want)) })
	}
}

func TestDiff(t *testing.T) {
	e := newEnv(t).seed()

	t.Run("from 1 to 3, golden", func(t *testing.T) {
		golden(t, "diff.json", e.get("/api/v1/incidents/acme/inc-a/diff?from=1&to=3", http.StatusOK).body)
	})

	type change struct {
		Field  string
		Before *string
		After  *string
		Ops    []struct{ Op, Text string }
	}
	type answer struct {
		From, To int
		Summary  string
		Changes  []change
	}
	fields := func(a answer) []string {
		var out []string
		for _, c := range a.Changes {
			out = append(out, c.Field)
		}
		return out
	}

	t.Run("defaults: the latest change", func(t *testing.T) {
		var got answer
		e.getJSON("/api/v1/incidents/acme/inc-a/diff", http.StatusOK, &got)
		if got.From != 2 || got.To != 3 || got.Summary == "" {
			t.Errorf("got from %d to %d summary %q, want 2, 3, a summary", got.From, got.To, got.Summary)
		}
		if !slices.Contains(fields(got), "status") || !slices.Contains(fields(got), "postmortem.body") {
			t.Errorf("fields: got %q", fields(got))
		}
		for _, c := range got.Changes {
			if c.Ops == nil {
				t.Errorf("%s: ops missing, want [] at least", c.Field)
			}
		}
	})

	t.Run("to alone diffs from the version before", func(t *testing.T) {
		var got answer
		e.getJSON("/api/v1/incidents/acme/inc-a/diff?to=2", http.StatusOK, &got)
		if got.From != 1 || got.To != 2 {
			t.Errorf("got %d→%d, want 1→2", got.From, got.To)
		}
	})

	t.Run("from 0 is not present", func(t *testing.T) {
		var got answer
		e.getJSON("/api/v1/incidents/acme/inc-a/diff?from=0&to=1", http.StatusOK, &got)
		if got.From != 0 || got.To != 1 || len(got.Changes) == 0 {
			t.Fatalf("got %+v", got)
		}
		for _, c := range got.Changes {
			if c.Before != nil || c.After == nil {
				t.Errorf("%s: got before %v after %v, want null and a value", c.Field, c.Before, c.After)
			}
		}
		if !slices.Contains(fields(got), "title") {
			t.Errorf("fields: got %q, want title among them", fields(got))
		}
	})

	t.Run("version 1 alone diffs from nothing", func(t *testing.T) {
		var got answer
		e.getJSON("/api/v1/incidents/acme/inc-b/diff", http.StatusOK, &got)
		if got.From != 0 || got.To != 1 || len(got.Changes) == 0 {
			t.Errorf("got %+v", got)
		}
	})

	t.Run("same version: no changes", func(t *testing.T) {
		var got answer
		r := e.getJSON("/api/v1/incidents/acme/inc-a/diff?from=2&to=2", http.StatusOK, &got)
		if len(got.Changes) != 0 || !strings.Contains(string(r.body), `"changes":[]`) {
			t.Errorf("got %s", r.body)
		}
	})

	for _, tt := range []struct {
		name, query string
		want        int
	}{
		{"unknown incident", "/api/v1/incidents/acme/nope/diff", http.StatusNotFound},
		{"unknown to", "/api/v1/incidents/acme/inc-a/diff?to=9", http.StatusNotFound},
		{"unknown from", "/api/v1/incidents/acme/inc-a/diff?from=7&to=3", http.StatusNotFound},
		{"to 0", "/api/v1/incidents/acme/inc-a/diff?to=0", http.StatusBadRequest},
		{"negative from", "/api/v1/incidents/acme/inc-a/diff?from=-1", http.StatusBadRequest},
		{"from not a number", "/api/v1/incidents/acme/inc-a/diff?from=first", http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) { errorOf(t, e.get(tt.query, tt.want)) })
	}
}

// TestVersionSearch checks the gallop and binary search behind latest, versions/{n} and
// at= on histories of every length around the powers of two.
func TestVersionSearch(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 37} {
		t.Run(fmt.Sprint(n, " versions"), func(t *testing.T) {
			e := newEnv(t)
			inc := incB
			for i := range n {
				inc.Title = fmt.Sprint("Database latency, take ", i+1)
				e.record("acme", t0.Add(time.Duration(i)*time.Minute), []model.Incident{inc})
			}
			var got incidentJSONIn
			e.getJSON("/api/v1/incidents/acme/inc-b", http.StatusOK, &got)
			if got.Version != n || got.Versions != n {
				t.Errorf("latest: got version %d of %d, want %d of %d", got.Version, got.Versions, n, n)
			}
			for v := 1; v <= n; v++ {
				e.getJSON(fmt.Sprint("/api/v1/incidents/acme/inc-b/versions/", v), http.StatusOK, &got)
				if got.Version != v || got.Versions != n {
					t.Errorf("versions/%d: got version %d of %d", v, got.Version, got.Versions)
				}
				at := t0.Add(time.Duration(v-1)*time.Minute + 30*time.Second).Format(time.RFC3339)
				e.getJSON("/api/v1/incidents/acme/inc-b/at?time="+at, http.StatusOK, &got)
				if got.Version != v || got.Versions != n {
					t.Errorf("at %s: got version %d of %d, want %d of %d", at, got.Version, got.Versions, v, n)
				}
			}
			e.get(fmt.Sprint("/api/v1/incidents/acme/inc-b/versions/", n+1), http.StatusNotFound)
		})
	}
}
