package e2e

// TestTimeTravelAndFiguresEndToEnd is the end-to-end test of time travel and vendor
// figures: a local Statuspage page goes through an incident's life, polled by the built
// binary at known moments (the test notes the wall clock between polls), and
//
//   - ?at= a moment between two polls answers the earlier version, in the incident list,
//     the source's answer (with its components then), the incident's /at, and the
//     source and incident pages;
//   - before the first poll nothing is listed, and after the last the latest;
//   - the figures count the update edited and the title changed, and the vendor's
//     scripted times come out exact (resolved after 30m, first update 5m after the
//     start, postmortem 1h after the resolution).

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

func TestTimeTravelAndFiguresEndToEnd(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	page.SetComponents([]fakepage.PageComponent{{ID: apiID, Name: "API", Status: "operational"}})
	page.Set(nil, nil)
	before := time.Now().UTC()
	w := newWorld(t, page, "statuspage", atRoot, "")
	w.page = page
	// The incident started two hours before the test's first poll of it; the vendor's
	// times are set from there.
	scripted := time.Now()
	start := scripted.UTC().Truncate(time.Second).Add(-2 * time.Hour)
	min := func(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }
	u1 := fakepage.Update{ID: "upd1", Status: "investigating", Body: "We are looking into errors on the API.",
		CreatedAt: min(5), UpdatedAt: min(5), DisplayAt: min(5)}
	inc := fakepage.Incident{ID: "tt01", Name: "API errors", Status: "investigating", Impact: "major",
		CreatedAt: min(5), UpdatedAt: min(5), StartedAt: start,
		Components: []fakepage.Component{{ID: apiID, Name: "API", Status: "major_outage"}},
		Updates:    []fakepage.Update{u1}}

	// Version 1: the incident appears, the API in major outage.
	page.Set([]fakepage.Incident{inc}, nil)
	page.SetComponentStatus(apiID, "major_outage")
	w.poll()
	between := time.Now().UTC()

	// Version 2: the title reworded and the first update edited in place, silently.
	inc.Name = "API errors in eu-west"
	inc.Updates[0].Body = "We are looking into elevated errors on the API."
	inc.Updates[0].UpdatedAt = min(20)
	page.Set([]fakepage.Incident{inc}, nil)
	w.poll()
	between2 := time.Now().UTC()

	// Version 3: resolved after 30 minutes, the API back, and a postmortem an hour later.
	resolved, published := min(30), min(90)
	inc.Status, inc.ResolvedAt, inc.UpdatedAt = "resolved", &resolved, resolved
	inc.Updates = append([]fakepage.Update{{ID: "upd2", Status: "resolved", Body: "Resolved.",
		CreatedAt: resolved, UpdatedAt: resolved, DisplayAt: resolved}}, inc.Updates...)
	inc.PostmortemBody, inc.PostmortemPublishedAt = "A bad deploy of the API gateway.", &published
	page.Set([]fakepage.Incident{inc}, nil)
	page.SetComponentStatus(apiID, "operational")
	w.poll()

	at := func(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }
	type item struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Status   string `json:"status"`
		Versions int    `json:"versions"`
	}
	for _, tt := range []struct {
		name string
		at   time.Time
		want string
	}{
		{"before the first poll", before, ""},
		{"between versions 1 and 2", between, "tt01 API errors investigating v1"},
		{"between versions 2 and 3", between2, "tt01 API errors in eu-west investigating v2"},
		{"after the last", time.Now().UTC().Add(time.Minute), "tt01 API errors in eu-west resolved v3"},
	} {
		var items []item
		w.get("/api/v1/incidents?source=acme&at="+at(tt.at), &items)
		var got []string
		for _, it := range items {
			got = append(got, fmt.Sprintf("%s %s %s v%d", it.ID, it.Title, it.Status, it.Versions))
		}
		if strings.Join(got, "; ") != tt.want {
			t.Errorf("incidents %s: got %q, want %q", tt.name, got, tt.want)
		}
	}

	var src struct {
		Name       string `json:"name"`
		Incidents  []item `json:"incidents"`
		Components []struct {
			Name, Status string
		} `json:"components"`
	}
	w.get("/api/v1/sources/acme?at="+at(between), &src)
	if src.Name != "acme" || len(src.Incidents) != 1 || src.Incidents[0].Title != "API errors" ||
		len(src.Components) != 1 || src.Components[0].Status != "major_outage" {
		t.Errorf("source at the first version: got %+v", src)
	}
	w.get("/api/v1/sources/acme", &src)
	if len(src.Incidents) != 1 || src.Incidents[0].Status != "resolved" || src.Components[0].Status != "operational" {
		t.Errorf("source now: got %+v", src)
	}
	var one item
	w.get("/api/v1/incidents/acme/tt01/at?time="+at(between), &one)
	if one.Title != "API errors" {
		t.Errorf("incident at the first version: got %+v", one)
	}

	// The pages as they stood.
	for path, want := range map[string]string{
		"/incidents/acme/tt01?at=" + at(between): "Showing version 1 of 3",
		"/sources/acme?at=" + at(between):        "As of ",
	} {
		body := pageBody(t, w, path)
		if !strings.Contains(body, want) || !strings.Contains(body, "API errors") || strings.Contains(body, "in eu-west") {
			t.Errorf("%s: not the first version (want %q)", path, want)
		}
	}

	var st struct {
		Incidents          int      `json:"incidents"`
		Open               int      `json:"open"`
		MedianResolveS     *float64 `json:"median_resolve_s"`
		MedianFirstUpdateS *float64 `json:"median_first_update_s"`
		MedianPostingLagS  *float64 `json:"median_posting_lag_s"`
		Postmortems        int      `json:"postmortems"`
		PostmortemDelayS   *float64 `json:"median_postmortem_delay_s"`
		Edits              struct {
			UpdatesEdited  int `json:"updates_edited"`
			UpdatesRemoved int `json:"updates_removed"`
			TitlesChanged  int `json:"titles_changed"`
		} `json:"edits"`
		Silent           int      `json:"incidents_with_silent_edits"`
		ComponentOutageS *float64 `json:"component_outage_s"`
	}
	w.get("/api/v1/sources/acme/stats?days=7", &st)
	sec := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	if st.Incidents != 1 || st.Open != 0 || sec(st.MedianResolveS) != 1800 || sec(st.MedianFirstUpdateS) != 300 ||
		st.Postmortems != 1 || sec(st.PostmortemDelayS) != 3600 ||
		st.Edits.UpdatesEdited != 1 || st.Edits.UpdatesRemoved != 0 || st.Edits.TitlesChanged != 1 || st.Silent != 1 {
		t.Errorf("figures: got %+v", st)
	}
	// Seen two hours after its start, and the test's own time; the API was out from the
	// second poll to the last.
	if lag, most := sec(st.MedianPostingLagS), 7201+time.Since(scripted).Seconds(); lag < 7200 || lag > most {
		t.Errorf("posting lag: got %v s, want 7200 to %v", lag, most)
	}
	if out := sec(st.ComponentOutageS); out <= 0 || out > time.Since(before).Seconds() {
		t.Errorf("component outage: got %v s, want more than 0 and less than the test took", out)
	}
	var rows []struct {
		Source    string `json:"source"`
		Incidents int    `json:"incidents"`
	}
	w.get("/api/v1/stats", &rows)
	if len(rows) != 1 || rows[0].Source != "acme" || rows[0].Incidents != 1 {
		t.Errorf("every source: got %+v", rows)
	}
	if body := pageBody(t, w, "/stats?sort=incidents&order=desc"); !strings.Contains(body, `href="/sources/acme">Acme</a>`) {
		t.Error("/stats: no row for Acme")
	}
}

// pageBody is the HTML of the UI page at path, failing unless it is 200.
func pageBody(t *testing.T, w *compWorld, path string) string {
	t.Helper()
	resp, err := http.Get(w.d.URL(path))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	return string(b)
}
