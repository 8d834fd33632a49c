package fetch

import (
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/sanitize"
)

// Clean makes every text of a snapshot safe to store, diff and show, whatever the
// provider: invalid UTF-8 becomes U+FFFD, and control characters other than newline and
// tab are dropped (a terminal escape in a vendor's title must not reach a terminal, a
// Slack message or a page), as are the invisible format characters that spoof what text
// says (bidirectional overrides, zero-width spaces; see sanitize.Text). It changes the
// snapshot in place.
func Clean(s *model.Snapshot) {
	if s == nil {
		return
	}
	s.PageTitle = CleanText(s.PageTitle)
	for i := range s.Incidents {
		inc := &s.Incidents[i]
		for _, p := range []*string{&inc.Title, &inc.StatusRaw, &inc.ImpactRaw, &inc.URL} {
			*p = CleanText(*p)
		}
		for j := range inc.Components {
			inc.Components[j] = CleanText(inc.Components[j])
		}
		for j := range inc.Updates {
			u := &inc.Updates[j]
			u.Body, u.HTML = CleanText(u.Body), CleanText(u.HTML)
			u.Status = model.Status(CleanText(string(u.Status)))
		}
		if pm := inc.Postmortem; pm != nil {
			pm.Body, pm.HTML = CleanText(pm.Body), CleanText(pm.HTML)
		}
	}
	if cs := s.Components; cs != nil {
		cs.PageStatus, cs.PageDescription = CleanText(cs.PageStatus), CleanText(cs.PageDescription)
		for i := range cs.List {
			c := &cs.List[i]
			for _, p := range []*string{&c.ID, &c.Name, &c.Group, &c.StatusRaw} {
				*p = CleanText(*p)
			}
		}
		cs.Sort() // a cleaned name may sort elsewhere
	}
}

// CleanText is sanitize.Text: valid UTF-8 without control or invisible format
// characters (bidirectional overrides, zero-width spaces), newline and tab kept.
func CleanText(s string) string { return sanitize.Text(s) }
