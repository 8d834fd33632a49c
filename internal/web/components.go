package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// componentsCursor tags the cursors of a component history; they carry the version of
// the last entry of a page and how many entries of that version were given so far.
const componentsCursor = "component-history"

// listComponents answers GET /api/v1/sources/{source}/components?at=T: the components
// of the set in force at T (default: the latest), in the set's order (group, then
// name). An unknown source is 404; a source with no component set by T is an empty list.
func (s *Server) listComponents(w http.ResponseWriter, r *http.Request, source string) {
	at, err := param.At(r.URL.Query())
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	out, found, err := s.componentsAt(source, at)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if !found && !s.knownSource(w, r, source) {
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// componentsAt lists the components of the set of source in force at at (a zero at: the
// latest); found is false when no set was archived by then.
func (s *Server) componentsAt(source string, at time.Time) (out []api.Component, found bool, err error) {
	var v *model.ComponentVersion
	if at.IsZero() {
		v, err = s.store.ComponentsLatest(source)
	} else {
		v, err = s.store.ComponentsAt(source, at)
	}
	if err != nil || v == nil {
		return []api.Component{}, false, err
	}
	out = make([]api.Component, 0, len(v.Components.List))
	for _, c := range v.Components.List {
		out = append(out, api.Component{Name: c.Name, Group: c.Group, Status: c.Status, StatusRaw: c.StatusRaw,
			Since: api.Time(c.Since)})
	}
	return out, true, nil
}

// componentHistory answers GET /api/v1/sources/{source}/components/history?from=&to=:
// the status changes of the source's components observed in [from, to), oldest first,
// paged by limit and before (a cursor, though the list runs forward in time). from and
// to are open when not given. A rename alone is no entry.
func (s *Server) componentHistory(w http.ResponseWriter, r *http.Request, source string) {
	p, from, to, err := param.SpanPage(r, componentsCursor, 3)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	// The cursor: the time and version of the last entry given and how many entries of
	// that version were given.
	var after *query.Position
	if p.Before != nil {
		t, err1 := time.Parse(timeLayout, p.Before[0])
		n, err2 := strconv.Atoi(p.Before[1])
		k, err3 := strconv.Atoi(p.Before[2])
		if err1 != nil || err2 != nil || err3 != nil || n < 1 || k < 1 {
			badRequest(w, "%v", param.ErrBadCursor)
			return
		}
		after = &query.Position{At: t, Version: n, Given: k}
	}
	events, next, err := query.ComponentHistory(s.store, source, from, to, after, p.Limit)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if len(events) == 0 && !s.knownSource(w, r, source) {
		return
	}
	out := make([]api.ComponentChange, len(events))
	for i, e := range events {
		out[i] = api.ComponentChange{Component: e.Component, From: statusOrNull(e.From), To: statusOrNull(e.To), At: api.Time(e.At)}
	}
	if next != nil {
		param.SetNext(w, r, param.Cursor(componentsCursor, next.At.UTC().Format(timeLayout),
			strconv.Itoa(next.Version), strconv.Itoa(next.Given)))
	}
	writeJSON(w, http.StatusOK, out)
}

// statusOrNull is s, or nil (JSON null) for "" (a component new to the page or gone).
func statusOrNull(s model.ComponentStatus) *model.ComponentStatus {
	if s == "" {
		return nil
	}
	return &s
}

// knownSource answers 404 and reports false unless source is configured or archived.
func (s *Server) knownSource(w http.ResponseWriter, r *http.Request, source string) bool {
	known, err := query.KnownSource(s.store, source, s.configured(source))
	if err != nil {
		s.archiveError(w, r, err, "")
		return false
	}
	if !known {
		writeError(w, http.StatusNotFound, "unknown source")
	}
	return known
}
