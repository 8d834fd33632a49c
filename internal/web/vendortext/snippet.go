package vendortext

import (
	"html"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// snippetRadius is how many bytes of context a snippet keeps either side of a match.
const snippetRadius = 90

// Snippet is the part of an incident's updates or postmortem where the first word that
// occurs there was found, on one line, escaped, every word of the search in <mark>.
// Empty when the words are only in the title.
func Snippet(inc *model.Incident, words []string) template.HTML {
	texts := make([]string, 0, len(inc.Updates)+1)
	for i := len(inc.Updates) - 1; i >= 0; i-- {
		texts = append(texts, inc.Updates[i].Body)
	}
	if inc.Postmortem != nil {
		texts = append(texts, inc.Postmortem.Body)
	}
	for _, t := range texts {
		t = strings.Join(strings.Fields(strings.ToValidUTF8(t, "\uFFFD")), " ")
		lower := strings.ToLower(t)
		if len(lower) != len(t) {
			// Lower-casing changed the length (some non-ASCII letters), so offsets in one
			// are not offsets in the other: match on the text itself, case and all.
			lower = t
		}
		for _, w := range words {
			i := strings.Index(lower, w)
			if i < 0 {
				continue
			}
			// Cut at spaces, so that no word shows by halves.
			start, end := max(0, i-snippetRadius), min(len(t), i+len(w)+snippetRadius)
			if start > 0 {
				if sp := strings.IndexByte(t[start:i], ' '); sp >= 0 {
					start += sp + 1
				}
			}
			if end < len(t) {
				if sp := strings.LastIndexByte(t[i+len(w):end], ' '); sp >= 0 {
					end = i + len(w) + sp
				}
			}
			for start > 0 && !utf8.RuneStart(t[start]) {
				start--
			}
			for end < len(t) && !utf8.RuneStart(t[end]) {
				end++
			}
			return markWords(t[start:end], lower[start:end], words, start > 0, end < len(t))
		}
	}
	return ""
}

// markWords escapes text and puts every occurrence of words (found in lower, its
// lower-case form of the same length) in <mark>.
func markWords(text, lower string, words []string, cutStart, cutEnd bool) template.HTML {
	marked := make([]bool, len(text))
	for _, w := range words {
		for from := 0; ; {
			i := strings.Index(lower[from:], w)
			if i < 0 {
				break
			}
			for j := from + i; j < from+i+len(w); j++ {
				marked[j] = true
			}
			from += i + len(w)
		}
	}
	var b strings.Builder
	if cutStart {
		b.WriteString("…")
	}
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && marked[j] == marked[i] {
			j++
		}
		if marked[i] {
			b.WriteString("<mark>" + html.EscapeString(text[i:j]) + "</mark>")
		} else {
			b.WriteString(html.EscapeString(text[i:j]))
		}
		i = j
	}
	if cutEnd {
		b.WriteString("…")
	}
	return template.HTML(b.String())
}
