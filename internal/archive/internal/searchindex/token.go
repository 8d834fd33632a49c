package searchindex

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Bounds of the tokeniser, so that no vendor text, however hostile, makes an index entry
// or a Record unbounded. A term longer than maxTermBytes is cut (at a rune boundary) to
// its first maxTermBytes: the query is cut the same way, and matching is by prefix, so it
// is still found. A field whose text has more than maxFieldTerms distinct terms keeps the
// maxFieldTerms that sort first; a field is read for at most maxFieldTokens tokens.
const (
	maxTermBytes   = 48
	maxFieldTerms  = 4096
	maxFieldTokens = 1 << 16
)

// Tokens appends to dst the terms of text, in order and with repeats: lower-cased and
// folded (accents and compatibility forms removed: "Café" and "CAFE" are both "cafe",
// "ＡＰＩ" is "api"), split wherever a letter or digit is followed by anything else. Runs
// of Han, Hiragana, Katakana and Hangul, which are written without spaces, give the
// bigrams of their characters ("서비스장애" gives 서비, 비스, 스장, 장애), and a run of one
// character gives that character, so a query of two or more such characters finds the
// text wherever it occurs. It never fails: invalid UTF-8 separates terms.
func Tokens(text string, dst []string) []string {
	return tokens(text, dst, -1, nil)
}

// tokens is Tokens that stops after max terms (never, when max is negative), its ASCII
// words lower-cased by low (a new string each when nil).
func tokens(text string, dst []string, max int, low *lowerer) []string {
	start := len(dst)
	i := 0
	for i < len(text) {
		if max >= 0 && len(dst)-start >= max {
			break
		}
		if c := text[i]; c < utf8.RuneSelf {
			// Most vendor text is ASCII: a word of it that ends in ASCII needs no rune
			// decoded and no table looked up.
			if !isASCIIWord(c) {
				i++
				continue
			}
			j := i + 1
			for j < len(text) && isASCIIWord(text[j]) {
				j++
			}
			if j == len(text) || text[j] < utf8.RuneSelf {
				dst = append(dst, low.lower(cut(text[i:j])))
				i = j
				continue
			}
			// A letter or mark that is not ASCII goes on the word: the general path.
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			i += max1(size)
		case isCJK(r):
			j := i + size
			for j < len(text) {
				r, size := utf8.DecodeRuneInString(text[j:])
				if !isCJK(r) && !isMark(r) {
					break
				}
				j += size
			}
			dst = bigrams(norm.NFKC.String(text[i:j]), dst)
			i = j
		case isWord(r):
			j := i + size
			ascii := r < utf8.RuneSelf
			for j < len(text) {
				r, size := utf8.DecodeRuneInString(text[j:])
				if r == utf8.RuneError && size <= 1 || isCJK(r) || !isWord(r) && !isMark(r) {
					break
				}
				ascii = ascii && r < utf8.RuneSelf
				j += size
			}
			if ascii {
				dst = append(dst, low.lower(cut(text[i:j])))
			} else {
				dst = fold(text[i:j], dst)
			}
			i = j
		default:
			i += size
		}
	}
	return dst
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// isCJK reports whether r belongs to a script written without spaces between words that
// the index cuts into bigrams. The prolonged sound mark and the voiced sound marks, full
// and half width, are Common but only ever written inside kana (NFKC then composes
// half-width kana with them).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 0x30FC || 0x3099 <= r && r <= 0x309C || r == 0xFF70 || r == 0xFF9E || r == 0xFF9F
}

func isASCIIWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.No, r)
}

// isMark reports a combining mark, which belongs to the letter before it.
func isMark(r rune) bool { return r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) }

// lowerASCII lower-cases an ASCII word, without allocating when it is lower case already.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// lowerer lower-cases ASCII words for a batch: a capitalised word ("We", "The") the
// batch holds a term of already is given that term, not a new string.
type lowerer struct {
	buf   []byte
	known map[string]int32 // the batch's terms, by string
	terms *[]string        // and by number
}

// lower is lowerASCII, through l's terms when l is not nil.
func (l *lowerer) lower(s string) string {
	if l == nil {
		return lowerASCII(s)
	}
	upper := false
	for i := 0; i < len(s) && !upper; i++ {
		upper = 'A' <= s[i] && s[i] <= 'Z'
	}
	if !upper {
		return s
	}
	l.buf = append(l.buf[:0], s...)
	for i, c := range l.buf {
		if 'A' <= c && c <= 'Z' {
			l.buf[i] = c + 'a' - 'A'
		}
	}
	if id, ok := l.known[string(l.buf)]; ok { // a look-up by bytes makes no string
		return (*l.terms)[id]
	}
	return string(l.buf)
}

// fold turns a word with non-ASCII letters into terms: compatibility-decomposed, its
// combining marks dropped, lower-cased. What decomposition gives that is not a letter
// or digit ("½" gives "1⁄2") splits it.
func fold(word string, dst []string) []string {
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			dst = append(dst, cut(b.String()))
			b.Reset()
		}
	}
	for _, r := range norm.NFKD.String(word) {
		switch {
		case isMark(r):
		case isWord(r) && !isCJK(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return dst
}

// bigrams appends the bigrams of a CJK run, or the run itself when it is one character.
// What NFKC made of the run that is no longer CJK (a lone voiced sound mark becomes a
// space and a mark) separates it.
func bigrams(run string, dst []string) []string {
	prev, n := -1, 0 // start of the previous character; characters in this part
	end := func() {
		if n == 1 {
			dst = append(dst, cut(run[prev:]))
		}
		prev, n = -1, 0
	}
	for i, r := range run {
		switch {
		case isMark(r):
			continue // NFKC composed what it could; a stray mark stays with its letter
		case !isCJK(r):
			if n == 1 {
				dst = append(dst, cut(run[prev:i]))
			}
			prev, n = -1, 0
			continue
		}
		if prev >= 0 {
			dst = append(dst, cut(run[prev:i+utf8.RuneLen(r)]))
		}
		prev = i
		n++
	}
	end()
	return dst
}

// cut shortens a term to maxTermBytes at a rune boundary.
func cut(t string) string {
	if len(t) <= maxTermBytes {
		return t
	}
	i := maxTermBytes
	for i > 0 && !utf8.RuneStart(t[i]) {
		i--
	}
	return t[:i]
}

// fieldTerms is the sorted set of terms of a field's texts, within the bounds above.
func fieldTerms(texts ...string) []string {
	var terms []string
	for _, t := range texts {
		terms = fieldTokens(terms, t, nil)
	}
	return termSet(terms)
}

// fieldTokens appends the tokens of one of a field's texts to those of the texts before
// it, up to maxFieldTokens in all.
func fieldTokens(terms []string, text string, low *lowerer) []string {
	if len(terms) >= maxFieldTokens {
		return terms
	}
	return tokens(text, terms, maxFieldTokens-len(terms), low)
}

// termSet sorts a field's tokens into the set of its terms, at most maxFieldTerms.
func termSet(terms []string) []string {
	slices.Sort(terms)
	terms = slices.Compact(terms)
	if len(terms) > maxFieldTerms {
		terms = terms[:maxFieldTerms]
	}
	return slices.Clip(terms)
}
