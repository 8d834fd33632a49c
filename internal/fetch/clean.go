package fetch

import (
	"strings"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Clean makes every text of a snapshot safe to store, diff and show, whatever the
// provider: invalid UTF-8 becomes U+FFFD, and control characters other than newline and
// tab are dropped (a terminal escape in a vendor's title must not reach a terminal, a
// Slack message or a page). It changes the snapshot in place.
func Clean(s *model.Snapshot) {
	if s == nil {
		return
	}
	s.PageTitle = cleanText(s.PageTitle)
	for i := range s.Incidents {
		inc := &s.Incidents[i]
		for _, p := range []*string{&inc.Title, &inc.StatusRaw, &inc.ImpactRaw, &inc.URL} {
			*p = cleanText(*p)
		}
		for j := range inc.Components {
			inc.Components[j] = cleanText(inc.Components[j])
		}
		for j := range inc.Updates {
			u := &inc.Updates[j]
			u.Body, u.HTML = cleanText(u.Body), cleanText(u.HTML)
		}
		if pm := inc.Postmortem; pm != nil {
			pm.Body, pm.HTML = cleanText(pm.Body), cleanText(pm.HTML)
		}
	}
}

// cleanText is s as valid UTF-8 without control characters but newline and tab; CRLF
// becomes a newline. Clean text is returned as is, without allocating.
func cleanText(s string) string {
	clean := true
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII, most of any text: no decoding
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				clean = false
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isControl(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

// isControl reports the C0 and C1 control characters and DEL, newline and tab excepted.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0)
}
