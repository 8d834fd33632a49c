package web

import (
	"cmp"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
)

// incidentRow is an incident as listings show it (dashboard, source page, search).
type incidentRow struct {
	Source, SourceTitle, SourceURL string
	Title, URL                     string
	Maintenance                    bool
	Status, Impact                 badge
	Started                        stamp // started_at, for a maintenance scheduled_for
	Duration                       string
	Components                     []string
	Versions                       int
	Removed                        bool
	LastChanged                    stamp
	Latest                         template.HTML // the newest update, cut short, its URLs links
}

// incidentRow builds the row of an archived incident.
func (s *Server) incidentRow(in *archive.IncidentInfo) incidentRow {
	inc := &in.Latest
	row := incidentRow{
		Source: in.Source, SourceTitle: s.title(in.Source), SourceURL: s.sourcePath(in.Source),
		Title: titleOf(inc), URL: s.incidentPath(in.Source, in.ID),
		Maintenance: inc.Kind == model.KindMaintenance,
		Status:      statusBadge(inc.Status), Impact: impactBadge(inc.Impact),
		Started:    s.stamp(keyOf(in).at),
		Duration:   s.duration(inc),
		Components: inc.Components,
		Versions:   in.Versions, Removed: in.Removed,
		LastChanged: s.stamp(in.LastChanged),
	}
	if u := newestUpdate(inc.Updates); u != nil {
		row.Latest = vendortext.ExcerptHTML(u.Body, 220)
	}
	return row
}

// titleOf is an incident's title, or a placeholder for a vendor that gave none.
func titleOf(inc *model.Incident) string {
	if strings.TrimSpace(inc.Title) == "" {
		return "(untitled " + string(inc.Kind) + ")"
	}
	return inc.Title
}

// duration says how long an incident lasted ("1h 31m"), or has lasted so far ("ongoing,
// 2h"); a maintenance its scheduled length. Empty when the times are not known.
func (s *Server) duration(inc *model.Incident) string {
	if inc.Kind == model.KindMaintenance {
		if !inc.ScheduledFor.IsZero() && !inc.ScheduledUntil.IsZero() {
			return diff.FormatDuration(inc.ScheduledUntil.Sub(inc.ScheduledFor)) + " window"
		}
		return ""
	}
	switch {
	case inc.StartedAt.IsZero():
		return ""
	case !inc.ResolvedAt.IsZero():
		return diff.FormatDuration(inc.ResolvedAt.Sub(inc.StartedAt))
	case inc.Open():
		return "ongoing, " + diff.FormatDuration(s.now().Sub(inc.StartedAt))
	}
	return ""
}

// newestUpdate is the update posted last (providers do not all list them oldest first).
func newestUpdate(updates []model.Update) *model.Update {
	var out *model.Update
	for i := range updates {
		if out == nil || !updates[i].PostedAt.Before(out.PostedAt) {
			out = &updates[i]
		}
	}
	return out
}

// sortOpen orders open incidents most severe first, then most recent first.
func sortOpen(infos []*archive.IncidentInfo) {
	slices.SortStableFunc(infos, func(a, b *archive.IncidentInfo) int {
		return cmp.Or(cmp.Compare(impactRank(b.Latest.Impact), impactRank(a.Latest.Impact)), compareKeys(keyOf(a), keyOf(b)))
	})
}

// sourceRow is a source as the dashboard lists it.
type sourceRow struct {
	Name, Title, URL string // URL: its page here
	PageURL          string // the vendor's status page
	State            sourceState
	LastSuccess      stamp
	Failures         int
	LastError        string
	Problem          string // what is wrong with polling it, if anything
	Open             int    // open incidents and maintenance under way
	Incidents        int    // archived, removed ones included
	Note             string
}

// sourceRows lists every configured source, then every retired one, with its state,
// worked out from the daemon's poll state, the archive's failure state and the open
// incidents among infos (every archived incident).
func (s *Server) sourceRows(infos []archive.IncidentInfo) ([]sourceRow, error) {
	archived, err := s.store.Sources()
	if err != nil {
		return nil, err
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
			if !st.incident || impactRank(in.Latest.Impact) > impactRank(st.worst) {
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
	row := func(name, title string, retired bool, status *SourceStatus) sourceRow {
		a, inArchive := byName[name]
		st := open[name]
		if st == nil {
			st = &openState{}
		}
		r := sourceRow{Name: name, Title: title, URL: s.sourcePath(name), Incidents: a.Incidents, Open: st.open}
		polled := inArchive
		paused := false
		if status != nil {
			r.PageURL = redactURL(status.URL)
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
		r.State = stateOf(a.Down, paused, retired, polled, st.worst, st.incident, st.underway)
		switch {
		case retired || r.Failures == 0:
		case a.Down:
			r.Problem = plural(r.Failures, "failed poll") + " in a row. Last error: " + r.LastError
		default:
			r.Problem = "Last poll failed (" + plural(r.Failures, "failure") + " in a row): " + r.LastError
		}
		if st.next != nil {
			r.Note = "Maintenance scheduled " + s.stamp(st.next.ScheduledFor).Abs
		}
		return r
	}
	var out []sourceRow
	configured := map[string]bool{}
	for _, st := range s.daemon.Sources() {
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
			retired := s.daemon != (noDaemon{})
			out = append(out, row(a.Name, s.title(a.Name), retired, nil))
		}
	}
	slices.SortStableFunc(out, func(a, b sourceRow) int {
		return cmp.Or(cmp.Compare(a.State.Rank, b.State.Rank), cmp.Compare(b.Open, a.Open))
	})
	return out, nil
}

// plural writes "1 failure", "3 failures".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
