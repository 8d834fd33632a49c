package diff

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeMrkdwn escapes s for Slack mrkdwn: &, < and > become &amp;, &lt; and &gt;, and
// nothing else changes. That is all Slack asks, and it is enough to disarm <!channel>,
// <@U…> mentions and <url|text> links in vendor text.
func EscapeMrkdwn(s string) string { return mrkdwnEscaper.Replace(s) }

// zwsp separates a formatting marker from an adjacent non-space character: Slack only
// honours *bold* and ~strike~ at word boundaries, which a word diff inside CJK text or
// a replacement with no space between (~old~*new*) does not have. The zero-width space
// gives Slack its boundary and shows as nothing.
const zwsp = "\u200b"

// Mrkdwn renders a change set as Slack mrkdwn, one line per field, "*Label*: value":
// text fields as a word diff with ~removed~ and *added* runs, other fields as "~before~
// → *after*". Whitespace at the ends of a run and line breaks stay outside the markers,
// since Slack ignores markers that touch a space or span lines. Every vendor string is
// escaped (EscapeMrkdwn). When the result is longer than limit characters (runes; a
// limit <= 0 means none), it is cut after the last word that fits, open markers are
// closed, and "… <moreURL|full diff>" ends it (plain "…" when moreURL is ""), all within
// limit. An empty change set renders as "".
//
// incs are the versions the change set lies between, the one after it first: given
// them, a change to an update says which update it is after its label ("*Update
// edited* · Investigating · 2026-07-01 17:39 UTC: …"). Time values read as FormatTime
// writes them.
func Mrkdwn(changes []model.Change, limit int, moreURL string, incs ...*model.Incident) string {
	var w mrkdwnWriter
	for i, c := range changes {
		c = readable(c)
		if i > 0 {
			w.write("\n")
		}
		w.write("*" + label(c) + "*")
		if note := caption(c.Field, incs); note != "" {
			w.write(" · " + EscapeMrkdwn(note))
		}
		w.write(": ")
		start := len(w.buf)
		switch {
		case len(c.Ops) > 0:
			for _, o := range c.Ops {
				w.text(o.Text, opMarker(o.Op))
			}
		case c.Before != nil && c.After != nil:
			w.text(*c.Before, '~')
			w.write(" → ")
			w.text(*c.After, '*')
		case c.Before != nil:
			w.text(*c.Before, '~')
		case c.After != nil:
			w.text(*c.After, '*')
		}
		if len(w.buf) == start {
			w.write("(empty)")
		}
	}
	return w.result(limit, moreURL)
}

func opMarker(op string) byte {
	switch op {
	case model.OpInsert:
		return '*'
	case model.OpDelete:
		return '~'
	}
	return 0
}

// label names a field for people reading Slack; update ids mean nothing to them.
func label(c model.Change) string {
	switch c.Field {
	case FieldTitle:
		return "Title"
	case FieldStatus:
		return "Status"
	case FieldImpact:
		return "Impact"
	case FieldKind:
		return "Kind"
	case FieldStartedAt:
		return "Started"
	case FieldResolvedAt:
		return "Resolved"
	case FieldScheduledFor:
		return "Scheduled for"
	case FieldScheduledUntil:
		return "Scheduled until"
	case FieldComponents:
		return "Components"
	case FieldPostmortemBody:
		return "Postmortem"
	case FieldPostmortemPublishedAt:
		return "Postmortem published"
	}
	switch _, sub, ok := updateField(c.Field); {
	case !ok:
		return EscapeMrkdwn(c.Field)
	case sub == ".body":
		return "Update edited"
	case sub == ".status":
		return "Update status"
	case c.Before == nil:
		return "New update"
	}
	return "Update removed"
}

// mrkdwnWriter builds mrkdwn and remembers where it may be cut.
type mrkdwnWriter struct {
	buf   []byte
	runes int
	cuts  []cutPoint
}

// cutPoint is a place after which the output may end.
type cutPoint struct {
	bytes, runes int
	open         byte // the marker open there, to be closed when cutting
	word         bool // at the end of a word rather than between two tokens of one
}

// write appends s, which is markup or text already escaped.
func (w *mrkdwnWriter) write(s string) {
	w.buf = append(w.buf, s...)
	w.runes += utf8.RuneCountInString(s)
}

// lastIsSpace reports whether the output ends with whitespace (or is empty).
func (w *mrkdwnWriter) lastIsSpace() bool {
	r, n := utf8.DecodeLastRune(w.buf)
	return n == 0 || unicode.IsSpace(r)
}

// text writes vendor text s, escaped, inside marker m (0 for none). Each line's
// whitespace ends stay outside the marker, and a line without text gets no marker.
func (w *mrkdwnWriter) text(s string, m byte) {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			w.write("\n")
		}
		core := strings.TrimLeftFunc(line, unicode.IsSpace)
		w.write(line[:len(line)-len(core)])
		trail := len(strings.TrimRightFunc(core, unicode.IsSpace))
		core, tail := core[:trail], core[trail:]
		if core == "" {
			w.write(tail)
			continue
		}
		closed := len(w.buf) > 0 && (w.buf[len(w.buf)-1] == '*' || w.buf[len(w.buf)-1] == '~')
		if m != 0 && !w.lastIsSpace() || m == 0 && closed {
			w.write(zwsp)
		}
		if m != 0 {
			w.write(string(m))
		}
		toks := tokenize(core)
		for j, t := range toks {
			w.write(EscapeMrkdwn(t))
			if strings.TrimSpace(t) == "" {
				continue
			}
			endOfWord := j == len(toks)-1 || strings.TrimSpace(toks[j+1]) == ""
			w.cuts = append(w.cuts, cutPoint{bytes: len(w.buf), runes: w.runes, open: m, word: endOfWord})
		}
		if m != 0 {
			w.write(string(m))
			w.cuts = append(w.cuts, cutPoint{bytes: len(w.buf), runes: w.runes, word: true})
		}
		w.write(tail)
	}
}

// result returns the output, cut to limit runes when longer.
func (w *mrkdwnWriter) result(limit int, moreURL string) string {
	if limit <= 0 || w.runes <= limit {
		return string(w.buf)
	}
	suffix := "…"
	if moreURL != "" {
		suffix += " <" + strings.ReplaceAll(EscapeMrkdwn(moreURL), "|", "%7C") + "|full diff>"
	}
	n := utf8.RuneCountInString(suffix)
	if n > limit {
		suffix, n = "…", 1
	}
	// The closing marker and the zero-width space that parts it from the "…".
	const closing = 2
	best, bestWord := -1, -1
	for i, c := range w.cuts {
		if c.runes+closing+n > limit {
			break
		}
		best = i
		if c.word {
			bestWord = i
		}
	}
	if bestWord >= 0 {
		best = bestWord
	}
	if best < 0 {
		return suffix
	}
	c := w.cuts[best]
	out := string(w.buf[:c.bytes])
	if c.open != 0 {
		out += string(c.open)
	}
	if strings.HasSuffix(out, "*") || strings.HasSuffix(out, "~") {
		out += zwsp
	}
	return out + suffix
}
