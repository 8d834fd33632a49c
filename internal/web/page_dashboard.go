package web

import (
	"net/http"
	"slices"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// recentOnDashboard is how many of the latest changes the dashboard lists.
const recentOnDashboard = 20

// dashboardView is the dashboard's view.
type dashboardView struct {
	Open        []incidentRow // incidents still open, most severe first
	Maintenance []incidentRow // maintenance under way or scheduled, soonest first
	Sources     []sourceRow
	Changes     []changeRow
	Down        int // sources that cannot be read
}

// dashboard answers GET /: every source with its state and last successful poll, the
// open incidents first, then the latest changes across all vendors.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) {
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
		if src.State.Rank == stateDown {
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
	for _, in := range open {
		v.Open = append(v.Open, s.incidentRow(in))
	}
	// Maintenance soonest first: keyOf places it at scheduled_for, and sorts newest
	// first, so the order is reversed.
	slices.SortFunc(maint, func(a, b *archive.IncidentInfo) int { return compareKeys(keyOf(b), keyOf(a)) })
	for _, in := range maint {
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
