package ui

import (
	"html/template"
	"net/http"
	"strconv"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// compareView compares any two versions of an incident.
type compareView struct {
	Source, SourceTitle, SourceURL string
	Title, IncidentURL, Action     string
	From, To                       int
	FromAt, ToAt                   view.Stamp // zero for version 0
	Options                        []versionOption
	Summary                        string
	Changes                        template.HTML
	Swap                           string // the same two versions the other way round
}

// labelledVersions is the longest history whose versions the compare page names by time:
// a longer one is named by number only, to keep the page small.
const labelledVersions = 200

type versionOption struct {
	N     int
	Label string
}

// Compare answers GET /incidents/{source}/{id}/diff?from=N&to=M: the change set from
// version N to version M, computed now, with a form to pick the two versions. As in the
// API, to defaults to the latest version, from to the one before, and from=0 is "not
// present". 400 for a parameter that is not a version number, 404 for an unknown incident
// or version.
func (s *Site) Compare(w http.ResponseWriter, r *http.Request) {
	source, id := r.PathValue("source"), r.PathValue("id")
	from, to, err := param.Versions(r.URL.Query())
	if err != nil {
		s.Error(w, r, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	// The selectors name the versions from their headers; only the two compared are
	// decoded.
	vs, err := s.store.VersionInfos(source, id)
	if err != nil {
		s.pageArchiveError(w, r, err, "No incident "+id+" is archived for "+source+".")
		return
	}
	latest := len(vs)
	if to == 0 {
		to = latest
	}
	if from < 0 {
		from = to - 1
	}
	for _, n := range []int{from, to} {
		if n > latest {
			s.Error(w, r, http.StatusNotFound, "Not found", "Incident "+id+" has "+strconv.Itoa(latest)+
				" versions; there is no version "+strconv.Itoa(n)+".")
			return
		}
	}
	version := func(n int) (*model.Version, error) { return s.store.Version(source, id, n) }
	after, err := version(to)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	var before *model.Incident
	cv := compareView{
		Source: source, SourceTitle: s.title(source), SourceURL: s.paths.Source(source),
		Title: view.Title(&after.Incident), IncidentURL: s.paths.Incident(source, id),
		Action: s.paths.Incident(source, id) + "/diff",
		From:   from, To: to, ToAt: s.stampSeconds(after.ObservedAt),
		Swap: s.paths.Compare(source, id, to, from),
	}
	if from > 0 {
		v, err := version(from)
		if err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
		before = &v.Incident
		cv.FromAt = s.stampSeconds(v.ObservedAt)
	}
	changes := diff.Changes(before, &after.Incident)
	cv.Summary, cv.Changes = diff.Summary(changes), diff.HTML(changes, &after.Incident, before)
	if from == 0 {
		cv.Swap = ""
	}
	cv.Options = make([]versionOption, latest)
	for i := range cv.Options {
		n := i + 1
		cv.Options[i] = versionOption{N: n, Label: "Version " + strconv.Itoa(n)}
		if latest <= labelledVersions {
			cv.Options[i].Label += " · " + s.stampSeconds(vs[i].ObservedAt).Abs
		}
	}
	s.render(w, r, http.StatusOK, "compare", &pageData{
		Title: "Compare versions · " + cv.Title,
		Feed:  s.paths.SourceFeed(source),
		JSON:  s.paths.APIIncident(source, id) + "/diff?from=" + strconv.Itoa(from) + "&to=" + strconv.Itoa(to),
		Crumbs: []crumb{{"Overview", s.prefix + "/"}, {cv.SourceTitle, cv.SourceURL},
			{cv.Title, cv.IncidentURL}},
		Data: cv,
	})
}
