package correlate

import (
	"bufio"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:embed vocabulary.txt
var vocabularyFile string

// Vocabulary is the set of terms whose names, found in two incidents, are shared evidence:
// providers, regions and technologies. It is built once from its file and safe for
// concurrent use.
type Vocabulary struct {
	terms []string          // canonical names, in file order
	index map[string]int    // canonical name → position in terms
	forms map[string][]form // lower-cased first token → the names starting with it, longest first
	// implies is, for each term, the terms it implies, closed (us-east-1 → AWS), itself
	// excluded, sorted by position.
	implies [][]int
}

// form is one name of a term, as tokens.
type form struct {
	term   int
	tokens []token // lower-cased words, with the kind of gap before each
	exact  bool    // matches only with the case it is written in
}

var (
	defaultOnce sync.Once
	defaultVoc  *Vocabulary
)

// Default returns the built-in vocabulary (vocabulary.txt, embedded). The file is checked
// by the package's tests; a broken file panics here, at the first use.
func Default() *Vocabulary {
	defaultOnce.Do(func() {
		v, err := ParseVocabulary(vocabularyFile)
		if err != nil {
			panic("correlate: vocabulary.txt: " + err.Error())
		}
		defaultVoc = v
	})
	return defaultVoc
}

// Terms returns the vocabulary's terms as they are shown, in file order.
func (v *Vocabulary) Terms() []string { return slices.Clone(v.terms) }

// impliedBy reports whether another of terms implies t; false on a nil Vocabulary.
func (v *Vocabulary) impliedBy(t string, terms []string) bool {
	if v == nil {
		return false
	}
	ti, ok := v.index[t]
	if !ok {
		return false
	}
	for _, s := range terms {
		if si, ok := v.index[s]; ok && si != ti && slices.Contains(v.implies[si], ti) {
			return true
		}
	}
	return false
}

// ParseVocabulary reads a vocabulary in the format vocabulary.txt documents: one term a
// line, its other names after "|", the terms it implies after ">". A name given twice (in
// any case), an implied term that is not a term, or an empty name is an error naming its
// line.
func ParseVocabulary(text string) (*Vocabulary, error) {
	v := &Vocabulary{index: map[string]int{}, forms: map[string][]form{}}
	type pending struct {
		term    int
		implied []string
		line    int
	}
	var later []pending
	seen := map[string]int{} // lower-cased name → line
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		names, implied, _ := strings.Cut(line, ">")
		var forms []string
		for f := range strings.SplitSeq(names, "|") {
			forms = append(forms, strings.TrimSpace(f))
		}
		canonical := display(forms[0])
		if canonical == "" {
			return nil, fmt.Errorf("line %d: empty term", n)
		}
		if _, dup := v.index[canonical]; dup {
			return nil, fmt.Errorf("line %d: term %q given twice", n, canonical)
		}
		term := len(v.terms)
		v.terms = append(v.terms, canonical)
		v.index[canonical] = term
		for _, f := range forms {
			exact := strings.HasPrefix(f, "=")
			f = strings.TrimPrefix(f, "=")
			spellings := []string{f}
			if base, ok := strings.CutSuffix(f, "(s)"); ok {
				spellings = []string{base, base + "s"}
			}
			for _, s := range spellings {
				toks := tokenize(s)
				if len(toks) == 0 {
					return nil, fmt.Errorf("line %d: empty name in %q", n, line)
				}
				key := strings.ToLower(s)
				if first, dup := seen[key]; dup {
					return nil, fmt.Errorf("line %d: name %q already given on line %d", n, s, first)
				}
				seen[key] = n
				v.forms[toks[0].lower] = append(v.forms[toks[0].lower], form{term: term, tokens: toks, exact: exact})
			}
		}
		if implied = strings.TrimSpace(implied); implied != "" {
			var names []string
			for t := range strings.SplitSeq(implied, ",") {
				names = append(names, strings.TrimSpace(t))
			}
			later = append(later, pending{term, names, n})
		}
	}
	v.implies = make([][]int, len(v.terms))
	direct := make([][]int, len(v.terms))
	for _, p := range later {
		for _, name := range p.implied {
			t, ok := v.index[name]
			if !ok {
				return nil, fmt.Errorf("line %d: implied term %q is not a term", p.line, name)
			}
			direct[p.term] = append(direct[p.term], t)
		}
	}
	for t := range v.terms {
		seen := map[int]bool{t: true}
		stack := slices.Clone(direct[t])
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[u] {
				continue
			}
			seen[u] = true
			v.implies[t] = append(v.implies[t], u)
			stack = append(stack, direct[u]...)
		}
		slices.Sort(v.implies[t])
	}
	for k := range v.forms {
		slices.SortStableFunc(v.forms[k], func(a, b form) int { return len(b.tokens) - len(a.tokens) })
	}
	return v, nil
}

// display is a name as a term shows it: without its case mark or plural mark.
func display(f string) string {
	return strings.TrimSuffix(strings.TrimPrefix(f, "="), "(s)")
}

// Find returns the terms named in texts, each once, with the terms they imply, in
// vocabulary order. Each text is read up to MaxTextBytes, and all of them up to
// MaxTotalBytes (an incident of thousands of updates is read in part).
func (v *Vocabulary) Find(texts ...string) []string {
	found := map[int]bool{}
	budget := MaxTotalBytes
	for _, s := range texts {
		if budget <= 0 {
			break
		}
		if len(s) > budget {
			s = s[:budget]
		}
		budget -= min(len(s), MaxTextBytes)
		v.scan(s, found)
	}
	ids := make([]int, 0, len(found))
	for t := range found {
		ids = append(ids, t)
	}
	slices.Sort(ids)
	out := make([]string, len(ids))
	for i, t := range ids {
		out[i] = v.terms[t]
	}
	return out
}

// MaxTextBytes bounds how much of one text Find reads: a long postmortem is read whole,
// a hostile page's megabytes are not.
const MaxTextBytes = 64 << 10

// MaxTotalBytes bounds how much of all its texts one Find reads.
const MaxTotalBytes = 1 << 20

// scan adds to found the terms named in s and those they imply.
func (v *Vocabulary) scan(s string, found map[int]bool) {
	if len(s) > MaxTextBytes {
		s = s[:MaxTextBytes]
	}
	toks := tokenize(s)
	for i := 0; i < len(toks); {
		f := v.match(toks, i)
		if f == nil {
			i++
			continue
		}
		found[f.term] = true
		for _, t := range v.implies[f.term] {
			found[t] = true
		}
		i += len(f.tokens)
	}
}

// match returns the longest name that starts at toks[i], or nil.
func (v *Vocabulary) match(toks []token, i int) *form {
	cands := v.forms[toks[i].lower]
next:
	for c := range cands {
		f := &cands[c]
		if i+len(f.tokens) > len(toks) {
			continue
		}
		for j, ft := range f.tokens {
			tt := toks[i+j]
			if tt.lower != ft.lower || (f.exact && tt.text != ft.text) {
				continue next
			}
			if j > 0 && !gapFits(ft.gap, tt.gap) {
				continue next
			}
		}
		return f
	}
	return nil
}

// gap is what separates a word from the one before it.
type gap uint8

const (
	gapNone  gap = iota // nothing: "1a" is the words "1" and "a" (us-east-1a is in us-east-1)
	gapTight            // whitespace, or one of - / . _ ' ’ &
	gapWide             // anything else: a comma, a full stop and a space, a bracket
)

// gapFits reports whether a text's gap joins two words of a name with gap want.
func gapFits(want, got gap) bool {
	if want == gapNone {
		return got == gapNone
	}
	return got == gapTight
}

// token is one word of a text: a run of letters and digits, cut where a digit is followed
// by a letter.
type token struct {
	text  string // as written
	lower string
	gap   gap // before it
}

// tokenize cuts s into words. Whole-word matching follows from it: "DNS" is not a word
// of "DNSSEC", and "us-east-1" is not in "us-east-12".
func tokenize(s string) []token {
	var out []token
	start := -1   // of the current word
	gapStart := 0 // of the gap before the next word
	prevDigit := false
	emit := func(end int) {
		w := s[start:end]
		out = append(out, token{text: w, lower: strings.ToLower(w), gap: classify(s[gapStart:start], len(out) > 0)})
		start, gapStart = -1, end
	}
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		switch {
		case !word:
			if start >= 0 {
				emit(i)
			}
		case start < 0:
			start = i
		case prevDigit && unicode.IsLetter(r):
			emit(i)
			start = i
		}
		prevDigit = unicode.IsDigit(r)
	}
	if start >= 0 {
		emit(len(s))
	}
	return out
}

// classify names the gap g between two words; the first word has none to speak of.
func classify(g string, after bool) gap {
	if !after || g == "" {
		return gapNone
	}
	if r, size := utf8.DecodeRuneInString(g); size == len(g) && strings.ContainsRune("-/._'’&", r) {
		return gapTight
	}
	if len(g) > 16 {
		return gapWide
	}
	for _, r := range g {
		if !unicode.IsSpace(r) {
			return gapWide
		}
	}
	return gapTight
}
