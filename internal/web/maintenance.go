package web

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/calendar"
)

// maintenanceCalendar answers GET /maintenance.ics and /sources/{source}/maintenance.ics:
// every scheduled maintenance (of the source, or of every source) whose window ended at
// most calendar.Window ago, as an iCalendar feed (internal/web/calendar), soonest first.
// An unknown source is 404.
func (s *Server) maintenanceCalendar(w http.ResponseWriter, r *http.Request, source string) {
	infos, err := s.store.Incidents(source)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if source != "" && len(infos) == 0 && !s.knownSource(w, r, source) {
		return
	}
	var ms []calendar.Maintenance
	for i := range infos {
		in := &infos[i]
		if in.Latest.Kind != model.KindMaintenance {
			continue
		}
		ms = append(ms, calendar.Maintenance{
			Source: in.Source, SourceTitle: s.title(in.Source), ID: in.ID, Latest: &in.Latest, Versions: in.Versions,
			LastChanged: in.LastChanged, Removed: in.Removed, RemovedAt: in.RemovedAt, UIURL: s.uiURL(in.Source, in.ID),
		})
	}
	slices.SortStableFunc(ms, func(a, b calendar.Maintenance) int {
		return cmp.Or(a.Start().Compare(b.Start()), strings.Compare(a.Source, b.Source), strings.Compare(a.ID, b.ID))
	})
	name := "Vendor maintenance"
	if source != "" {
		name = s.title(source) + " maintenance"
	}
	var buf bytes.Buffer
	if err := calendar.Write(&buf, name, ms, s.now()); err != nil {
		s.log.Error("maintenance calendar", "err", err)
		writeError(w, http.StatusInternalServerError, "internal error: cannot write the calendar")
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(buf.Bytes())
}
