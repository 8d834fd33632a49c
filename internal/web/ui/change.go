package ui

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/recent"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// changeView is the "what changed" view of one change.
type changeView struct {
	Source, SourceTitle, SourceURL string
	Title, IncidentURL             string
	N, Of                          int
	At                             view.Stamp
	Summary                        string
	Changes                        template.HTML
	Prev, Next                     string // the changes before and after, if any
	Compare                        string // this change on the compare page
	Evidence                       string // the raw payload that produced it (JSON API)
}

// Change answers GET /incidents/{source}/{id}/changes/{n}: the change that made
// version n, field by field, Before and After, with links to the changes before and
// after it. The change set is the one archived with version n, as it was announced.
// 404 for an unknown incident or version.
func (s *Site) Change(w http.ResponseWriter, r *http.Request) {
	source, id := r.PathValue("source"), r.PathValue("id")
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		s.Error(w, r, http.StatusNotFound, "Not found", "Changes are numbered from 1: change n made version n.")
		return
	}
	v, err := s.store.Version(source, id, n)
	if err != nil {
		s.pageArchiveError(w, r, err, "There is no change "+strconv.Itoa(n)+" of incident "+id+" of "+source+".")
		return
	}
	latest, err := query.LatestFrom(s.store, source, id, v)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	title := view.Title(&v.Incident)
	cv := changeView{
		Source: source, SourceTitle: s.title(source), SourceURL: s.paths.Source(source),
		Title: title, IncidentURL: s.paths.Incident(source, id),
		N: n, Of: latest.N,
		At:       s.stampSeconds(v.ObservedAt),
		Summary:  recent.SummaryOf(v.N, v.ObservedAt, v.Summary, recent.FirstPoll(s.store, source)),
		Changes:  s.changeHTML(source, id, v, v.Changes),
		Compare:  s.paths.Compare(source, id, n-1, n),
		Evidence: s.prefix + "/api/v1/sources/" + url.PathEscape(source) + "/snapshots?at=" + url.QueryEscape(v.ObservedAt.UTC().Format(api.TimeLayout)),
	}
	if n > 1 {
		cv.Prev = s.paths.Change(source, id, n-1)
	}
	if n < latest.N {
		cv.Next = s.paths.Change(source, id, n+1)
	}
	s.render(w, r, http.StatusOK, "change", &pageData{
		Title: "Change " + strconv.Itoa(n) + " · " + title,
		Feed:  s.paths.SourceFeed(source),
		JSON:  s.paths.APIIncident(source, id) + "/versions/" + strconv.Itoa(n),
		Crumbs: []crumb{{"Overview", s.prefix + "/"}, {cv.SourceTitle, cv.SourceURL},
			{title, cv.IncidentURL}},
		Data: cv,
	})
}

// changeHTML is changes, of version v's change set, as diff.HTML renders them, each
// change to an update captioned with that update's status and time: from v, and, when
// the change set removes an update, from the version before (read only then).
func (s *Site) changeHTML(source, id string, v *model.Version, changes []model.Change) template.HTML {
	incs := []*model.Incident{&v.Incident}
	for _, c := range changes {
		if c.After == nil && strings.HasPrefix(c.Field, "updates[") && v.N > 1 {
			if prev, err := s.store.Version(source, id, v.N-1); err == nil {
				incs = append(incs, &prev.Incident)
			}
			break
		}
	}
	return diff.HTML(changes, incs...)
}
