package ui

import (
	"cmp"
	"html/template"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// incidentRow is an incident as listings show it (dashboard, source page, search).
type incidentRow struct {
	Source, SourceTitle, SourceURL string
	Title, URL                     string
	Maintenance                    bool
	Status, Impact                 view.Badge
	Started                        view.Stamp // started_at, for a maintenance scheduled_for
	Duration                       string
	Components                     []string
	Versions                       int
	Removed                        bool
	LastChanged                    view.Stamp
	Latest                         template.HTML // the newest update, cut short, its URLs links
}

// incidentRow builds the row of an archived incident.
func (s *Site) incidentRow(in *archive.IncidentInfo) incidentRow {
	inc := &in.Latest
	row := incidentRow{
		Source: in.Source, SourceTitle: s.title(in.Source), SourceURL: s.paths.Source(in.Source),
		Title: view.Title(inc), URL: s.paths.Incident(in.Source, in.ID),
		Maintenance: inc.Kind == model.KindMaintenance,
		Status:      view.StatusBadge(inc.Status), Impact: view.ImpactBadge(inc.Impact),
		Started:    s.stamp(view.KeyOf(in).At),
		Duration:   view.Duration(inc, s.now()),
		Components: inc.Components,
		Versions:   in.Versions, Removed: in.Removed,
		LastChanged: s.stamp(in.LastChanged),
	}
	if u := view.NewestUpdate(inc.Updates); u != nil {
		row.Latest = vendortext.ExcerptHTML(u.Body, 220)
	}
	return row
}

// sortOpen orders open incidents most severe first, then most recent first.
func sortOpen(infos []*archive.IncidentInfo) {
	slices.SortStableFunc(infos, func(a, b *archive.IncidentInfo) int {
		return cmp.Or(cmp.Compare(view.ImpactRank(b.Latest.Impact), view.ImpactRank(a.Latest.Impact)), view.CompareKeys(view.KeyOf(a), view.KeyOf(b)))
	})
}

// sourceRow is a source as the dashboard lists it.
type sourceRow struct {
	Name, Title, URL string // URL: its page here
	PageURL          string // the vendor's status page
	State            view.SourceState
	LastSuccess      view.Stamp
	Failures         int
	LastError        string
	Problem          string // what is wrong with polling it, if anything
	Open             int    // open incidents and maintenance under way
	Incidents        int    // archived, removed ones included
	Note             string
	// The latest component set: the page's own status sentence and how many components
	// are not operational, of how many; Components is 0 for a source with none.
	PageStatus                 string
	Components, ComponentsDown int
}

// sourceRows reads infos, the incidents of source (every source when empty) as they
// stand now or stood at at (query.IncidentsAt), and lists every configured source, then
// every retired one, with its state, worked out from the daemon's poll state, the
// archive's failure state and the open incidents among infos.
func (s *Site) sourceRows(source string, at time.Time) (infos []archive.IncidentInfo, rows []sourceRow, err error) {
	if infos, err = query.IncidentsAt(s.store, source, at); err != nil {
		return nil, nil, err
	}
	archived, summaries, err := query.Sources(s.store)
	if err != nil {
		return nil, nil, err
	}
	byName := make(map[string]archive.SourceInfo, len(archived))
	for _, a := range archived {
		byName[a.Name] = a
	}
	type openState struct {
		worst              model.Impact
		incident, underway bool
		open               int
		next               *model.Incident // the next scheduled maintenance
	}
	open := map[string]*openState{}
	for i := range infos {
		in := &infos[i]
		if !in.Latest.Open() || in.Removed {
			continue
		}
		st := open[in.Source]
		if st == nil {
			st = &openState{}
			open[in.Source] = st
		}
		switch {
		case in.Latest.Kind != model.KindMaintenance:
			st.open++
			if !st.incident || view.ImpactRank(in.Latest.Impact) > view.ImpactRank(st.worst) {
				st.worst = in.Latest.Impact
			}
			st.incident = true
		case in.Latest.Status == model.StatusScheduled:
			if st.next == nil || in.Latest.ScheduledFor.Before(st.next.ScheduledFor) {
				st.next = &in.Latest
			}
		default:
			st.open++
			st.underway = true
		}
	}
	row := func(name, title string, retired bool, status *view.SourceStatus) sourceRow {
		a, inArchive := byName[name]
		st := open[name]
		if st == nil {
			st = &openState{}
		}
		r := sourceRow{Name: name, Title: title, URL: s.paths.Source(name), Incidents: a.Incidents, Open: st.open}
		polled := inArchive
		paused := false
		if status != nil {
			r.PageURL = view.RedactURL(status.URL)
			r.LastSuccess = s.stamp(status.LastSuccessAt)
			if status.LastSuccessBeforeRestart && !r.LastSuccess.IsZero() {
				r.LastSuccess.Rel += ", before restart"
			}
			r.Failures, r.LastError = status.ConsecutiveFailures, status.LastError
			polled = polled || !status.LastPollAt.IsZero()
			paused = status.Paused
		}
		if r.Failures == 0 && a.Failures > 0 {
			r.Failures, r.LastError = a.Failures, a.LastError
		}
		r.State = view.StateOf(a.Down, paused, retired, polled, st.worst, st.incident, st.underway)
		if sum, ok := summaries[name]; ok {
			r.PageStatus, r.Components, r.ComponentsDown = sum.PageDescription, sum.Components, sum.NotOperational
			if r.PageStatus == "" && sum.PageStatus != "" {
				r.PageStatus = view.PageStatusBadge(sum.PageStatus, "").Label
			}
			if cs, flagged := view.ComponentsState(sum.Worst); flagged && r.State.Rank == view.StateOK {
				r.State = cs
			}
		}
		switch {
		case retired || r.Failures == 0:
		case a.Down:
			r.Problem = view.Plural(r.Failures, "failed poll") + " in a row. Last error: " + r.LastError
		default:
			r.Problem = "Last poll failed (" + view.Plural(r.Failures, "failure") + " in a row): " + r.LastError
		}
		if st.next != nil {
			r.Note = "Maintenance scheduled " + s.stamp(st.next.ScheduledFor).Abs
		}
		return r
	}
	var out []sourceRow
	configured := map[string]bool{}
	for _, st := range s.sources() {
		configured[st.Name] = true
		title := st.Title
		if title == "" {
			title = s.title(st.Name)
		}
		out = append(out, row(st.Name, title, false, &st))
	}
	for _, a := range archived {
		if !configured[a.Name] {
			// Served without a daemon (Options.Daemon nil), every archived source is
			// shown as it stands rather than as retired.
			retired := s.daemon
			out = append(out, row(a.Name, s.title(a.Name), retired, nil))
		}
	}
	slices.SortStableFunc(out, func(a, b sourceRow) int {
		return cmp.Or(cmp.Compare(a.State.Rank, b.State.Rank), cmp.Compare(b.Open, a.Open))
	})
	return infos, out, nil
}

// firstSightSummary says what a first poll archived, without a full stop.
func firstSightSummary(n int) string {
	return view.Plural(n, "incident") + " already on the page when statuswatch first read it, archived as found"
}
