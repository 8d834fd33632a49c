package web

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestIncidentsAt lists the seeded incidents as they stood before the first poll,
// between versions and after the last, and refuses a bad time.
func TestIncidentsAt(t *testing.T) {
	e := newEnv(t).seed()
	type row struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Status   string `json:"status"`
		Versions int    `json:"versions"`
	}
	tests := []struct {
		at   string
		want []row
	}{
		{"2026-07-01T11:59:59Z", []row{}},
		{"2026-07-01T12:05:00Z", []row{{"mnt-1", "Database upgrade", "scheduled", 1}, {"inc-a", "Intermittent API errors", "investigating", 1}}},
		{"2026-07-01T14:20:00%2B02:00", []row{{"mnt-1", "Database upgrade", "scheduled", 1},
			{"inc-b", "Database latency", "investigating", 1}, {"inc-a", "Elevated API errors", "identified", 2}}},
		{"2026-07-02T00:00:00Z", []row{{"mnt-1", "Database upgrade", "scheduled", 1},
			{"inc-b", "Database latency", "investigating", 1}, {"inc-a", "Elevated API errors", "resolved", 3}}},
	}
	for _, tt := range tests {
		var got []row
		e.getJSON("/api/v1/incidents?source=acme&at="+tt.at, http.StatusOK, &got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("at %s: got %v, want %v", tt.at, got, tt.want)
		}
	}
	// open= reads the version in force: at 12:20 inc-a was open.
	var open []row
	e.getJSON("/api/v1/incidents?source=acme&open=true&at=2026-07-01T12:20:00Z", http.StatusOK, &open)
	if len(open) != 3 {
		t.Errorf("open at 12:20: got %v, want 3", open)
	}
	for _, bad := range []string{"yesterday", "2026-07-01T12:05", "2026-13-01T00:00:00Z"} {
		r := e.get("/api/v1/incidents?at="+bad, http.StatusBadRequest)
		if msg := errorOf(t, r); !strings.Contains(msg, "at: want an RFC 3339 time") {
			t.Errorf("at=%s: got %q", bad, msg)
		}
	}
}

// TestSourceAt answers a source with its incidents and components as they stood.
func TestSourceAt(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	var got struct {
		Name      string  `json:"name"`
		At        *string `json:"at"`
		Incidents []struct {
			ID       string `json:"id"`
			Versions int    `json:"versions"`
		} `json:"incidents"`
		Components []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"components"`
	}
	e.getJSON("/api/v1/sources/acme?at=2026-07-01T12:25:00Z", http.StatusOK, &got)
	if got.Name != "acme" || got.At == nil || *got.At != "2026-07-01T12:25:00Z" {
		t.Errorf("source: got %q at %v", got.Name, got.At)
	}
	if len(got.Incidents) != 3 || got.Incidents[2].ID != "inc-a" || got.Incidents[2].Versions != 2 {
		t.Errorf("incidents at 12:25: got %+v, want mnt-1, inc-b, inc-a v2", got.Incidents)
	}
	comps := map[string]string{}
	for _, c := range got.Components {
		comps[c.Name] = c.Status
	}
	if want := map[string]string{"API": "degraded", "Web": "operational", "DNS": "major_outage"}; !reflect.DeepEqual(comps, want) {
		t.Errorf("components at 12:25: got %v, want %v", comps, want)
	}

	// Before anything: the source, with nothing. Now: the latest.
	e.getJSON("/api/v1/sources/acme?at=2026-06-01T00:00:00Z", http.StatusOK, &got)
	if len(got.Incidents) != 0 || len(got.Components) != 0 {
		t.Errorf("before the first poll: got %+v", got)
	}
	got.At = nil
	e.getJSON("/api/v1/sources/acme?limit=1", http.StatusOK, &got)
	if got.At != nil || len(got.Incidents) != 1 || got.Incidents[0].ID != "mnt-1" || len(got.Components) != 3 {
		t.Errorf("now, limit 1: got %+v", got)
	}
	e.get("/api/v1/sources/nobody", http.StatusNotFound)
	e.get("/api/v1/sources/acme?at=noon", http.StatusBadRequest)
}

// TestSourceStats checks the figures of the seeded archive, exactly: inc-a (title
// changed, first update edited, resolved after 25m, postmortem 3m later) and inc-b
// (open, first seen 5m after its start); the maintenance counts nowhere.
func TestSourceStats(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	r := e.get("/api/v1/sources/acme/stats", http.StatusOK)
	want := `{"source":"acme","days":90,"incidents":2,"by_impact":{"none":0,"minor":1,"major":1,"critical":0,"unknown":0},"open":1,` +
		`"median_resolve_s":1500,"p90_resolve_s":1500,"median_posting_lag_s":150,"median_first_update_s":0,` +
		`"postmortems":1,"postmortem_rate":0.5,"median_postmortem_delay_s":180,` +
		`"edits":{"updates_edited":1,"updates_removed":0,"titles_changed":1,"backdated":0,"impact_lowered_after_resolution":0,"incidents_removed":0},` +
		`"incidents_with_silent_edits":1,"component_outage_s":6000}`
	if got := strings.TrimSpace(string(r.body)); got != want {
		t.Errorf("acme stats:\n got %s\nwant %s", got, want)
	}
	// A day back from now (14:00) still holds both; their start is t0.
	var one struct {
		Days      int `json:"days"`
		Incidents int `json:"incidents"`
	}
	e.getJSON("/api/v1/sources/acme/stats?days=1", http.StatusOK, &one)
	if one.Days != 1 || one.Incidents != 2 {
		t.Errorf("days=1: got %+v", one)
	}
	for _, bad := range []string{"0", "3651", "x"} {
		e.get("/api/v1/sources/acme/stats?days="+bad, http.StatusBadRequest)
	}
	e.get("/api/v1/sources/nobody/stats", http.StatusNotFound)

	var rows []struct {
		Source           string   `json:"source"`
		Incidents        int      `json:"incidents"`
		ComponentOutageS *float64 `json:"component_outage_s"`
	}
	e.getJSON("/api/v1/stats", http.StatusOK, &rows)
	if len(rows) != 2 || rows[0].Source != "acme" || rows[1].Source != "beta" || rows[1].Incidents != 1 || rows[1].ComponentOutageS != nil {
		t.Errorf("every source: got %+v", rows)
	}
}
