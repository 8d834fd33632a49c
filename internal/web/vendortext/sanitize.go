package vendortext

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/statuswatch/statuswatch/internal/sanitize"
)

// SanitizeHTML reduces vendor HTML to the shared vendor policy at render time, rather than
// trusting HTML the archive kept under an older policy, and balances its tags: the policy
// keeps allowed tags as they come, so a vendor's unclosed "<div>" or stray "</div>" would
// otherwise reach into the page's own structure. Elements nested deeper than maxDepth lose
// their tags, not their text: a browser stops nesting at 512 open elements and parses what
// follows differently, and no postmortem needs lists or quotes 60 deep.
func SanitizeHTML(s string) string { return balanceHTML(flatten(sanitize.HTML(s), maxDepth)) }

// maxDepth is how deep vendor elements nest on a page.
const maxDepth = 64

// flatten returns s with the tags of elements nested deeper than limit dropped, their
// text kept; s itself when no element is (the usual case, left byte for byte). An end tag
// that does not close the innermost open element is left for balanceHTML, and counts as
// closing nothing, as a browser ignores it.
func flatten(s string, limit int) string {
	type element struct {
		name string
		kept bool
	}
	var (
		b       strings.Builder
		open    []element
		dropped bool
	)
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if !dropped {
				return s
			}
			return b.String()
		}
		keep := true
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			if !voidElement(atom.Lookup(name)) {
				keep = len(open) < limit
				open = append(open, element{string(name), keep})
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if n := len(open); n > 0 && open[n-1].name == string(name) {
				keep = open[n-1].kept
				open = open[:n-1]
			}
		}
		dropped = dropped || !keep
		if keep {
			b.Write(z.Raw())
		}
	}
}

// balanceHTML returns s when its tags are balanced (the usual case, left byte for byte),
// else s parsed as the content of a <div> and written out again, as a browser would read
// it: unclosed elements closed, stray end tags dropped.
func balanceHTML(s string) string {
	if balanced(s) {
		return s
	}
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil {
		return html.EscapeString(s)
	}
	var b strings.Builder
	for _, n := range nodes {
		if err := html.Render(&b, n); err != nil {
			return html.EscapeString(s)
		}
	}
	return b.String()
}

// balanced reports whether every element of s is closed, in order.
func balanced(s string) bool {
	var open []string
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return len(open) == 0
		case html.StartTagToken:
			name, _ := z.TagName()
			if !voidElement(atom.Lookup(name)) {
				open = append(open, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(open) == 0 || open[len(open)-1] != string(name) {
				return false
			}
			open = open[:len(open)-1]
		}
	}
}

// voidElement reports whether a is an element with no end tag.
func voidElement(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}
