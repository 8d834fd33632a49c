package ui

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/recent"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// incidentView is an incident page's view: the incident as it is now, and its history.
type incidentView struct {
	Source, SourceTitle, SourceURL string
	Title                          string
	Maintenance                    bool
	Status, Impact                 view.Badge
	Description                    string
	Started, Resolved              view.Stamp
	ResolvedInferred               bool
	ScheduledFor, ScheduledUntil   view.Stamp
	Duration                       string
	Components                     []string
	VendorURL                      string
	FirstSeen, LastChanged         view.Stamp
	Versions                       int
	Updates                        []updateView // newest first
	Postmortem                     *postmortemView
	History                        []historyDay // newest first
	Older, Newer                   string       // the history's other pages, if any
	LatestChange, Compare          string
	AsOf                           asOf
	Shown                          int          // the version shown: the latest, or the one in force at the as-of time
	LatestURL                      string       // the page as now, on a page as of a time
	Related                        *relatedView // nil: no related incident
}

type updateView struct {
	Status view.Badge
	Posted view.Stamp
	Body   template.HTML
	Edits  []editLink // later changes that edited it: silent edits show
}

type editLink struct {
	N   int
	URL string
}

type postmortemView struct {
	Published view.Stamp
	Body      template.HTML
}

// historyDay is the changes observed on one day (UTC).
type historyDay struct {
	Day, ISO string
	Changes  []historyItem
}

type historyItem struct {
	N       int
	At      view.Stamp
	Time    string // 15:04:05, under its day's heading
	Summary string
	URL     string
}

// historyPage is how many changes the incident page lists at a time, newest first: every
// change of nearly every incident. A longer history is paged with ?before=N, which keeps
// the page small.
const historyPage = 100

// Incident answers GET /incidents/{source}/{id}?before=: the incident as its latest
// version shows it (description, impact, components, updates, postmortem) and its
// history, grouped by day, each change with its summary and a link to its change view:
// the newest historyPage changes, or those before change N. "Edited after posting"
// marks an update whose body a listed change edited. 404 for an unknown incident, 400
// for a before that is not a change number.
//
// With at=T the page shows the version in force at T (the latest observed at or before
// T) and the history up to it; 404 when the incident was first archived after T, 400
// for a bad at.
func (s *Site) Incident(w http.ResponseWriter, r *http.Request) {
	source, id := r.PathValue("source"), r.PathValue("id")
	at, err := param.FormAt(r.URL.Query())
	if err != nil {
		s.Error(w, r, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	top := 0 // the newest change listed; 0: the latest
	if raw := r.URL.Query().Get("before"); raw != "" {
		n, err := param.Version("before", raw, 2)
		if err != nil {
			s.Error(w, r, http.StatusBadRequest, "Bad request", err.Error())
			return
		}
		top = n - 1
	}
	first, err := s.store.Version(source, id, 1)
	if err != nil {
		s.pageArchiveError(w, r, err, "No incident "+id+" is archived for "+source+".")
		return
	}
	latest, err := query.LatestFrom(s.store, source, id, first)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	shown := latest
	if !at.IsZero() && latest.ObservedAt.After(at) {
		if first.ObservedAt.After(at) {
			s.Error(w, r, http.StatusNotFound, "Not archived yet", "This incident was first archived at "+
				first.ObservedAt.UTC().Format("2006-01-02 15:04:05 UTC")+", after "+at.UTC().Format("2006-01-02 15:04:05 UTC")+".")
			return
		}
		shown, err = query.LastVersion(s.store, source, id, first, func(v *model.Version) bool { return !v.ObservedAt.After(at) })
		if err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
	}
	if top == 0 || top > shown.N {
		top = shown.N
	}
	low := max(1, top-historyPage+1)
	// The history is read from the versions' headers: only the first and the latest
	// versions are decoded, however many there are and however large their bodies.
	infos, err := s.store.VersionInfos(source, id)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	top = min(top, len(infos))
	low = min(low, top)
	vs := infos[low-1 : top] // oldest first, as the archive lists them
	inc := &shown.Incident
	clock := s.now() // what "ongoing for" counts to
	if !at.IsZero() {
		clock = at
	}
	v := incidentView{
		Source: source, SourceTitle: s.title(source), SourceURL: s.paths.Source(source),
		Title:       view.Title(inc),
		Maintenance: inc.Kind == model.KindMaintenance,
		Status:      view.StatusBadge(inc.Status), Impact: view.ImpactBadge(inc.Impact),
		Description: diff.Description(s.title(source), inc, clock),
		Started:     s.stamp(inc.StartedAt), Resolved: s.stamp(inc.ResolvedAt), ResolvedInferred: inc.ResolvedInferred,
		ScheduledFor: s.stamp(inc.ScheduledFor), ScheduledUntil: s.stamp(inc.ScheduledUntil),
		Duration:   view.Duration(inc, clock),
		Components: inc.Components,
		VendorURL:  vendortext.SafeLink(inc.URL),
		FirstSeen:  s.stampSeconds(first.ObservedAt), LastChanged: s.stampSeconds(shown.ObservedAt),
		Versions:     latest.N,
		LatestChange: s.paths.Change(source, id, latest.N),
		AsOf:         newAsOf(s.paths.Incident(source, id), at),
		Shown:        shown.N,
	}
	if shown.N != latest.N {
		v.LatestURL = s.paths.Incident(source, id)
	}
	if latest.N > 1 {
		v.Compare = s.paths.Compare(source, id, 0, latest.N)
	}
	v.Related = s.related(source, model.URLID(id))

	edits := map[string][]editLink{} // update id → the changes that edited its body
	for i := range vs {
		for _, f := range vs[i].Fields {
			if uid, ok := editedUpdate(f); ok {
				edits[uid] = append(edits[uid], editLink{vs[i].N, s.paths.Change(source, id, vs[i].N)})
			}
		}
	}
	updates := slices.Clone(inc.Updates)
	slices.SortStableFunc(updates, func(a, b model.Update) int { return b.PostedAt.Compare(a.PostedAt) })
	for i := range updates {
		u := &updates[i]
		v.Updates = append(v.Updates, updateView{
			Status: view.StatusBadge(u.Status), Posted: s.stamp(u.PostedAt), Body: vendortext.LinkifyHTML(vendortext.UpdateHTML(u)), Edits: edits[u.ID],
		})
	}
	if pm := inc.Postmortem; pm != nil {
		v.Postmortem = &postmortemView{Published: s.stamp(pm.PublishedAt), Body: vendortext.LinkifyHTML(vendortext.PostmortemHTML(pm))}
	}

	firstPoll := recent.FirstPoll(s.store, source)
	for i := len(vs) - 1; i >= 0; i-- {
		ver := &vs[i]
		at := ver.ObservedAt.UTC()
		day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
		if n := len(v.History); n == 0 || v.History[n-1].ISO != day.Format(time.DateOnly) {
			v.History = append(v.History, historyDay{Day: day.Format("Monday, January 2, 2006"), ISO: day.Format(time.DateOnly)})
		}
		h := &v.History[len(v.History)-1]
		h.Changes = append(h.Changes, historyItem{
			N: ver.N, At: s.stampSeconds(ver.ObservedAt), Time: at.Format(time.TimeOnly), Summary: recent.SummaryOf(ver.N, ver.ObservedAt, ver.Summary, firstPoll), URL: s.paths.Change(source, id, ver.N),
		})
	}
	if low > 1 {
		v.Older = s.paths.Incident(source, id) + atQuery(at, "before="+strconv.Itoa(low)) + "#history-h"
	}
	if top < shown.N {
		v.Newer = s.paths.Incident(source, id) + atQuery(at, "") + "#history-h"
	}
	refresh, jsonURL := refreshFor(inc.Open()), s.paths.APIIncident(source, id)
	if !at.IsZero() {
		// The page as it stood changes no more; its JSON twin is the version in force then.
		refresh, jsonURL = 0, jsonURL+"/at?time="+url.QueryEscape(at.UTC().Format(time.RFC3339Nano))
	}
	s.render(w, r, http.StatusOK, "incident", &pageData{
		Title:   v.Title + " · " + v.SourceTitle,
		Feed:    s.paths.SourceFeed(source),
		JSON:    jsonURL,
		Refresh: refresh,
		Crumbs:  []crumb{{"Overview", s.prefix + "/"}, {v.SourceTitle, v.SourceURL}},
		Data:    v,
	})
}

// editedUpdate returns the update id of a change field "updates[<id>].body".
func editedUpdate(field string) (string, bool) {
	rest, ok := strings.CutPrefix(field, "updates[")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "].body")
}
