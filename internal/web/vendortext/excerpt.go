package vendortext

import (
	"html"
	"html/template"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExcerptHTML is text on one line, cut to at most n runes with an ellipsis: at a word,
// unless that leaves less than half of n (a short word, then a long URL: "See…" says
// nothing), when it cuts inside the long word.
//
// ExcerptHTML returns it as HTML, its whole URLs made links; a URL the cut ends inside
// stays text.
func ExcerptHTML(text string, n int) template.HTML {
	s, inWord := cutExcerpt(text, n)
	if !inWord {
		return template.HTML(linkText(s))
	}
	i := strings.LastIndexByte(s, ' ') + 1
	return template.HTML(linkText(s[:i]) + html.EscapeString(s[i:]))
}

// Excerpt is text on one line, cut as ExcerptHTML cuts it, as plain text (a title
// attribute, a tooltip).
func Excerpt(text string, n int) string {
	s, _ := cutExcerpt(text, n)
	return s
}

// cutExcerpt is the excerpt as text, and whether it cut inside a word.
func cutExcerpt(text string, n int) (string, bool) {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text, false
	}
	cut, hard, count := 0, 0, 0
	for i, r := range text {
		if count == n {
			hard = i
			break
		}
		if unicode.IsSpace(r) {
			cut = i
		}
		count++
	}
	trim := func(s string) string {
		return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	}
	if s := trim(text[:cut]); utf8.RuneCountInString(s) >= (n+1)/2 {
		return s + "…", false
	}
	return trim(text[:hard]) + "…", true
}
