package view

import (
	"strconv"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The components of a source page: each component of the latest set with its state and
// a strip of the last timelineDays, one segment per run of days in the same worst state
// as the archive observed it (a day before the first observation is "not observed").
// Runs, not days, keep a page of 300 components that never changed at one rectangle
// each; stripMax bounds how many strips a page draws, so a page of thousands of
// flapping components stays small (the rest are listed without one).
const (
	stripMax    = 100
	stripHeight = 16
)

// componentBadges are the badges of the five component states.
var componentBadges = map[model.ComponentStatus]Badge{
	model.ComponentOperational:   {"b-ok", "i-check", "Operational"},
	model.ComponentMaintenance:   {"b-maint", "i-wrench", "Maintenance"},
	model.ComponentDegraded:      {"b-minor", "i-info", "Degraded"},
	model.ComponentPartialOutage: {"b-major", "i-alert", "Partial outage"},
	model.ComponentMajorOutage:   {"b-critical", "i-octagon", "Major outage"},
}

// ComponentBadge shows a component's state.
func ComponentBadge(s model.ComponentStatus) Badge { return known(componentBadges, s, "Unknown state") }

// PageStatusBadge shows a page's overall status (Statuspage's indicator) with the
// page's own sentence for it as its label. The indicators but none are named after the
// impacts, and coloured as they are.
func PageStatusBadge(indicator, description string) Badge {
	b := Badge{"b-muted", "i-dash", ""}
	switch indicator {
	case "none":
		b = Badge{"b-ok", "i-check", ""}
	case "minor", "major", "critical", "maintenance":
		b = ImpactBadge(model.Impact(indicator))
	}
	b.Label = description
	if b.Label == "" {
		b.Label = words(indicator, "No page status")
	}
	return b
}

// Components is the components section's view.
type Components struct {
	Page           Badge // the page's overall status
	HasPage        bool
	Total, Down    int // components, and those not operational
	Groups         []ComponentGroup
	Width, Height  int // of each strip's SVG
	Axis           [3]string
	Days           int
	Striped        int  // components drawn with a strip, at most stripMax
	Unstriped      int  // components listed without a strip (past stripMax)
	HistoryTooLong bool // more changes in the window than one read returns: no strip drawn
}

// ComponentGroup is the components listed under one group of the page, "" for none.
type ComponentGroup struct {
	Name string
	Rows []ComponentRow
}

// ComponentRow is one component.
type ComponentRow struct {
	Name  string
	State Badge
	Since Stamp
	Strip []Segment // nil: no strip drawn
	Label string    // the strip's accessible summary
}

// Segment is a run of days of a strip.
type Segment struct {
	X, Y, W, H string
	Class      string
	Title      string
}

// NewComponents builds the section from the latest set, the set in force at the start
// of the window (nil when none was, then observedFrom is when the first set was read),
// and the status changes observed since, oldest first (more: the read was cut).
func NewComponents(latest, start *model.ComponentVersion, observedFrom time.Time, events []archive.ComponentEvent, more bool, now time.Time, stamp func(time.Time) Stamp) Components {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	first := today.AddDate(0, 0, -(timelineDays - 1))
	c := Components{Width: timelineWidth, Height: stripHeight, Days: timelineDays, HistoryTooLong: more,
		Axis:    [3]string{first.Format("Jan 2"), first.AddDate(0, 0, timelineDays/2).Format("Jan 2"), "today"},
		Page:    PageStatusBadge(latest.Components.PageStatus, latest.Components.PageDescription),
		HasPage: latest.Components.PageStatus != "" || latest.Components.PageDescription != ""}
	if start != nil {
		observedFrom = first
	}
	byKey := map[string][]archive.ComponentEvent{}
	for _, e := range events {
		byKey[e.Key] = append(byKey[e.Key], e)
	}
	drawn := 0
	for _, comp := range latest.Components.List {
		c.Total++
		if comp.Status != model.ComponentOperational {
			c.Down++
		}
		row := ComponentRow{Name: comp.Name, State: ComponentBadge(comp.Status), Since: stamp(comp.Since)}
		switch {
		case more:
		case drawn == stripMax:
			c.Unstriped++
		default:
			drawn++
			row.Strip, row.Label = strip(comp, byKey[comp.Key()], observedFrom, first, now)
		}
		if n := len(c.Groups); n == 0 || c.Groups[n-1].Name != comp.Group {
			c.Groups = append(c.Groups, ComponentGroup{Name: comp.Group})
		}
		g := &c.Groups[len(c.Groups)-1]
		g.Rows = append(g.Rows, row)
	}
	c.Striped = drawn
	return c
}

// strip draws one component's days from first to now: the worst level it held each
// day, walking its changes back from its state now; -1 for a day not observed.
func strip(comp model.Component, events []archive.ComponentEvent, observedFrom, first, now time.Time) ([]Segment, string) {
	levels := make([]int, timelineDays)
	for i := range levels {
		levels[i] = -1
	}
	mark := func(from, to time.Time, s model.ComponentStatus) {
		if s == "" || !to.After(first) {
			return
		}
		from = maxTime(from, first)
		for d := int(from.Sub(first) / day); d < timelineDays; d++ {
			if !first.AddDate(0, 0, d).Before(to) {
				break // the days it held s overlap [from, to)
			}
			levels[d] = max(levels[d], s.Level())
		}
	}
	cur, end := comp.Status, now
	observed := true
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		mark(e.At, end, cur)
		cur, end = e.From, e.At
		if cur == "" {
			observed = false // new to the page then: not observed before
			break
		}
	}
	if observed {
		mark(observedFrom, end, cur)
	}

	slot := float64(timelineWidth) / timelineDays
	var segs []Segment
	worst, changed := -1, 0
	for d := 0; d < timelineDays; {
		n := 1
		for d+n < timelineDays && levels[d+n] == levels[d] {
			n++
		}
		from, to := first.AddDate(0, 0, d), first.AddDate(0, 0, d+n-1)
		label := "not observed"
		class, h := "seg seg-none", 4
		if l := levels[d]; l >= 0 {
			s := model.ComponentStatuses[l]
			label = ComponentBadge(s).Label
			class, h = "seg "+ComponentBadge(s).Class, segHeight(s)
			worst = max(worst, l)
			if l > 0 {
				changed += n
			}
		}
		title := from.Format("Jan 2")
		if n > 1 {
			title += " – " + to.Format("Jan 2")
		}
		segs = append(segs, Segment{X: num(float64(d)*slot + barGap/2), W: num(float64(n)*slot - barGap),
			Y: strconv.Itoa(stripHeight - h), H: strconv.Itoa(h), Class: class, Title: title + ": " + label})
		d += n
	}
	summary := comp.Name + ": operational every day observed"
	switch {
	case worst < 0:
		summary = comp.Name + ": not observed in the last " + strconv.Itoa(timelineDays) + " days"
	case worst > 0:
		summary = comp.Name + ": " + Plural(changed, "day") + " not operational, at worst " + ComponentBadge(model.ComponentStatuses[worst]).Label
	}
	return segs, summary
}

// segHeight encodes a state in a segment's height, so the strip does not rely on colour.
func segHeight(s model.ComponentStatus) int {
	switch s {
	case model.ComponentOperational:
		return 6
	case model.ComponentMaintenance:
		return 9
	case model.ComponentDegraded:
		return 11
	case model.ComponentPartialOutage:
		return 14
	}
	return stripHeight
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
