package diff

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	dmp "github.com/sergi/go-diff/diffmatchpatch"

	"github.com/statuswatch/statuswatch/internal/model"
)

// tokenBudget bounds the work of one diff. Myers' algorithm costs O((N+M)·D), so the
// worst case (two unrelated texts) grows with the square of the size; the cleanup after
// it is linear per pass, and its passes are bounded. Measured on a 2-core VM, unrelated
// texts of 5,000 / 10,000 / 20,000 tokens in total took ~55 ms / ~275 ms / ~1.1 s
// (with go-diff's semantic cleanup, then used): the 20,000 first considered would put
// the worst case within 2× of diffTimeout on a slow or busy machine. 6,000 keeps it near
// 50–100 ms (BenchmarkWordsUnrelatedAtBudget), so the deadline, the only
// non-deterministic input, never shapes a result in practice. The same number bounds
// line counts on the line path, where one line costs what one token does.
const tokenBudget = 6000

// diffTimeout is go-diff's DiffTimeout: a last-resort guard only. It is a time.Duration
// (a bare 2 would be 2 ns) and never 0, which means "no limit" to go-diff. Trade-off: if
// it ever fired, go-diff would return a coarser diff that depends on machine speed, so
// the same inputs could give different ops on different machines. tokenBudget keeps the
// work ~20× below it so that never happens in practice; the ops stay correct either way
// (the joins invariant holds for any go-diff result).
const diffTimeout = 2 * time.Second

// path names the strategy that produced a diff, so tests can assert it without timing.
type path int

const (
	pathEqual   path = iota // the texts are identical
	pathWord                // word-level diff
	pathLine                // line-level diff, changed hunks refined word by word within budget
	pathReplace             // whole replacement of the differing middle
)

func (p path) String() string {
	return [...]string{"equal", "word", "line", "replace"}[p]
}

// Words returns a word-level diff of before and after as runs of equal, insert and
// delete. Equal and delete runs join to exactly before, equal and insert runs to exactly
// after, whatever the input (invalid UTF-8 included). Runs never split a rune, nor a
// character built of several runes (combining marks, emoji sequences, flags). Above
// tokenBudget the diff falls back to lines, then to one replacement, so the work is
// bounded by the input size.
func Words(before, after string) []model.Op {
	ops, _ := words(before, after)
	return ops
}

// words is Words that also reports the path taken.
func words(a, b string) ([]model.Op, path) {
	if a == b {
		return appendOp(nil, model.OpEqual, a), pathEqual
	}
	// A text added or removed whole is one run: no tokenising, no go-diff. Version 0 → 1
	// of every incident takes this path for every update, so it is most of a cold poll.
	if a == "" {
		return appendOp(nil, model.OpInsert, b), pathReplace
	}
	if b == "" {
		return appendOp(nil, model.OpDelete, a), pathReplace
	}
	ta, tb := tokenize(a), tokenize(b)

	// Trim the common prefix and suffix first: it is linear, and it lets a small edit in a
	// huge text stay on the word path, since only the differing middle counts against
	// the budget.
	pre := 0
	for pre < len(ta) && pre < len(tb) && ta[pre] == tb[pre] {
		pre++
	}
	suf := 0
	for suf < len(ta)-pre && suf < len(tb)-pre && ta[len(ta)-1-suf] == tb[len(tb)-1-suf] {
		suf++
	}
	preLen := joinedLen(ta[:pre])
	sufLen := joinedLen(ta[len(ta)-suf:])
	ma, mb := a[preLen:len(a)-sufLen], b[preLen:len(b)-sufLen]
	ta, tb = ta[pre:len(ta)-suf], tb[pre:len(tb)-suf]

	var mid []model.Op
	p := pathReplace
	if len(ta)+len(tb) <= tokenBudget {
		if ops, ok := diffUnits(ta, tb, ma, mb); ok {
			mid, p = ops, pathWord
		}
	} else if la, lb := splitLines(ma), splitLines(mb); len(la)+len(lb) <= tokenBudget {
		if ops, ok := diffUnits(la, lb, ma, mb); ok {
			mid, p = refine(ops), pathLine
		}
	}
	if p == pathReplace {
		mid = appendOp(appendOp(nil, model.OpDelete, ma), model.OpInsert, mb)
	}

	ops := appendOp(nil, model.OpEqual, a[:preLen])
	for _, o := range mid {
		ops = appendOp(ops, o.Op, o.Text)
	}
	return shiftSpaces(appendOp(ops, model.OpEqual, a[len(a)-sufLen:])), p
}

// refineBudget bounds the word diffs refine may run, as a sum of squared hunk sizes in
// tokens: a quarter of one word-path diff at tokenBudget, so the line path as a whole
// costs little more than the word path's worst case. The budgeted case (two 100 KB texts
// 1% apart) spends about 6% of it; unrelated texts spend it all and keep the rest as lines.
const refineBudget = tokenBudget * tokenBudget / 4

// refine rediffs, word by word, each changed hunk of a line diff (its deleted lines
// against its inserted lines), as go-diff's own line mode does. Hunks are taken in order
// while the sum of their squared token counts (Myers' worst case) stays within
// refineBudget, so many small edits scattered through a long text all get word diffs
// while a wholesale rewrite stays a line replacement.
func refine(lines []model.Op) []model.Op {
	var out []model.Op
	spent := 0
	var del, ins strings.Builder
	flush := func() {
		d, i := del.String(), ins.String()
		del.Reset()
		ins.Reset()
		if d != "" && i != "" && spent < refineBudget {
			td, ti := tokenize(d), tokenize(i)
			if h := len(td) + len(ti); spent+h*h <= refineBudget {
				if ops, ok := diffUnits(td, ti, d, i); ok {
					spent += h * h
					out = append(out, ops...)
					return
				}
			}
		}
		out = appendOp(appendOp(out, model.OpDelete, d), model.OpInsert, i)
	}
	for _, o := range lines {
		switch o.Op {
		case model.OpDelete:
			del.WriteString(o.Text)
		case model.OpInsert:
			ins.WriteString(o.Text)
		default:
			flush()
			out = append(out, o)
		}
	}
	flush()
	return out
}

// appendOp appends a run, merging it into the last run of the same kind and dropping it
// when empty, so runs come out canonical whichever path built them.
func appendOp(ops []model.Op, op, text string) []model.Op {
	if text == "" {
		return ops
	}
	if n := len(ops); n > 0 && ops[n-1].Op == op {
		ops[n-1].Text += text
		return ops
	}
	return append(ops, model.Op{Op: op, Text: text})
}

func joinedLen(toks []string) int {
	n := 0
	for _, t := range toks {
		n += len(t)
	}
	return n
}

// diffUnits diffs two sequences of units (tokens or lines) whose concatenations are a
// and b: each distinct unit becomes one private-use rune, go-diff diffs the rune
// strings, and the runs are mapped back. It reports false when the result cannot be
// mapped back onto a and b exactly, which the callers treat as "take the next fallback".
func diffUnits(ua, ub []string, a, b string) ([]model.Op, bool) {
	var e encoder
	ra, okA := e.encode(ua)
	rb, okB := e.encode(ub)
	if !okA || !okB {
		return nil, false
	}
	d := dmp.New()
	d.DiffTimeout = diffTimeout
	raw := d.DiffMainRunes(ra, rb, false)
	// The cleanup builds new runs; the raw ones stay to fall back on, and the result is
	// checked below rather than trusted.
	if ops, ok := e.decode(e.cleanup(raw), a, b); ok {
		return ops, true
	}
	return e.decode(raw, a, b)
}

// keepRatio is how much longer than an unchanged stretch the changes on both sides of it
// must be for the stretch to be folded into them. go-diff's DiffCleanupSemantic folds an
// equality no longer than the edits around it (a ratio of 1, counted in units, spaces
// included), which on words turns "[-some-] users{+ in North America+}" into one removed
// and one re-added sentence. Folding only what is dwarfed keeps every shared word that
// reads as an anchor, and still merges the odd "the" matched inside a rewrite.
const keepRatio = 4

// cleanupPasses bounds the cleanup: each pass is linear, and a fold can only make the
// next equality's neighbours longer, so a few passes settle any real text. The bound
// keeps the cost linear on adversarial input; the result is deterministic either way.
const cleanupPasses = 8

// cleanup folds into the changes around it every unchanged stretch that holds no word
// (only spaces and punctuation) or is dwarfed by them: it is at most 1/keepRatio of the
// changes on each side, counted in words (for lines, lines with words).
// Runs of changes between two kept equalities become one delete and one insert. Unlike
// go-diff's semantic cleanup it never looks inside units, which are already words or
// lines. The runs still join to the two inputs.
func (e *encoder) cleanup(diffs []dmp.Diff) []dmp.Diff {
	weight := func(s string) int {
		n := 0
		for _, r := range s {
			if i, ok := runeIndex(r); ok && i < len(e.units) && hasText(e.units[i]) {
				n++
			}
		}
		return n
	}
	runs := make([]run, len(diffs))
	for i, d := range diffs {
		runs[i] = run{d.Type, d.Text, weight(d.Text)}
	}
	for range cleanupPasses {
		// Merge into groups: equal, or changes as (delete, insert) side by side.
		type group struct {
			equal      bool
			del, ins   strings.Builder
			wDel, wIns int
		}
		var groups []*group
		for _, r := range runs {
			isEq := r.op == dmp.DiffEqual
			if n := len(groups); n == 0 || groups[n-1].equal != isEq {
				groups = append(groups, &group{equal: isEq})
			}
			g := groups[len(groups)-1]
			if r.op == dmp.DiffInsert {
				g.ins.WriteString(r.text)
				g.wIns += r.w
			} else {
				g.del.WriteString(r.text)
				g.wDel += r.w
			}
		}
		folded := false
		for i := 1; i < len(groups)-1; i++ {
			g := groups[i]
			if !g.equal {
				continue
			}
			left := max(groups[i-1].wDel, groups[i-1].wIns)
			right := max(groups[i+1].wDel, groups[i+1].wIns)
			if g.wDel > 0 && g.wDel*keepRatio > min(left, right) {
				continue
			}
			// Fold: the equality becomes part of both sides of the changes around it.
			prev, next := groups[i-1], groups[i+1]
			text := g.del.String()
			prev.del.WriteString(text)
			prev.del.WriteString(next.del.String())
			prev.ins.WriteString(text)
			prev.ins.WriteString(next.ins.String())
			prev.wDel += g.wDel + next.wDel
			prev.wIns += g.wDel + next.wIns
			groups = append(groups[:i], groups[i+2:]...)
			i--
			folded = true
		}
		runs = runs[:0:0]
		for _, g := range groups {
			if g.equal {
				runs = append(runs, run{dmp.DiffEqual, g.del.String(), g.wDel})
				continue
			}
			if g.del.Len() > 0 {
				runs = append(runs, run{dmp.DiffDelete, g.del.String(), g.wDel})
			}
			if g.ins.Len() > 0 {
				runs = append(runs, run{dmp.DiffInsert, g.ins.String(), g.wIns})
			}
		}
		if !folded {
			break
		}
	}
	out := make([]dmp.Diff, 0, len(runs))
	for _, r := range runs {
		if r.text != "" {
			out = append(out, dmp.Diff{Type: r.op, Text: r.text})
		}
	}
	return out
}

// run is one run of a cleanup: its text in units, and how many of them carry text.
type run struct {
	op   dmp.Operation
	text string
	w    int
}

// shiftSpaces moves a change that starts with a space to after it when the text that
// follows starts with the same space: "have[- already-] lost" reads "have [-already -]lost",
// as a word diff usually does. The runs join to the same texts.
func shiftSpaces(ops []model.Op) []model.Op {
	lead := func(s string) string { return s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))] }
	for i := 1; i < len(ops); i++ {
		// The changes run from i to j (exclusive), the equality after them is j.
		if ops[i].Op == model.OpEqual || ops[i-1].Op != model.OpEqual {
			continue
		}
		j := i + 1
		if j < len(ops) && ops[j].Op != model.OpEqual {
			j++
		}
		if j >= len(ops) || ops[j].Op != model.OpEqual {
			continue
		}
		ws := lead(ops[j].Text)
		if ws == "" || ws == ops[j].Text {
			continue
		}
		ok := true
		for k := i; k < j; k++ {
			t := ops[k].Text
			if lead(t) != ws || len(t) == len(ws) || strings.TrimRightFunc(t, unicode.IsSpace) != t {
				ok = false
			}
		}
		if !ok {
			continue
		}
		ops[i-1].Text += ws
		for k := i; k < j; k++ {
			ops[k].Text = ops[k].Text[len(ws):] + ws
		}
		ops[j].Text = ops[j].Text[len(ws):]
	}
	return ops
}

// hasText reports whether a unit holds a letter or a digit: a word, or a line with words.
func hasText(u string) bool {
	return strings.ContainsFunc(u, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// encoder maps units to runes of the private-use areas: the BMP's first (6,400 runes),
// then planes 15 and 16 (65,534 each). None is a letter, digit or space, which matters:
// go-diff's cleanup scores boundaries by character class and must see every unit alike.
type encoder struct {
	ids   map[string]rune
	units []string // units[i] is the unit of the i-th rune handed out
}

var puaRanges = [...][2]rune{{0xE000, 0xF8FF}, {0xF0000, 0xFFFFD}, {0x100000, 0x10FFFD}}

func (e *encoder) encode(units []string) ([]rune, bool) {
	if e.ids == nil {
		e.ids = make(map[string]rune)
	}
	rs := make([]rune, len(units))
	for i, u := range units {
		r, ok := e.ids[u]
		if !ok {
			r, ok = indexRune(len(e.units))
			if !ok {
				return nil, false
			}
			e.ids[u] = r
			e.units = append(e.units, u)
		}
		rs[i] = r
	}
	return rs, true
}

// indexRune is the rune for the i-th distinct unit.
func indexRune(i int) (rune, bool) {
	for _, rg := range puaRanges {
		n := int(rg[1] - rg[0] + 1)
		if i < n {
			return rg[0] + rune(i), true
		}
		i -= n
	}
	return 0, false
}

// runeIndex inverts indexRune.
func runeIndex(r rune) (int, bool) {
	base := 0
	for _, rg := range puaRanges {
		if r >= rg[0] && r <= rg[1] {
			return base + int(r-rg[0]), true
		}
		base += int(rg[1] - rg[0] + 1)
	}
	return 0, false
}

// decode maps go-diff runs back to units and checks the joins invariant against a and b.
func (e *encoder) decode(diffs []dmp.Diff, a, b string) ([]model.Op, bool) {
	var ops []model.Op
	var sb strings.Builder
	ai, bi := 0, 0
	for _, d := range diffs {
		sb.Reset()
		for _, r := range d.Text {
			i, ok := runeIndex(r)
			if !ok || i >= len(e.units) {
				return nil, false
			}
			sb.WriteString(e.units[i])
		}
		text := sb.String()
		var op string
		switch d.Type {
		case dmp.DiffEqual:
			op = model.OpEqual
			if !strings.HasPrefix(a[ai:], text) || !strings.HasPrefix(b[bi:], text) {
				return nil, false
			}
			ai += len(text)
			bi += len(text)
		case dmp.DiffDelete:
			op = model.OpDelete
			if !strings.HasPrefix(a[ai:], text) {
				return nil, false
			}
			ai += len(text)
		default:
			op = model.OpInsert
			if !strings.HasPrefix(b[bi:], text) {
				return nil, false
			}
			bi += len(text)
		}
		ops = appendOp(ops, op, text)
	}
	return ops, ai == len(a) && bi == len(b)
}

// splitLines cuts s after every '\n'; the lines join to s.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// tokenize cuts s into tokens that join to s exactly: runs of letters and digits (words),
// runs of whitespace, and single characters for everything else (punctuation, symbols,
// emoji, invalid bytes). Scripts written without spaces (Han, Hiragana, Katakana, Thai,
// Lao, Khmer, Myanmar) give one token per character, or a whole sentence would be one
// "word". A character is never split: combining marks, variation selectors, emoji
// modifiers and tags, zero-width-joined sequences and flag pairs stay with their base.
func tokenize(s string) []string {
	toks := make([]string, 0, len(s)/3+1)
	for i := 0; i < len(s); {
		start := i
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch {
		case r == utf8.RuneError && w == 1:
			// An invalid byte is a token of its own, so joins still give back the input.
		case unicode.IsSpace(r):
			for i < len(s) {
				r, w := utf8.DecodeRuneInString(s[i:])
				if !unicode.IsSpace(r) {
					break
				}
				i += w
			}
		case isWordRune(r):
			i = extend(s, i)
			for i < len(s) {
				r, w := utf8.DecodeRuneInString(s[i:])
				if !isWordRune(r) {
					break
				}
				i = extend(s, i+w)
			}
		case isRegionalIndicator(r):
			// Flags are pairs of regional indicators.
			if r2, w2 := utf8.DecodeRuneInString(s[i:]); isRegionalIndicator(r2) {
				i += w2
			}
			i = extend(s, i)
		default:
			i = extend(s, i)
		}
		toks = append(toks, s[start:i])
	}
	return toks
}

// isWordRune reports whether r continues a word. Letters of scripts written without
// spaces do not: each is a token of its own.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf { // the common case, kept off the Unicode tables
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	return !isUnspacedScript(r)
}

func isUnspacedScript(r rune) bool {
	if r < 0x0E00 { // Thai, the first of these scripts, starts at U+0E00
		return false
	}
	return r == 0x30FC || // KATAKANA-HIRAGANA PROLONGED SOUND MARK, of script Common
		unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
			unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

const zwj = 0x200D

// extend returns the end of the character that ends at i in s: it takes the combining
// runes that follow, and a zero-width joiner together with the rune it joins.
func extend(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == zwj:
			i += w
			if r2, w2 := utf8.DecodeRuneInString(s[i:]); i < len(s) &&
				!(r2 == utf8.RuneError && w2 == 1) && !unicode.IsSpace(r2) {
				i += w2
			}
		case isExtender(r):
			i += w
		default:
			return i
		}
	}
	return i
}

// isExtender reports whether r modifies the character before it rather than starting one.
func isExtender(r rune) bool {
	if r < 0x0300 { // the first combining mark
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) ||
		(r >= 0x1F3FB && r <= 0x1F3FF) || // emoji skin-tone modifiers (category Sk)
		(r >= 0xE0020 && r <= 0xE007F) // tags, as in subdivision flags
}
