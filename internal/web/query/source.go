package query

import (
	"slices"
	"strings"

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
