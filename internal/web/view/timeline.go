package view

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
)

// The incident timeline of a source page: an SVG drawn on the server, one bar per UTC
// day of the last timelineDays up to today. A day's bar shows the worst incident under
// way that day: its colour and, so that colour is not the only signal, its height (a
// quiet day is a low grey bar, a critical day a full one); a day with maintenance only
// is an outlined blue bar. Each bar links to that day's worst incident and is titled with
// the day's incidents, the worst first, which also serves as its accessible name: at most
// barTitleMax of them and "and N more", so the page stays small however many incidents a
// vendor leaves open (5,000 open ones, each listed on every day, made a 28 MB page).
// TimelineDays is how many days the timeline and the component strips show.
const TimelineDays = 90

const (
	barTitleMax   = 5
	barTitleRunes = 120 // of each incident's title in a bar's title

	timelineDays  = TimelineDays
	timelineWidth = 960
	barsHeight    = 40
	barGap        = 2
)

// Timeline is the chart's view: coordinates in the SVG's user units. The SVG stretches
// to the width of the page (on a phone too, where the bars get thinner), so its axis
// labels are HTML under it: the first day, the middle one and today.
type Timeline struct {
	Width, Height int
	Bars          []Bar
	Axis          [3]string
	Count         int // incidents shown
	Days          int
}

// Bar is one day of the timeline.
type Bar struct {
	X, Y, W, H string
	Class      string
	URL, Title string // empty URL: a quiet day, not a link
}

// dayItem is an incident under way on a day.
type dayItem struct {
	in          *archive.IncidentInfo
	maintenance bool
}

// dayItems is what a bar needs of its day: how many incidents were under way and the
// worst barTitleMax of them, worst first. It holds no more however many there were, so
// the chart costs the same for 5 incidents open as for 5,000.
type dayItems struct {
	n     int
	worst []dayItem
}

// add counts it and keeps it if it is among the worst.
func (d *dayItems) add(it dayItem) {
	d.n++
	i, _ := slices.BinarySearchFunc(d.worst, it, compareDayItems)
	if i >= barTitleMax {
		return
	}
	if len(d.worst) == barTitleMax {
		d.worst = d.worst[:barTitleMax-1]
	}
	d.worst = slices.Insert(d.worst, i, it)
}

// compareDayItems orders a day's incidents, the worst first, then as the lists are.
func compareDayItems(a, b dayItem) int {
	return cmp.Or(cmp.Compare(rankOf(b), rankOf(a)), CompareKeys(KeyOf(a.in), KeyOf(b.in)))
}

// NewTimeline draws the timeline of infos, a source's incidents, as of now; each bar
// links to its day's worst incident under paths.
func NewTimeline(infos []archive.IncidentInfo, now time.Time, paths Paths) Timeline {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	first := today.AddDate(0, 0, -(timelineDays - 1))
	days := make([]dayItems, timelineDays)
	shown := 0
	for i := range infos {
		in := &infos[i]
		inc := &in.Latest
		from, to := Span(in, now)
		if from.IsZero() || from.After(now) || to.Before(first) {
			continue
		}
		counted := false
		for d := max(0, int(from.Sub(first)/day)); d < timelineDays; d++ {
			start := first.AddDate(0, 0, d)
			if start.After(to) {
				break
			}
			days[d].add(dayItem{in, inc.Kind == model.KindMaintenance})
			counted = true
		}
		if counted {
			shown++
		}
	}

	slot := float64(timelineWidth) / timelineDays
	t := Timeline{Width: timelineWidth, Height: barsHeight, Count: shown, Days: timelineDays,
		Axis: [3]string{first.Format("Jan 2"), first.AddDate(0, 0, timelineDays/2).Format("Jan 2"), "today"}}
	for d, items := range days {
		date := first.AddDate(0, 0, d)
		b := Bar{X: num(float64(d)*slot + barGap/2), W: num(slot - barGap), Class: "bar day-quiet"}
		h := 8
		if items.n == 0 {
			b.Title = date.Format("Jan 2") + ": no incident"
		} else {
			worst := items.worst[0]
			h = dayHeight(worst)
			b.Class = "bar " + impactClass(worst.in.Latest.Impact)
			if worst.maintenance {
				b.Class = "bar bar-maint"
			}
			b.URL = paths.Incident(worst.in.Source, worst.in.ID)
			names := make([]string, 0, barTitleMax+1)
			for _, it := range items.worst {
				names = append(names, barTitle(it.in, now))
			}
			if more := items.n - len(items.worst); more > 0 {
				names = append(names, "and "+strconv.Itoa(more)+" more")
			}
			b.Title = date.Format("Jan 2") + ": " + strings.Join(names, "; ")
		}
		b.Y, b.H = strconv.Itoa(barsHeight-h), strconv.Itoa(h)
		t.Bars = append(t.Bars, b)
	}
	return t
}

// Span is when an incident was under way: from its start (a maintenance: its scheduled
// start) to its resolution, or to now while it is open, or to its last update when it
// was closed without a resolution time.
func Span(in *archive.IncidentInfo, now time.Time) (from, to time.Time) {
	inc := &in.Latest
	from, to = KeyOf(in).At, inc.ResolvedAt
	if inc.Kind == model.KindMaintenance {
		to = firstNonZero(inc.ResolvedAt, inc.ScheduledUntil)
	}
	switch {
	case !to.IsZero():
	case inc.Open() && !in.Removed:
		to = now
	default:
		if u := NewestUpdate(inc.Updates); u != nil {
			to = u.PostedAt
		}
	}
	if to.Before(from) {
		to = from
	}
	return from, to
}

// rankOf orders a day's incidents, the worst first; maintenance ranks below every
// incident.
func rankOf(it dayItem) int {
	if it.maintenance {
		return 0
	}
	return 1 + ImpactRank(it.in.Latest.Impact)
}

// dayHeight encodes the worst impact of a day, so the chart does not rely on colour.
func dayHeight(it dayItem) int {
	if it.maintenance {
		return 16
	}
	switch it.in.Latest.Impact {
	case model.ImpactCritical:
		return barsHeight
	case model.ImpactMajor:
		return 30
	case model.ImpactNone:
		return 12
	}
	return 21
}

// barTitle names an incident in a day's title: its title, impact, start and length.
func barTitle(in *archive.IncidentInfo, now time.Time) string {
	inc := &in.Latest
	t := vendortext.Excerpt(Title(inc), barTitleRunes) + " (" + strings.ToLower(ImpactBadge(inc.Impact).Label) + ", " + NewStamp(KeyOf(in).At, now).Abs
	if d := Duration(inc, now); d != "" {
		t += ", " + d
	}
	return t + ")"
}

func firstNonZero(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// num writes a coordinate with one decimal, enough at this scale and stable in goldens.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
