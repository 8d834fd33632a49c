package ui

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
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
	AsOf       asOf
	Vendor     []view.Figure // the vendor figures of the last 90 days; none on a page as of a time
	StatsDays  int
	StatsURL   string
}

// asOf is the "as of" control of the source and incident pages: a plain GET form with
// a datetime-local field (read as UTC), and, on a page as of a time, that time and the
// link back to now.
type asOf struct {
	Action string // the page's path, without a query
	Value  string // the field's value: the time shown, "" for now
	At     string // the time shown, for the banner; "" for now
}

// newAsOf is the control of the page at path as of at (zero: now).
func newAsOf(path string, at time.Time) asOf {
	a := asOf{Action: path}
	if !at.IsZero() {
		a.Value = at.UTC().Format("2006-01-02T15:04:05")
		a.At = at.UTC().Format("Monday, January 2, 2006 at 15:04:05 UTC")
	}
	return a
}

// atQuery is the query that keeps a page as of at ("?at=…", "" for now); more is
// appended after it with "&" or "?".
func atQuery(at time.Time, more string) string {
	v := url.Values{}
	if !at.IsZero() {
		v.Set("at", at.UTC().Format(time.RFC3339Nano))
	}
	q := v.Encode()
	switch {
	case q == "" && more == "":
		return ""
	case q == "":
		return "?" + more
	case more == "":
		return "?" + q
	}
	return "?" + q + "&" + more
}

// Source answers GET /sources/{source}?at=T: a vendor's state, its figures, its incident
// timeline and its incidents, newest first, a page at a time (limit and before as in the
// API), and its vendor figures. With at, the page as it stood at T: the incidents
// observed by then, each as its version in force then, the components' states then,
// and the figures and timeline up to T (the vendor figures, which are of now, are left
// out). 404 for a source neither configured nor archived, 400 for a bad at.
func (s *Site) Source(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("source")
	at, err := param.FormAt(r.URL.Query())
	if err != nil {
		s.Error(w, r, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	now := s.now()
	if !at.IsZero() {
		now = at
	}
	p, after, err := view.KeyPage(r, sourceCursor)
	if err != nil {
		s.Error(w, r, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	infos, rows, err := s.sourceRows(name, at)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	i := slices.IndexFunc(rows, func(row sourceRow) bool { return row.Name == name })
	if i < 0 {
		s.Error(w, r, http.StatusNotFound, "Not found", "No source is named "+name+", in the config or in the archive.")
		return
	}
	v := sourceView{Source: rows[i], Figures: view.Figures(infos, now), Timeline: view.NewTimeline(infos, now, s.paths), Total: len(infos),
		AsOf: newAsOf(s.paths.Source(name), at)}

	if v.Components, err = s.components(name, at); err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	if at.IsZero() {
		stats, err := query.Stats(s.store, name, query.DefaultStatsDays, s.now())
		if err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
		row := query.Figures(&archive.SourceFacts{Source: name}, query.DefaultStatsDays)
		if len(stats) == 1 {
			row = stats[0]
		}
		v.Vendor, v.StatsDays, v.StatsURL = view.StatsFigures(&row), row.Days, s.prefix+"/stats"
	}

	list, last := view.PageOf(infos, after, p.Limit)
	if last != nil {
		v.Older = s.paths.Source(name) + atQuery(at, "before="+param.Cursor(sourceCursor, last.At.Format(api.TimeLayout), last.Source, last.ID))
	}
	if after != nil {
		v.First = s.paths.Source(name) + atQuery(at, "")
	}
	for _, in := range list {
		row := s.incidentRow(in)
		row.URL += atQuery(at, "")
		row.Duration = view.Duration(&in.Latest, now) // "ongoing" up to the time shown
		v.Incidents = append(v.Incidents, row)
	}
	jsonURL, refresh := s.prefix+"/api/v1/incidents?source="+url.QueryEscape(name), refreshFor(rows[i].Open > 0)
	if !at.IsZero() {
		// The page as it stood changes no more: it is not reloaded.
		jsonURL, refresh = s.paths.APISource(name)+atQuery(at, ""), 0
	}
	s.render(w, r, http.StatusOK, "source", &pageData{
		Title:   rows[i].Title,
		Feed:    s.paths.SourceFeed(name),
		JSON:    jsonURL,
		Refresh: refresh,
		Crumbs:  []crumb{{"Overview", s.prefix + "/"}},
		Data:    v,
	})
}
