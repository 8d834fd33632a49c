package view

import (
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

func TestFigures(t *testing.T) {
	watch := now.Add(-100 * day) // the first poll of the source
	info := func(id string, firstSeen time.Time, inc model.Incident) archive.IncidentInfo {
		inc.ID = id
		if inc.Kind == "" {
			inc.Kind = model.KindIncident
		}
		return archive.IncidentInfo{Source: "acme", ID: id, Latest: inc, FirstSeen: firstSeen}
	}
	infos := []archive.IncidentInfo{
		// Already on the page when watching began: counted, resolved, but when it first
		// showed is unknown.
		info("old", watch, model.Incident{StartedAt: watch.Add(-5 * day), ResolvedAt: watch.Add(-5*day + time.Hour)}),
		// Seen 6 minutes after its start, resolved after 30 minutes, postmortem 2 days on.
		info("a", now.Add(-10*day+6*time.Minute), model.Incident{StartedAt: now.Add(-10 * day), ResolvedAt: now.Add(-10*day + 30*time.Minute),
			Postmortem: &model.Postmortem{PublishedAt: now.Add(-8*day + 30*time.Minute)}}),
		// Backdated: first seen on a later poll, started before watching began.
		info("b", watch.Add(time.Hour), model.Incident{StartedAt: watch.Add(-time.Hour)}),
		// 45 days ago, resolved after 2h, seen after 4 minutes.
		info("c", now.Add(-45*day+4*time.Minute), model.Incident{StartedAt: now.Add(-45 * day), ResolvedAt: now.Add(-45*day + 2*time.Hour)}),
		// Maintenance counts in nothing.
		info("m", now.Add(-day), model.Incident{Kind: model.KindMaintenance, ScheduledFor: now.Add(-day)}),
	}
	got := Figures(infos, now)
	want := []Figure{
		{"Incidents, last 30 days", "1", "by start time"},
		{"Incidents, last 90 days", "2", "by start time"},
		{"Median time to resolve", "1h", "median of 3 resolved incidents"},
		{"Resolution to postmortem", "2d", "median of 1 postmortem"},
		{"First shown after start", "6m", "median of 3 incidents seen appearing"},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("figure %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := Figures(nil, now); got[2].Value != "—" || got[2].Note != "no resolved incident yet" {
		t.Errorf("no incidents: got %+v", got[2])
	}
}
