package slack

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/diff"
)

// Slack's limits (documented, and measured for the whole payload): the API refuses a
// message past them with invalid_blocks, msg_too_long or msg_blocks_too_long, so every
// builder stays under them with a margin.
const (
	maxBlocks        = 50
	maxSectionText   = 3000
	maxFieldText     = 2000
	maxFields        = 10
	maxContextItems  = 10
	maxAllBlocksText = 11000 // Slack's undocumented cap is near 12–13k: keep clear of it
	maxText          = 3900  // the top-level text, documented as ~4,000
)

// Per-part budgets, chosen so that the largest message (three new updates, a postmortem
// and a diff) stays under maxAllBlocksText before fit has to cut anything.
const (
	titleLimit      = 300
	componentsLimit = 600
	updateLimit     = 1500
	rootUpdateLimit = 2000
	postmortemLimit = 2000
	diffLimit       = 2800
	errorLimit      = 1000
	summaryLimit    = 500
	maxNewUpdates   = 3
)

// esc escapes vendor text for mrkdwn: &, < and > only, which is all Slack needs and
// disarms <!channel>, <!here>, <@U…> and <url|text> in it.
func esc(s string) string { return diff.EscapeMrkdwn(s) }

// oneLine escapes a short vendor string (a title, a status, a component) and folds its
// line breaks, so it cannot break the layout around it.
func oneLine(s string, limit int) string {
	return cutVendor(strings.Join(strings.Fields(s), " "), limit, "", "")
}

// cutVendor escapes vendor text s and, when longer than limit runes, cuts it after the
// last whole word that fits and ends it with "…" and a link to more (when moreURL is
// set), all within limit. Words are cut before escaping, so an entity such as &amp; is
// never split.
func cutVendor(s string, limit int, moreURL, moreLabel string) string {
	e := esc(s)
	if utf8.RuneCountInString(e) <= limit {
		return e
	}
	suffix := "…"
	if moreURL != "" {
		suffix += " " + link(moreURL, moreLabel)
	}
	room := limit - utf8.RuneCountInString(suffix)
	var b strings.Builder
	n := 0
	rest := s
	for rest != "" {
		// One word and the whitespace before it.
		i := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsSpace(r) })
		if i < 0 {
			break
		}
		j := strings.IndexFunc(rest[i:], unicode.IsSpace)
		if j < 0 {
			j = len(rest) - i
		}
		piece := esc(rest[:i+j])
		pn := utf8.RuneCountInString(piece)
		if n+pn > room {
			if n == 0 {
				// One word longer than the room: cut inside it, at a rune, and past
				// any entity the cut would split.
				piece = cutRunes(esc(rest[i:i+j]), room)
				b.WriteString(piece)
			}
			break
		}
		b.WriteString(piece)
		n += pn
		rest = rest[i+j:]
	}
	out := strings.TrimRightFunc(b.String(), unicode.IsSpace)
	if out == "" {
		return suffix
	}
	return out + suffix
}

// cutRunes returns the first n runes of escaped text e, never ending inside an entity.
func cutRunes(e string, n int) string {
	i := 0
	for ; n > 0 && i < len(e); n-- {
		_, size := utf8.DecodeRuneInString(e[i:])
		i += size
	}
	out := e[:i]
	if amp := strings.LastIndexByte(out, '&'); amp >= 0 && !strings.Contains(out[amp:], ";") {
		out = out[:amp]
	}
	return out
}

// cutMrkdwn cuts mrkdwn we built (vendor parts already escaped) to limit runes, at a
// space outside any <link|label>, ending it with "…". An entity holds no space, so it is
// never split either.
func cutMrkdwn(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	room := limit - 1
	cut, n, depth := 0, 0, 0
	for i, r := range s {
		if n >= room {
			break
		}
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case unicode.IsSpace(r) && depth == 0:
			cut = i
		}
		n++
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + "…"
}

// link writes a mrkdwn link. The URL is escaped and its "|" encoded, so neither a
// vendor's URL nor our base_url can end the link early or add a label of its own.
func link(u, label string) string {
	return "<" + strings.ReplaceAll(esc(u), "|", "%7C") + "|" + label + ">"
}

// when writes a time for people in any time zone: UTC, to the minute.
func when(t time.Time) string { return diff.FormatTime(t) }
