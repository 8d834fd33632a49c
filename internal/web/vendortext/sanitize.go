package vendortext

import (
	"math"
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
func SanitizeHTML(s string) string {
	flat, ok := flatten(sanitize.HTML(s), maxDepth)
	if ok {
		return flat
	}
	return reparse(flat)
}

// maxDepth is how deep vendor elements nest on a page.
const maxDepth = 64

// flatten returns s with the tags of elements nested deeper than limit dropped, their
// text kept (s itself when none is, the usual case, left byte for byte), and whether
// what it returns is balanced: every element kept is closed, in order. An end tag that
// does not close the innermost open element is kept, for reparse, and closes nothing, as
// a browser ignores it. One pass of the tokenizer does both, since every vendor HTML
// fragment of a page goes through it.
func flatten(s string, limit int) (string, bool) {
	type element struct {
		name string
		kept bool
	}
	var (
		b        strings.Builder
		open     []element
		read     int // bytes of s tokenized so far
		dropped  bool
		balanced = true
	)
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			for _, e := range open {
				balanced = balanced && !e.kept
			}
			if !dropped {
				return s, balanced
			}
			return b.String(), balanced
		}
		raw := z.Raw()
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
			} else {
				balanced = false
			}
		}
		if !keep && !dropped {
			dropped = true
			b.WriteString(s[:read]) // what came before the first tag dropped, as it was
		}
		if keep && dropped {
			b.Write(raw)
		}
		read += len(raw)
	}
}

// reparse returns s parsed as the content of a <div> and written out again, as a browser
// would read it: unclosed elements closed, stray end tags dropped.
func reparse(s string) string {
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
	_, ok := flatten(s, math.MaxInt)
	return ok
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
