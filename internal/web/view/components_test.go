package view

import (
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// A strip walks a component's changes back from its state now: each day its worst
// state, a day before it was first observed (or before it joined the page) not observed.
func TestComponentStrip(t *testing.T) {
	now := time.Date(2026, 7, 1, 14, 0, 0, 0, time.UTC)
	first := time.Date(2026, 4, 3, 0, 0, 0, 0, time.UTC) // 89 days before today
	titles := func(segs []Segment) string {
		var out []string
		for _, s := range segs {
			out = append(out, s.Title)
		}
		return strings.Join(out, "; ")
	}
	tests := []struct {
		name         string
		now          model.ComponentStatus
		events       []archive.ComponentEvent
		observedFrom time.Time
		want, label  string
	}{
		{"never changed, observed all along", model.ComponentOperational, nil, first,
			"Apr 3 – Jul 1: Operational", "API: operational every day observed"},
		{"first read on Jun 30 at 23:00", model.ComponentOperational, nil, time.Date(2026, 6, 30, 23, 0, 0, 0, time.UTC),
			"Apr 3 – Jun 29: not observed; Jun 30 – Jul 1: Operational", "API: operational every day observed"},
		{"a night of major outage across midnight", model.ComponentOperational, []archive.ComponentEvent{
			{Key: "id:c-API", From: model.ComponentOperational, To: model.ComponentMajorOutage, At: time.Date(2026, 6, 10, 23, 0, 0, 0, time.UTC)},
			{Key: "id:c-API", From: model.ComponentMajorOutage, To: model.ComponentMaintenance, At: time.Date(2026, 6, 11, 1, 0, 0, 0, time.UTC)},
			{Key: "id:c-API", From: model.ComponentMaintenance, To: model.ComponentOperational, At: time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC)},
		}, first, "Apr 3 – Jun 9: Operational; Jun 10 – Jun 11: Major outage; Jun 12 – Jul 1: Operational",
			"API: 2 days not operational, at worst Major outage"},
		{"joined the page on May 1, degraded since", model.ComponentDegraded, []archive.ComponentEvent{
			{Key: "id:c-API", From: "", To: model.ComponentOperational, At: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)},
			{Key: "id:c-API", From: model.ComponentOperational, To: model.ComponentDegraded, At: time.Date(2026, 6, 30, 8, 0, 0, 0, time.UTC)},
		}, first, "Apr 3 – Apr 30: not observed; May 1 – Jun 29: Operational; Jun 30 – Jul 1: Degraded",
			"API: 2 days not operational, at worst Degraded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := model.Component{ID: "c-API", Name: "API", Status: tt.now}
			segs, label := strip(c, tt.events, tt.observedFrom, first, now)
			if got := titles(segs); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if label != tt.label {
				t.Errorf("label: got %q, want %q", label, tt.label)
			}
		})
	}
}
