package web

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/atom"
)

// TestFirstSight: the incidents a source's first poll archives show as one "Archived on
// first sight" line per source on the dashboard and one entry per source in the feeds,
// never as new; an incident that appears later is new, also on a source whose first poll
// found nothing.
func TestFirstSight(t *testing.T) {
	e := newEnv(t)
	old := func(id string, minutes int) model.Incident {
		start := t0.Add(-time.Duration(minutes) * time.Hour)
		return model.Incident{ID: id, Kind: model.KindIncident, Status: model.StatusResolved, Impact: model.ImpactMinor,
			Title: "Old " + id, StartedAt: start, ResolvedAt: start.Add(time.Hour)}
	}
	history := []model.Incident{old("h1", 30), old("h2", 60), old("h3", 90)}
	fresh := model.Incident{ID: "n1", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title: "Fresh outage", StartedAt: t0.Add(5 * time.Minute)}
	e.record("acme", t0, history)
	e.record("quiet", t0, nil) // a first poll that found nothing
	e.record("acme", t0.Add(10*time.Minute), append([]model.Incident{fresh}, history...))
	e.record("quiet", t0.Add(20*time.Minute), []model.Incident{fresh})

	dash := string(e.htmlGet("/", http.StatusOK).body)
	changes := dash[strings.Index(dash, `id="changes-h"`):]
	if got := strings.Count(changes, "Archived on first sight"); got != 1 {
		t.Errorf("dashboard: %d first-sight lines, want 1 (acme's)", got)
	}
	for _, want := range []string{"3 incidents already on the page when statuswatch first read it, archived as found: <a href=\"/incidents/acme/h1\">Old h1</a>, <a href=\"/incidents/acme/h2\">Old h2</a>, <a href=\"/incidents/acme/h3\">Old h3</a>.", `href="/sources/acme#incidents-h"`} {
		if !strings.Contains(changes, want) {
			t.Errorf("dashboard: want %q", want)
		}
	}
	if got := strings.Count(changes, "New incident"); got != 2 {
		t.Errorf("dashboard: %d new incidents, want 2 (acme's and quiet's fresh one)", got)
	}
	for _, id := range []string{"h1", "h2", "h3"} {
		if strings.Contains(changes, "/incidents/acme/"+id+"/changes/") {
			t.Errorf("dashboard: %s, of the first poll, listed on its own", id)
		}
	}

	// The incident's own pages say so too, and a later incident is new there.
	pages := []struct{ path, want, unwanted string }{
		{"/incidents/acme/h1", "Archived on first sight: resolved, minor impact.", "New incident"},
		{"/incidents/acme/h1/changes/1", "Archived on first sight: resolved, minor impact.", "New incident"},
		{"/incidents/quiet/n1", "New incident: investigating, major impact.", "Archived on first sight"},
		{"/incidents/acme/n1/changes/1", "New incident: investigating, major impact.", "Archived on first sight"},
	}
	for _, p := range pages {
		page := string(e.htmlGet(p.path, http.StatusOK).body)
		if !strings.Contains(page, p.want) || strings.Contains(page, p.unwanted) {
			t.Errorf("%s: want %q and no %q", p.path, p.want, p.unwanted)
		}
	}

	tests := []struct {
		path   string
		titles []string
	}{
		{"/feed.atom", []string{"New incident: Fresh outage · Quiet", "New incident: Fresh outage · Acme", "Archived on first sight: 3 incidents · Acme"}},
		{"/sources/acme/feed.atom", []string{"New incident: Fresh outage · Acme", "Archived on first sight: 3 incidents · Acme"}},
		{"/sources/quiet/feed.atom", []string{"New incident: Fresh outage · Quiet"}},
	}
	for _, tt := range tests {
		var f atom.Feed
		if err := xml.Unmarshal(e.get(tt.path, http.StatusOK).body, &f); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, en := range f.Entries {
			got = append(got, en.Title)
		}
		if strings.Join(got, "\n") != strings.Join(tt.titles, "\n") {
			t.Errorf("%s: titles: got %q, want %q", tt.path, got, tt.titles)
		}
		for _, en := range f.Entries {
			if strings.HasPrefix(en.Title, "Archived") {
				for _, id := range []string{"h1", "h2", "h3"} {
					if !strings.Contains(en.Content.Body, `/incidents/acme/`+id+`">Old `+id+`</a>`) {
						t.Errorf("%s: the first-sight entry does not link %s:\n%s", tt.path, id, en.Content.Body)
					}
				}
				if want := "tag:localhost,2026-07-01:acme/first-sight"; en.ID != want {
					t.Errorf("%s: id: got %q, want %q", tt.path, en.ID, want)
				}
			}
		}
	}
}
