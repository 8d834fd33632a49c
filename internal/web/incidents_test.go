package web

import (
	"encoding/json"
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

// ids lists the "source/id" of a page of incidents.
func ids(items []incidentItemJSONIn) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Source + "/" + it.ID
	}
	return out
}

// incidentItemJSONIn decodes a list item, times as the strings they are sent as.
type incidentItemJSONIn struct {
	Source, ID, Title, Status, Impact, Kind string
	StartedAt                               *string `json:"started_at"`
	ResolvedAt                              *string `json:"resolved_at"`
	Versions                                int
	URL                                     string
	UIURL                                   string `json:"ui_url"`
	Removed                                 bool
	LastChangedAt                           *string `json:"last_changed_at"`
}

func TestListIncidents(t *testing.T) {
	e := newEnv(t).seed()
	e.daemon.SourcesFn = func() []SourceStatus { return []SourceStatus{{Name: "acme"}, {Name: "gamma"}} }
	all := []string{"acme/mnt-1", "acme/inc-b", "acme/inc-a", "beta/" + betaID}
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"all, newest first", "", all},
		{"one source", "?source=beta", []string{"beta/" + betaID}},
		{"configured source with nothing archived", "?source=gamma", []string{}},
		{"open", "?open=true", []string{"acme/mnt-1", "acme/inc-b", "beta/" + betaID}},
		{"closed", "?open=false", []string{"acme/inc-a"}},
		{"open in one source", "?source=acme&open=1", []string{"acme/mnt-1", "acme/inc-b"}},
		{"q in titles", "?q=database", []string{"acme/mnt-1", "acme/inc-b"}},
		{"q is case-insensitive", "?q=DATABASE+Latency", []string{"acme/inc-b"}},
		{"q needs all its words", "?q=database+gateway", []string{}},
		{"q in an update body", "?q=replica", []string{"acme/inc-b"}},
		{"q across title and updates", "?q=elevated+gateway+API", []string{"acme/inc-a"}},
		{"q in the postmortem", "?q=minutes", []string{"acme/inc-a"}},
		{"q reads every version", "?q=intermittent", []string{"acme/inc-a"}},
		{"q with open", "?q=database&open=true", []string{"acme/mnt-1", "acme/inc-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []incidentItemJSONIn
			r := e.getJSON("/api/v1/incidents"+tt.query, http.StatusOK, &got)
			if g := ids(got); !slices.Equal(g, tt.want) {
				t.Errorf("got %q, want %q", g, tt.want)
			}
			if h := r.header.Get("X-Next-Cursor") + r.header.Get("Link"); h != "" {
				t.Errorf("a single page announced a next one: %q", h)
			}
		})
	}

	t.Run("fields", func(t *testing.T) {
		var got []incidentItemJSONIn
		e.getJSON("/api/v1/incidents?source=acme&q=gateway", http.StatusOK, &got)
		if len(got) != 1 {
			t.Fatalf("got %d items, want 1", len(got))
		}
		a := got[0]
		want := incidentItemJSONIn{Source: "acme", ID: "inc-a", Title: "Elevated API errors", Status: "resolved",
			Impact: "minor", Kind: "incident", Versions: 3, URL: "https://status.acme.test/incidents/inc-a",
			UIURL: "/incidents/acme/inc-a"}
		gotNoTimes := a
		gotNoTimes.StartedAt, gotNoTimes.ResolvedAt, gotNoTimes.LastChangedAt = nil, nil, nil
		if gotNoTimes != want {
			t.Errorf("got %+v, want %+v", gotNoTimes, want)
		}
		for name, pair := range map[string][2]any{
			"started_at":      {a.StartedAt, "2026-07-01T12:00:00Z"},
			"resolved_at":     {a.ResolvedAt, "2026-07-01T12:25:00Z"},
			"last_changed_at": {a.LastChangedAt, "2026-07-01T12:30:00Z"},
		} {
			if p := pair[0].(*string); p == nil || *p != pair[1] {
				t.Errorf("%s: got %v, want %q", name, p, pair[1])
			}
		}
	})

	t.Run("matched", func(t *testing.T) {
		type item struct {
			ID      string
			Matched *struct {
				Version int
				Field   string
				Latest  bool
			}
		}
		for _, tt := range []struct{ query, want string }{
			// The title said "Intermittent" in version 1 only.
			{"?q=intermittent", `[{"ID":"inc-a","Matched":{"Version":1,"Field":"title","Latest":false}}]`},
			{"?q=gateway&source=acme", `[{"ID":"inc-a","Matched":{"Version":3,"Field":"updates","Latest":true}}]`},
			{"?source=acme", `[{"ID":"mnt-1","Matched":null},{"ID":"inc-b","Matched":null},{"ID":"inc-a","Matched":null}]`},
		} {
			var got []item
			e.getJSON("/api/v1/incidents"+tt.query, http.StatusOK, &got)
			if b, _ := json.Marshal(got); string(b) != tt.want {
				t.Errorf("%s: got %s, want %s", tt.query, b, tt.want)
			}
		}
	})

	t.Run("null times and ui_url of a hashed id", func(t *testing.T) {
		var got []incidentItemJSONIn
		e.getJSON("/api/v1/incidents?open=true", http.StatusOK, &got)
		for _, it := range got {
			switch it.ID {
			case "mnt-1":
				if it.StartedAt != nil || it.ResolvedAt != nil {
					t.Errorf("mnt-1: got started_at %v, resolved_at %v; want null, null", it.StartedAt, it.ResolvedAt)
				}
			case betaID:
				if it.UIURL != "/incidents/beta/"+betaID {
					t.Errorf("ui_url: got %q, want /incidents/beta/%s", it.UIURL, betaID)
				}
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tt := range []struct {
			query string
			want  int
		}{
			{"?source=nope", http.StatusNotFound},
			{"?source=nope&q=dns", http.StatusNotFound},
			{"?open=maybe", http.StatusBadRequest},
			{"?limit=0", http.StatusBadRequest},
			{"?limit=-3", http.StatusBadRequest},
			{"?limit=ten", http.StatusBadRequest},
			{"?before=not-a-cursor", http.StatusBadRequest},
			{"?before=" + param.Cursor(versionsCursor, "3"), http.StatusBadRequest},
			{"?before=" + param.Cursor(incidentsCursor, "yesterday", "acme", "inc-a"), http.StatusBadRequest},
		} {
			r := e.get("/api/v1/incidents"+tt.query, tt.want)
			t.Logf("%s: %s", tt.query, errorOf(t, r))
		}
	})
}

func TestListIncidentsBaseURL(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.BaseURL = "https://watch.example.com/" }).seed()
	var got []incidentItemJSONIn
	e.getJSON("/api/v1/incidents?source=beta", http.StatusOK, &got)
	if want := "https://watch.example.com/incidents/beta/" + betaID; len(got) != 1 || got[0].UIURL != want {
		t.Errorf("ui_url: got %+v, want %q", got, want)
	}
}

// manyIncidents archives n incidents of source "many", five to a start time, so that
// paging must order ties by id.
func (e *env) manyIncidents(n int, at time.Time) []model.Incident {
	var incs []model.Incident
	for i := range n {
		incs = append(incs, model.Incident{
			ID: fmt.Sprintf("m%02d", i), Kind: model.KindIncident, Status: model.StatusResolved, Impact: model.ImpactMinor,
			Title: fmt.Sprintf("Incident %d", i), StartedAt: t0.Add(time.Duration(i/5) * time.Hour),
		})
	}
	e.record("many", at, incs)
	return incs
}

// pageThrough follows the next-page headers from path to the end, with the Link header
// when useLink, else X-Next-Cursor, calling between after each page.
func (e *env) pageThrough(t *testing.T, path string, useLink bool, between func(page int)) (all []string, pages int) {
	t.Helper()
	for next := path; next != ""; {
		var got []incidentItemJSONIn
		r := e.getJSON(next, http.StatusOK, &got)
		pages++
		all = append(all, ids(got)...)
		cursor, link := r.header.Get("X-Next-Cursor"), r.header.Get("Link")
		if (cursor == "") != (link == "") {
			t.Fatalf("page %d: X-Next-Cursor %q and Link %q disagree", pages, cursor, link)
		}
		if cursor == "" {
			break
		}
		if !strings.HasPrefix(link, "</api/v1/incidents?") || !strings.HasSuffix(link, `>; rel="next"`) {
			t.Fatalf("page %d: Link: got %q", pages, link)
		}
		if useLink {
			next = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
		} else {
			u, _ := url.Parse(next)
			q := u.Query()
			q.Set("before", cursor)
			u.RawQuery = q.Encode()
			next = u.String()
		}
		if between != nil {
			between(pages)
		}
		if pages > 100 {
			t.Fatal("paging does not end")
		}
	}
	return all, pages
}

func TestListIncidentsPaging(t *testing.T) {
	e := newEnv(t)
	incs := e.manyIncidents(23, t0)
	var whole []incidentItemJSONIn
	e.getJSON("/api/v1/incidents?source=many&limit=1000", http.StatusOK, &whole)
	want := ids(whole)
	if len(want) != len(incs) {
		t.Fatalf("one page: got %d incidents, want %d", len(want), len(incs))
	}
	if want[0] != "many/m22" || want[1] != "many/m21" || want[len(want)-1] != "many/m00" {
		t.Fatalf("order: got %q", want)
	}

	for _, tt := range []struct {
		name      string
		limit     int
		useLink   bool
		wantPages int
	}{
		{"limit 4 by cursor", 4, false, 6},
		{"limit 5 by link", 5, true, 5},
		{"limit 1", 1, false, 23},
		{"limit 23: one full page", 23, false, 1},
		{"limit 22", 22, true, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, pages := e.pageThrough(t, fmt.Sprintf("/api/v1/incidents?source=many&limit=%d", tt.limit), tt.useLink, nil)
			if !slices.Equal(got, want) {
				t.Errorf("pages joined: got %q, want %q", got, want)
			}
			if pages != tt.wantPages {
				t.Errorf("pages: got %d, want %d", pages, tt.wantPages)
			}
		})
	}

	t.Run("limit above the maximum is clamped", func(t *testing.T) {
		var got []incidentItemJSONIn
		r := e.getJSON("/api/v1/incidents?limit=5000", http.StatusOK, &got)
		if len(got) != len(incs) || r.header.Get("X-Next-Cursor") != "" {
			t.Errorf("got %d items, next %q; want %d, none", len(got), r.header.Get("X-Next-Cursor"), len(incs))
		}
	})

	t.Run("filters are kept across pages", func(t *testing.T) {
		// Every title is "Incident <n>"; "1" is a whole word, so it is m01 alone.
		got, pages := e.pageThrough(t, "/api/v1/incidents?source=many&q=incident&limit=2", true, nil)
		if !slices.Equal(got, want) || pages != 12 {
			t.Errorf("got %q in %d pages, want %q in 12", got, pages, want)
		}
		got, _ = e.pageThrough(t, "/api/v1/incidents?source=many&q=incident+1&limit=2", true, nil)
		if wantQ := []string{"many/m01"}; !slices.Equal(got, wantQ) {
			t.Errorf("got %q, want %q", got, wantQ)
		}
	})

	t.Run("no duplicates or gaps while incidents arrive", func(t *testing.T) {
		// After the first page, a newer incident and an older one are archived: the
		// pages still read on where they were, the older one joins the tail.
		got, _ := e.pageThrough(t, "/api/v1/incidents?source=many&limit=4", false, func(page int) {
			if page != 1 {
				return
			}
			more := append(slices.Clone(incs),
				model.Incident{ID: "new", Kind: model.KindIncident, Status: model.StatusInvestigating,
					Impact: model.ImpactMinor, Title: "Newest", StartedAt: t0.Add(24 * time.Hour)},
				model.Incident{ID: "old", Kind: model.KindIncident, Status: model.StatusResolved,
					Impact: model.ImpactMinor, Title: "Oldest", StartedAt: t0.Add(-24 * time.Hour)})
			e.record("many", t0.Add(time.Hour), more)
		})
		wantGrown := append(slices.Clone(want), "many/old")
		if !slices.Equal(got, wantGrown) {
			t.Errorf("got %q, want %q", got, wantGrown)
		}
	})
}
