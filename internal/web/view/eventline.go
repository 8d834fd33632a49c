package view

import (
	"strconv"
	"time"

	"github.com/statuswatch/statuswatch/internal/correlate"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
)

// The time-line of an event page: an SVG drawn on the server, as the source page's
// timeline is (timeline.go), with one row per incident of the event, by start: its
// source's name on the left and a bar from its start to its end (to now while open, drawn
// hatched so that the end is not only a colour) on a time axis spanning the event. Each
// bar links to its incident and is titled with it, which is also its accessible name.
// The SVG keeps its proportions (its labels are text in it), so it shrinks on a phone.
// At most EventLineRows incidents are drawn; the page says how many more there are.

// EventLineRows caps the rows of an event's time-line.
const EventLineRows = 40

const (
	eventLineWidth = 960
	eventLabelW    = 200 // the source names' column
	eventPlotX     = 210
	eventPlotW     = eventLineWidth - eventPlotX - 10
	eventRowH      = 28
	eventBarH      = 14
	eventAxisH     = 26
	eventLabelMax  = 26 // runes of a source name in its row
)

// EventLine is the time-line's view: coordinates in the SVG's user units.
type EventLine struct {
	Width, Height         int
	Rows                  []EventRow
	Ticks                 []EventTick
	AxisX1, AxisX2, AxisY string
	More                  int // incidents not drawn
}

// EventRow is one incident of the time-line.
type EventRow struct {
	Label, LabelY string // its source's name, and the baseline of that text
	X, Y, W, H    string
	Class         string // "ev-bar", or "ev-bar ev-open" while it is open
	URL, Title    string
}

// EventTick is a time on the axis.
type EventTick struct {
	X, Label string
	Anchor   string // text-anchor: start, middle or end
}

// NewEventLine draws ev as of now; titleOf names each source, paths links each incident.
func NewEventLine(ev *correlate.Event, now time.Time, titleOf func(string) string, paths Paths) EventLine {
	from, to := ev.Start, ev.End
	if to.IsZero() {
		to = now
	}
	for _, in := range ev.Incidents {
		to = maxOf(to, in.End)
		if in.Open {
			to = maxOf(to, now)
		}
	}
	span := to.Sub(from)
	if span < 10*time.Minute {
		span = 10 * time.Minute
	}
	// A margin of a twentieth on each side, so that no bar touches the edge.
	from, span = from.Add(-span/20), span+span/10
	x := func(t time.Time) float64 { return eventPlotX + float64(t.Sub(from))/float64(span)*eventPlotW }

	rows := ev.Incidents
	l := EventLine{Width: eventLineWidth}
	if len(rows) > EventLineRows {
		l.More, rows = len(rows)-EventLineRows, rows[:EventLineRows]
	}
	for i, in := range rows {
		top := float64(i * eventRowH)
		end := in.End
		if in.Open {
			end = now // the result may be older than the page: an open bar runs to now
		}
		x0, x1 := x(in.Start), x(end)
		w := max(x1-x0, 3)
		r := EventRow{
			Label: vendortext.Excerpt(titleOf(in.Source), eventLabelMax), LabelY: num(top + eventRowH/2 + 5),
			X: num(x0), Y: num(top + (eventRowH-eventBarH)/2), W: num(w), H: strconv.Itoa(eventBarH),
			Class: "ev-bar", URL: paths.Incident(in.Source, in.ID),
		}
		r.Title = titleOf(in.Source) + ": " + vendortext.Excerpt(in.Title, barTitleRunes) + " (from " + in.Start.UTC().Format("Jan 2 15:04")
		if in.Open {
			r.Class += " ev-open"
			r.Title += ", ongoing)"
		} else {
			r.Title += " to " + in.End.UTC().Format("Jan 2 15:04") + ")"
		}
		l.Rows = append(l.Rows, r)
	}
	axis := len(rows)*eventRowH + 6
	l.AxisX1, l.AxisX2, l.AxisY = num(eventPlotX), num(eventPlotX+eventPlotW), strconv.Itoa(axis)
	l.Height = axis + eventAxisH
	label := func(t time.Time) string { return t.UTC().Format("Jan 2 15:04") }
	mid := from.Add(span / 2)
	l.Ticks = []EventTick{
		{X: num(eventPlotX), Label: label(from), Anchor: "start"},
		{X: num(eventPlotX + eventPlotW/2), Label: label(mid), Anchor: "middle"},
		{X: num(eventPlotX + eventPlotW), Label: label(from.Add(span)), Anchor: "end"},
	}
	return l
}

func maxOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
