package view

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/correlate"
)

func TestEventLine(t *testing.T) {
	t0 := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	now := t0.Add(2 * time.Hour)
	a := &correlate.Incident{Source: "aws", ID: "a", Title: "Errors", Start: t0, End: t0.Add(time.Hour)}
	b := &correlate.Incident{Source: "vercel", ID: "v", Title: "Slow", Start: t0.Add(30 * time.Minute), End: t0.Add(40 * time.Minute), Open: true}
	ev := &correlate.Event{ID: "aws.a", Start: t0, Incidents: []*correlate.Incident{a, b}}
	l := NewEventLine(ev, now, func(s string) string { return "Title of " + s }, Paths{Prefix: "/w"})
	if len(l.Rows) != 2 || l.More != 0 {
		t.Fatalf("%d rows, %d more", len(l.Rows), l.More)
	}
	ra, rb := l.Rows[0], l.Rows[1]
	if ra.Label != "Title of aws" || ra.URL != "/w/incidents/aws/a" || ra.Class != "ev-bar" || rb.Class != "ev-bar ev-open" {
		t.Errorf("rows %+v", l.Rows)
	}
	if ra.Title != "Title of aws: Errors (from Jul 1 12:00 to Jul 1 13:00)" || rb.Title != "Title of vercel: Slow (from Jul 1 12:30, ongoing)" {
		t.Errorf("titles %q, %q", ra.Title, rb.Title)
	}
	// The axis spans the event to now with a margin; the open bar runs to now, the end
	// of the axis less its margin.
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	if end := f(rb.X) + f(rb.W); end < eventPlotX+eventPlotW*0.9 || end > eventPlotX+eventPlotW {
		t.Errorf("open bar ends at %.1f, want near the right end", end)
	}
	if x := f(ra.X); x <= eventPlotX || x > eventPlotX+eventPlotW*0.06 {
		t.Errorf("first bar starts at %.1f, want just after the margin", x)
	}
	if l.Ticks[0].Label != "Jul 1 11:54" || l.Ticks[2].Label != "Jul 1 14:06" || l.Height != 2*eventRowH+6+eventAxisH {
		t.Errorf("ticks %+v, height %d", l.Ticks, l.Height)
	}

	var many []*correlate.Incident
	for i := range EventLineRows + 5 {
		many = append(many, &correlate.Incident{Source: fmt.Sprint("s", i), ID: "i", Start: t0, End: t0})
	}
	l = NewEventLine(&correlate.Event{Start: t0, End: t0, Incidents: many}, now, func(s string) string { return s }, Paths{})
	if len(l.Rows) != EventLineRows || l.More != 5 {
		t.Errorf("%d rows, %d more; want %d and 5", len(l.Rows), l.More, EventLineRows)
	}
	if w := f(l.Rows[0].W); w < 3 {
		t.Errorf("an instant is drawn %.1f wide, want at least 3", w)
	}
}
