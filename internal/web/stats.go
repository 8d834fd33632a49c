package web

import (
	"net/http"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// sourceStats answers GET /api/v1/sources/{source}/stats?days=N: the source's vendor
// figures over the incidents that started in the last N days (default 90, at most
// 3650). 400 for a bad days, 404 for an unknown source; a known source with nothing
// archived has figures of nothing (nulls and zeros).
func (s *Server) sourceStats(w http.ResponseWriter, r *http.Request, source string) {
	days, err := param.Days(r.URL.Query(), query.DefaultStatsDays, query.MaxStatsDays)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	rows, err := query.Stats(s.store, source, days, s.now())
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if len(rows) == 0 {
		if !s.knownSource(w, r, source) {
			return
		}
		rows = []api.SourceStats{query.Figures(&archive.SourceFacts{Source: source}, days)}
	}
	writeJSON(w, http.StatusOK, rows[0])
}

// allStats answers GET /api/v1/stats?days=N: the vendor figures of every source, one
// row each, in the order of GET /api/v1/sources (configured sources in config order,
// then the retired ones by name), all read in one transaction.
func (s *Server) allStats(w http.ResponseWriter, r *http.Request) {
	days, err := param.Days(r.URL.Query(), query.DefaultStatsDays, query.MaxStatsDays)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	out, err := s.statsRows(days)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// statsRows is the figures of every source over days, in the order of GET
// /api/v1/sources.
func (s *Server) statsRows(days int) ([]api.SourceStats, error) {
	sources, err := s.sources()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(sources))
	for i, src := range sources {
		names[i] = src.Name
	}
	return query.StatsRows(s.store, names, days, s.now())
}
