package ui

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// sourceCursor tags the cursors of a source page's incident list.
const sourceCursor = "source-incidents"

// sourceView is a source page's view.
type sourceView struct {
	Source     sourceRow
	Figures    []view.Figure
	Timeline   view.Timeline
	Components *view.Components // nil: the source has no component set
	Incidents  []incidentRow
	Total      int    // incidents archived
	Older      string // the next page of the list, if any
	First      string // the first page, when this is not it
}

// Source answers GET /sources/{source}: a vendor's state, its figures, its incident
// timeline and its incidents, newest first, a page at a time (limit and before as in the
// API). 404 for a source neither configured nor archived.
func (s *Site) Source(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("source")
	p, err := param.ParsePage(r, sourceCursor, 3)
	if err != nil {
		s.Error(w, r, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	var after *view.Key
	if p.Before != nil {
		t, err := time.Parse(api.TimeLayout, p.Before[0])
		if err != nil {
			s.Error(w, r, http.StatusBadRequest, "Bad request", param.ErrBadCursor.Error())
			return
		}
		after = &view.Key{At: t, Source: p.Before[1], ID: p.Before[2]}
	}
	infos, err := s.store.Incidents(name)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	rows, err := s.sourceRows(infos)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	i := slices.IndexFunc(rows, func(row sourceRow) bool { return row.Name == name })
	if i < 0 {
		s.Error(w, r, http.StatusNotFound, "Not found", "No source is named "+name+", in the config or in the archive.")
		return
	}
	v := sourceView{Source: rows[i], Figures: view.Figures(infos, s.now()), Timeline: view.NewTimeline(infos, s.now(), s.paths), Total: len(infos)}

	if v.Components, err = s.components(name); err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}

	list := make([]*archive.IncidentInfo, 0, len(infos))
	for i := range infos {
		if after == nil || view.CompareKeys(view.KeyOf(&infos[i]), *after) > 0 {
			list = append(list, &infos[i])
		}
	}
	slices.SortFunc(list, func(a, b *archive.IncidentInfo) int { return view.CompareKeys(view.KeyOf(a), view.KeyOf(b)) })
	if len(list) > p.Limit {
		list = list[:p.Limit]
		last := view.KeyOf(list[len(list)-1])
		v.Older = s.paths.Source(name) + "?before=" + param.Cursor(sourceCursor, last.At.Format(api.TimeLayout), last.Source, last.ID)
	}
	if after != nil {
		v.First = s.paths.Source(name)
	}
	for _, in := range list {
		v.Incidents = append(v.Incidents, s.incidentRow(in))
	}
	s.render(w, r, http.StatusOK, "source", &pageData{
		Title:   rows[i].Title,
		Feed:    s.paths.SourceFeed(name),
		JSON:    s.prefix + "/api/v1/incidents?source=" + url.QueryEscape(name),
		Refresh: refreshFor(rows[i].Open > 0),
		Crumbs:  []crumb{{"Overview", s.prefix + "/"}},
		Data:    v,
	})
}
