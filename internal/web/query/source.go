package query

import (
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Matches reports whether every word (already lower-cased) occurs in the incident's
// title, update bodies or postmortem body, ignoring case. A word may match inside a
// longer one ("data" finds "database"), as a search box is expected to.
func Matches(inc *model.Incident, words []string) bool {
	var b strings.Builder
	b.WriteString(inc.Title)
	for _, u := range inc.Updates {
		b.WriteByte('\n')
		b.WriteString(u.Body)
	}
	if inc.Postmortem != nil {
		b.WriteByte('\n')
		b.WriteString(inc.Postmortem.Body)
	}
	text := strings.ToLower(b.String())
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// KnownSource reports whether source is configured or archived.
func KnownSource(st *archive.Store, source string, configured bool) (bool, error) {
	if configured {
		return true, nil
	}
	archived, err := st.Sources()
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(archived, func(a archive.SourceInfo) bool { return a.Name == source }), nil
}

// Sources is the archived sources, by name, and the summary of each one's latest
// component set: what the API's source list and the dashboard's rows are made of.
func Sources(st *archive.Store) ([]archive.SourceInfo, map[string]archive.ComponentSummary, error) {
	archived, err := st.Sources()
	if err != nil {
		return nil, nil, err
	}
	summaries, err := st.ComponentSummaries()
	return archived, summaries, err
}

// IncidentsAt lists the incidents of source (every source when empty) as they stand now
// (a zero at) or as they stood at at.
func IncidentsAt(st *archive.Store, source string, at time.Time) ([]archive.IncidentInfo, error) {
	if at.IsZero() {
		return st.Incidents(source)
	}
	return st.IncidentsAt(source, at)
}
