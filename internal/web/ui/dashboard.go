package ui

import (
	"net/http"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/recent"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// recentOnDashboard is how many of the latest changes the dashboard lists.
const recentOnDashboard = 20

// cardsOnDashboard caps the open incidents, and the maintenance, the dashboard shows as
// cards (the most severe, and the soonest, first), so the page stays small however many a
// vendor leaves open; the rest are counted ("and N more") and listed on their sources'
// pages.
const cardsOnDashboard = 50

// dashboardView is the dashboard's view.
type dashboardView struct {
	Open        []incidentRow // incidents still open, most severe first, at most cardsOnDashboard
	Maintenance []incidentRow // maintenance under way or scheduled, soonest first, as capped
	OpenTotal   int           // open incidents, shown or not
	MoreOpen    int           // open incidents not shown
	MoreMaint   int           // maintenance not shown
	Sources     []sourceRow
	Changes     []changeRow
	Down        int // sources that cannot be read
}

// Dashboard answers GET /: every source with its state and last successful poll, the
// open incidents first, then the latest changes across all vendors.
func (s *Site) Dashboard(w http.ResponseWriter, r *http.Request) {
	infos, sources, err := s.sourceRows("", time.Time{})
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	recent, err := recent.Changes(s.store, infos, recentOnDashboard)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	v := dashboardView{Sources: sources}
	for _, src := range sources {
		if src.State.Rank == view.StateDown {
			v.Down++
		}
	}
	var open, maint []*archive.IncidentInfo
	for i := range infos {
		in := &infos[i]
		if !in.Latest.Open() || in.Removed {
			continue
		}
		if in.Latest.Kind == model.KindMaintenance {
			maint = append(maint, in)
		} else {
			open = append(open, in)
		}
	}
	sortOpen(open)
	v.OpenTotal = len(open)
	v.MoreOpen, v.MoreMaint = max(0, len(open)-cardsOnDashboard), max(0, len(maint)-cardsOnDashboard)
	for _, in := range open[:min(len(open), cardsOnDashboard)] {
		v.Open = append(v.Open, s.incidentRow(in))
	}
	// Maintenance soonest first: view.KeyOf places it at scheduled_for, and sorts newest
	// first, so the order is reversed.
	slices.SortFunc(maint, func(a, b *archive.IncidentInfo) int { return view.CompareKeys(view.KeyOf(b), view.KeyOf(a)) })
	for _, in := range maint[:min(len(maint), cardsOnDashboard)] {
		v.Maintenance = append(v.Maintenance, s.incidentRow(in))
	}
	for _, c := range recent {
		v.Changes = append(v.Changes, s.changeRow(c))
	}
	s.render(w, r, http.StatusOK, "dashboard", &pageData{
		Title: "Overview", Nav: "overview",
		Feed: s.prefix + "/feed.atom", JSON: s.prefix + "/api/v1/incidents?open=true",
		Refresh: refreshFor(len(v.Open)+len(v.Maintenance) > 0),
		Data:    v,
	})
}

// changeRow is a change as the dashboard lists it, under the incident's current title
// (the feed keeps the title each change had).
type changeRow struct {
	At                             view.Stamp
	Source, SourceTitle, SourceURL string
	Title, IncidentURL             string
	N                              int
	URL                            string // the change view
	Summary                        string
	FirstSight                     bool    // the incidents of the source's first poll, as one row
	Sighted                        []crumb // of a first poll: the most recent of its incidents
	More                           int     // and how many more it archived
}

// sightedOnDashboard is how many of a first poll's incidents its dashboard row names.
const sightedOnDashboard = 3

func (s *Site) changeRow(c recent.Change) changeRow {
	if g := c.Sight; g != nil {
		row := changeRow{
			At:     s.stamp(g.At),
			Source: g.Source, SourceTitle: s.title(g.Source), SourceURL: s.paths.Source(g.Source),
			Title: "Archived on first sight", URL: s.paths.Source(g.Source) + "#incidents-h",
			Summary:    firstSightSummary(len(g.Incidents)),
			FirstSight: true,
			More:       max(0, len(g.Incidents)-sightedOnDashboard),
		}
		for _, in := range g.Incidents[:min(sightedOnDashboard, len(g.Incidents))] {
			row.Sighted = append(row.Sighted, crumb{view.Title(&in.Latest), s.paths.Incident(in.Source, in.ID)})
		}
		return row
	}
	return changeRow{
		At:     s.stamp(c.V.ObservedAt),
		Source: c.Info.Source, SourceTitle: s.title(c.Info.Source), SourceURL: s.paths.Source(c.Info.Source),
		Title: view.Title(&c.Info.Latest), IncidentURL: s.paths.Incident(c.Info.Source, c.Info.ID),
		N: c.V.N, URL: s.paths.Change(c.Info.Source, c.Info.ID, c.V.N),
		Summary: c.V.Summary,
	}
}
