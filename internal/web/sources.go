package web

import (
	"net/http"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// listSources answers GET /api/v1/sources: the configured sources in config order with
// the daemon's poll state, then the retired ones by name.
func (s *Server) listSources(w http.ResponseWriter, r *http.Request) {
	out, err := s.sources()
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// sources lists the configured sources in config order with the daemon's poll state,
// then the retired ones by name.
func (s *Server) sources() ([]api.Source, error) {
	archived, summaries, err := query.Sources(s.store)
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int, len(archived))
	for _, a := range archived {
		counts[a.Name] = a.Incidents
	}
	out := []api.Source{}
	configured := map[string]bool{}
	for _, st := range s.daemon.Sources() {
		configured[st.Name] = true
		out = append(out, api.Source{
			Name: st.Name, Title: st.Title, URL: view.RedactURL(st.URL), Kind: st.Kind, Paused: st.Paused,
			LastPollAt: api.Time(st.LastPollAt), LastSuccessAt: api.Time(st.LastSuccessAt),
			LastError: st.LastError, ConsecutiveFailures: st.ConsecutiveFailures,
			Incidents: counts[st.Name],
		})
	}
	for _, a := range archived { // sorted by name by the archive
		if !configured[a.Name] {
			out = append(out, retiredSource(a, s.title(a.Name)))
		}
	}
	for i := range out {
		if sum, ok := summaries[out[i].Name]; ok {
			withComponents(&out[i], sum)
		}
	}
	return out, nil
}

// retiredSource describes an archived source the config no longer names. Its failure
// state is left out: nothing polls it any more, so it would only be stale.
func retiredSource(a archive.SourceInfo, title string) api.Source {
	return api.Source{Name: a.Name, Title: title, Retired: true, Incidents: a.Incidents}
}

// withComponents adds what the dashboard shows of a source's latest component set.
func withComponents(src *api.Source, sum archive.ComponentSummary) {
	n, down := sum.Components, sum.NotOperational
	src.PageStatus, src.PageDescription = sum.PageStatus, sum.PageDescription
	src.Components, src.ComponentsNotOperational = &n, &down
}
