package diff

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Style is how Terminal and WordDiff mark removed and added words.
type Style int

const (
	// Plain marks as `git diff --word-diff=plain` does: [-removed-]{+added+}. Vendor text
	// that looks like a mark is escaped (see WordDiff).
	Plain Style = iota
	// Color marks with ANSI colours, for a terminal: removed words red and struck
	// through, added words green.
	Color
)

// ContextWords is how many words of unchanged text a word diff keeps on each side of a
// change; a longer unchanged stretch is shortened to "…" in its middle.
const ContextWords = 8

const (
	ansiDel   = "\x1b[31;9m" // red, struck through
	ansiIns   = "\x1b[32m"   // green
	ansiReset = "\x1b[0m"
)

// Terminal renders a change set for the console and the CLI, one block per field. A text
// field edited in place (an update's body, the title, the postmortem) is its word diff,
// marked in style s, with long unchanged stretches shortened around the changes:
//
//	updates[d1u1].body:
//	  … failures for [-some -]users{+ in North America+}. Connectors [-are not affected-]{+may fail to reconnect+}.
//
// Every other change reads as its values, one block per field:
//
//	status:
//	  Before: monitoring
//	  After: resolved
//
// A nil Before reads "not present", a nil After "removed", an empty string "(empty)";
// lines of a multi-line value after the first are indented by four spaces, and trailing
// whitespace is left out. Given incs (the version after the change,
// then the one before), a change to an update says which update it is after its field
// name ("updates[d1u1].body (Investigating · 2026-07-01 17:39 UTC):"), and time fields
// read as FormatTime writes them.
// Lines after the first are indented like the first. Vendor text can never drive the
// terminal: control characters are dropped from word diffs and shown escaped (\x1b)
// elsewhere. An empty change set renders as "".
func Terminal(changes []model.Change, s Style, incs ...*model.Incident) string {
	var b strings.Builder
	for _, c := range changes {
		c = readable(c)
		b.WriteString(terminalSafe(c.Field))
		if note := caption(c.Field, incs); note != "" {
			b.WriteString(" (" + terminalSafe(note) + ")")
		}
		b.WriteString(":\n")
		if len(c.Ops) > 0 && c.Before != nil && c.After != nil {
			b.WriteString("  ")
			b.WriteString(strings.ReplaceAll(WordDiff(c.Ops, s), "\n", "\n  "))
			b.WriteString("\n")
			continue
		}
		b.WriteString("  Before: ")
		b.WriteString(textValueOf(c.Before, "not present"))
		b.WriteString("\n  After: ")
		b.WriteString(textValueOf(c.After, "removed"))
		b.WriteString("\n")
	}
	return b.String()
}

// WordDiff renders a word diff as one text: removed and added runs marked in style s, an
// unchanged run longer than 2×ContextWords words shortened to its first and last
// ContextWords words around "…" (at the start of the text, only its last words are kept;
// at the end, its first). Control characters other than newline and tab are dropped,
// "\r\n" reads "\n" and a byte that is not UTF-8 reads U+FFFD, so vendor text can neither move the cursor nor colour the output. In
// Plain style a backslash in vendor text is doubled and the mark sequences "[-", "-]", "{+"
// and "+}" get a backslash between their two characters ("[\-"), so every unescaped mark
// is one this function wrote. In Color style each line of a run is coloured on its own,
// so indentation added after a newline stays uncoloured. Pure and deterministic.
func WordDiff(ops []model.Op, s Style) string {
	var b strings.Builder
	for i, o := range ops {
		text := cleanTerminal(o.Text)
		switch o.Op {
		case model.OpEqual:
			b.WriteString(escapeMarks(shorten(text, i > 0, i < len(ops)-1), s))
		case model.OpDelete:
			mark(&b, escapeMarks(text, s), s, "[-", "-]", ansiDel)
		case model.OpInsert:
			mark(&b, escapeMarks(text, s), s, "{+", "+}", ansiIns)
		}
	}
	return b.String()
}

// mark writes text inside the marks of style s.
func mark(b *strings.Builder, text string, s Style, open, close, color string) {
	if text == "" {
		return
	}
	if s == Plain {
		b.WriteString(open + text + close)
		return
	}
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		if line != "" {
			b.WriteString(color + line + ansiReset)
		}
	}
}

// shorten keeps ContextWords words of an unchanged run next to each change: its first
// words when a change comes before it (afterChange), its last when one comes after it
// (beforeChange), both when it lies between two. In scripts written without spaces a
// character counts as half a word. What is left out reads "…"; a run that would lose
// fewer than 3 words or 20 characters is kept whole.
func shorten(text string, afterChange, beforeChange bool) string {
	toks := tokenize(text)
	// weight[i] is token i's size in half words.
	weight := make([]int, len(toks))
	total := 0
	for i, t := range toks {
		switch r, _ := utf8.DecodeRuneInString(t); {
		case !hasText(t):
		case isUnspacedScript(r):
			weight[i] = 1
		default:
			weight[i] = 2
		}
		total += weight[i]
	}
	const keep = 2 * ContextWords // in half words
	head, tail := 0, len(toks)    // toks[:head] and toks[tail:] are kept
	if afterChange {
		for n := 0; head < len(toks) && n < keep; head++ {
			n += weight[head]
		}
	}
	if beforeChange {
		for n := 0; tail > head && n < keep; tail-- {
			n += weight[tail-1]
		}
	}
	dropped := 0
	for _, w := range weight[head:tail] {
		dropped += w
	}
	if !afterChange && !beforeChange || dropped < 2*3 || utf8.RuneCountInString(strings.Join(toks[head:tail], "")) < 20 {
		return text
	}
	var b strings.Builder
	if afterChange {
		b.WriteString(strings.Join(toks[:head], ""))
		b.WriteString(" ")
	}
	b.WriteString("…")
	if beforeChange {
		b.WriteString(" ")
		b.WriteString(strings.Join(toks[tail:], ""))
	}
	return b.String()
}

// cleanTerminal drops C0 and C1 control characters and DEL except newline and tab, reads
// "\r\n" as "\n", and shows a byte that is not UTF-8 as U+FFFD: a lone 0x9b is CSI to a
// terminal that is not in UTF-8 mode.
func cleanTerminal(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\r\n", "\n"), "\uFFFD")
	if !strings.ContainsFunc(s, isUnsafeControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isUnsafeControl(r) {
			return -1
		}
		return r
	}, s)
}

var markEscaper = strings.NewReplacer(`\`, `\\`, "[-", `[\-`, "-]", `-\]`, "{+", `{\+`, "+}", `+\}`)

// escapeMarks escapes in Plain style what could be read as a mark.
func escapeMarks(s string, st Style) string {
	if st != Plain {
		return s
	}
	return markEscaper.Replace(s)
}

// textValueOf is how Terminal shows a value outside a word diff: missing for nil,
// "(empty)" for an empty string, lines after the first indented by four spaces, trailing
// whitespace left out, control characters other than tab and newline escaped (\x1b).
func textValueOf(p *string, missing string) string {
	if p == nil {
		return missing
	}
	lines := strings.Split(strings.ReplaceAll(*p, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = terminalSafe(strings.TrimRightFunc(l, unicode.IsSpace))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return "(empty)"
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = "    " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// terminalSafe escapes C0 and C1 control characters and DEL, except tab and newline.
func terminalSafe(s string) string {
	if !strings.ContainsFunc(s, isUnsafeControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isUnsafeControl(r) {
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4&0xf])
			b.WriteByte("0123456789abcdef"[r&0xf])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isUnsafeControl(r rune) bool {
	return r != '\t' && r != '\n' && (r < 0x20 || (r >= 0x7f && r <= 0x9f))
}
