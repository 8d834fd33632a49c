package ui

import (
	"net/http"
	"slices"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
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
	infos, err := s.store.Incidents("")
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	sources, err := s.sourceRows(infos)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	recent, err := s.recentChanges(infos, recentOnDashboard)
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
