package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// incidentsCursor tags the cursors of the incident list; they carry the sort key of the
// last item of a page: time, source and id.
const incidentsCursor = "incidents"

// listIncidents answers GET /api/v1/incidents?source=&open=&q=&limit=&before=&format=;
// format=csv gives the same page as CSV (incidentscsv.go). open=true
// keeps incidents whose latest version is open and that are still on the vendor's page
// (not removed); open=false keeps the others. q searches every version instead
// (searchIncidents).
// An unknown source is 404; a known one with nothing archived is an empty list.
// at=T lists them as they stood at T (archive.Store.IncidentsAt): only those observed by
// T, each as its version in force then, which open and q read.
func (s *Server) listIncidents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, after, err := view.KeyPage(r, incidentsCursor)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	var open *bool
	if v := q.Get("open"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			badRequest(w, "open: want true or false, got %q", v)
			return
		}
		open = &b
	}
	var csvOut bool
	switch f := q.Get("format"); f {
	case "", "json":
	case "csv":
		csvOut = true
	default:
		badRequest(w, "format: want json or csv, got %q", f)
		return
	}
	at, err := param.At(q)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	// With at=T, q keeps the incidents whose version in force then has every word: the
	// page as it read at T. Without, q searches every version (searchIncidents).
	var words []string
	if !at.IsZero() {
		words = strings.Fields(strings.ToLower(q.Get("q")))
	}
	source := q.Get("source")
	if text := strings.TrimSpace(q.Get("q")); text != "" && at.IsZero() {
		s.searchIncidents(w, r, p, after, open, source, text, csvOut)
		return
	}

	infos, err := query.IncidentsAt(s.store, source, at)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if source != "" && len(infos) == 0 && !s.knownSource(w, r, source) {
		return
	}

	type item struct {
		key  view.Key
		info *archive.IncidentInfo
	}
	items := make([]item, 0, len(infos))
	for i := range infos {
		in := &infos[i]
		if open != nil && (in.Latest.Open() && !in.Removed) != *open {
			continue
		}
		if len(words) > 0 && !query.Matches(&in.Latest, words) {
			continue
		}
		k := view.KeyOf(in)
		if after != nil && view.CompareKeys(k, *after) <= 0 {
			continue
		}
		items = append(items, item{k, in})
	}
	slices.SortFunc(items, func(a, b item) int { return view.CompareKeys(a.key, b.key) })

	if len(items) > p.Limit {
		items = items[:p.Limit]
		last := items[len(items)-1].key
		param.SetNext(w, r, param.Cursor(incidentsCursor, last.At.Format(timeLayout), last.Source, last.ID))
	}
	out := make([]api.IncidentItem, len(items))
	for i, it := range items {
		out[i] = s.incidentItem(it.info)
	}
	if csvOut {
		writeIncidentsCSV(w, out)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// incidentItem is an archived incident as the lists show it.
func (s *Server) incidentItem(in *archive.IncidentInfo) api.IncidentItem {
	return api.IncidentItem{
		Source: in.Source, ID: in.ID, Title: in.Latest.Title,
		Status: in.Latest.Status, Impact: in.Latest.Impact, Kind: in.Latest.Kind,
		StartedAt: api.Time(in.Latest.StartedAt), ResolvedAt: api.Time(in.Latest.ResolvedAt),
		Versions: in.Versions, URL: in.Latest.URL, UIURL: s.uiURL(in.Source, in.ID),
		Removed: in.Removed, LastChangedAt: api.Time(in.LastChanged),
	}
}
