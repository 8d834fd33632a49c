package view

import (
	"slices"
	"strconv"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Figure is one number of a source page, with what it is measured over.
type Figure struct {
	Label, Value, Note string
}

const day = 24 * time.Hour

// Figures are a source's numbers, from our own archive rather than the vendor's claims:
// incidents in the last 30 and 90 days, and three medians over every archived incident:
// time to resolve (resolved_at − started_at), time from resolution to postmortem
// (published_at − resolved_at) and how long after its start the page first showed an
// incident (the observation time of version 1 − started_at).
//
// Maintenance is not an incident and counts in none of them. The last median leaves out
// the incidents that were already on the page, started, when the archive first read it:
// when they first showed is not known, only that it was before we looked.
func Figures(infos []archive.IncidentInfo, now time.Time) []Figure {
	var in30, in90 int
	var resolve, postmortem, shown []time.Duration
	var watchStart time.Time // the first observation of the source
	for i := range infos {
		if fs := infos[i].FirstSeen; watchStart.IsZero() || fs.Before(watchStart) {
			watchStart = fs
		}
	}
	for i := range infos {
		in := &infos[i]
		inc := &in.Latest
		if inc.Kind == model.KindMaintenance {
			continue
		}
		at := KeyOf(in).At
		if !at.After(now) && now.Sub(at) <= 30*day {
			in30++
		}
		if !at.After(now) && now.Sub(at) <= 90*day {
			in90++
		}
		if !inc.StartedAt.IsZero() && !inc.ResolvedAt.IsZero() && !inc.ResolvedAt.Before(inc.StartedAt) {
			resolve = append(resolve, inc.ResolvedAt.Sub(inc.StartedAt))
		}
		if pm := inc.Postmortem; pm != nil && !pm.PublishedAt.IsZero() && !inc.ResolvedAt.IsZero() {
			postmortem = append(postmortem, max(0, pm.PublishedAt.Sub(inc.ResolvedAt)))
		}
		if !inc.StartedAt.IsZero() && (in.FirstSeen.After(watchStart) || !inc.StartedAt.Before(watchStart)) {
			shown = append(shown, max(0, in.FirstSeen.Sub(inc.StartedAt)))
		}
	}
	return []Figure{
		{"Incidents, last 30 days", strconv.Itoa(in30), "by start time"},
		{"Incidents, last 90 days", strconv.Itoa(in90), "by start time"},
		medianFigure("Median time to resolve", resolve, "resolved incident", "resolved incidents", "no resolved incident yet"),
		medianFigure("Resolution to postmortem", postmortem, "postmortem", "postmortems", "no postmortem yet"),
		medianFigure("First shown after start", shown, "incident seen appearing", "incidents seen appearing", "no incident seen appearing yet"),
	}
}

// medianFigure is the median of ds, noted with how many it is over.
func medianFigure(label string, ds []time.Duration, one, many, none string) Figure {
	if len(ds) == 0 {
		return Figure{label, "—", none}
	}
	slices.Sort(ds)
	m := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		m = (ds[len(ds)/2-1] + m) / 2
	}
	note := "median of 1 " + one
	if len(ds) > 1 {
		note = "median of " + strconv.Itoa(len(ds)) + " " + many
	}
	return Figure{label, diff.FormatDuration(m), note}
}
