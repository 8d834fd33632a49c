package view

import (
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

func TestTimeline(t *testing.T) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	inc := func(id string, impact model.Impact, start, end time.Time) archive.IncidentInfo {
		return archive.IncidentInfo{Source: "acme", ID: id, Latest: model.Incident{ID: id, Kind: model.KindIncident,
			Status: model.StatusResolved, Impact: impact, Title: "Incident " + id, StartedAt: start, ResolvedAt: end}}
	}
	open := inc("open", model.ImpactMajor, now.Add(-30*time.Hour), time.Time{})
	open.Latest.Status = model.StatusInvestigating
	maint := archive.IncidentInfo{Source: "acme", ID: "m", Latest: model.Incident{ID: "m", Kind: model.KindMaintenance,
		Status: model.StatusCompleted, Impact: model.ImpactMaintenance, Title: "Upgrade",
		ScheduledFor: today.AddDate(0, 0, -5).Add(2 * time.Hour), ScheduledUntil: today.AddDate(0, 0, -5).Add(4 * time.Hour)}}
	infos := []archive.IncidentInfo{
		inc("minor", model.ImpactMinor, today.AddDate(0, 0, -10).Add(time.Hour), today.AddDate(0, 0, -10).Add(2*time.Hour)),
		inc("critical", model.ImpactCritical, today.AddDate(0, 0, -10).Add(3*time.Hour), today.AddDate(0, 0, -10).Add(5*time.Hour)),
		open, maint,
		inc("ancient", model.ImpactMajor, today.AddDate(0, 0, -200), today.AddDate(0, 0, -199)),
	}
	tl := NewTimeline(infos, now, Paths{})
	if len(tl.Bars) != timelineDays || tl.Count != 4 {
		t.Fatalf("got %d bars showing %d incidents, want %d bars and 4", len(tl.Bars), tl.Count, timelineDays)
	}
	last := timelineDays - 1
	tests := []struct {
		day          int // days before today
		class, h     string
		url, inTitle string
	}{
		{10, "bar b-critical", "40", "/incidents/acme/critical", "Incident minor (minor"},
		{5, "bar bar-maint", "16", "/incidents/acme/m", "Upgrade (maintenance"},
		{1, "bar b-major", "30", "/incidents/acme/open", "ongoing"},
		{0, "bar b-major", "30", "/incidents/acme/open", "Incident open (major, 2026-06-30 08:00 UTC"},
		{2, "bar day-quiet", "8", "", "no incident"},
	}
	for _, tt := range tests {
		b := tl.Bars[last-tt.day]
		if b.Class != tt.class || b.H != tt.h || b.URL != tt.url || !strings.Contains(b.Title, tt.inTitle) {
			t.Errorf("%d days ago: got %+v, want class %q height %s link %q and %q in the title", tt.day, b, tt.class, tt.h, tt.url, tt.inTitle)
		}
	}
	if tl.Axis != [3]string{"Apr 3", "May 18", "today"} {
		t.Errorf("axis: got %q", tl.Axis)
	}
}
