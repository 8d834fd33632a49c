// Package htmltext turns vendor HTML into plain text: what the adapters that read vendor
// HTML (Statuspage's incident pages, history feeds, RSS descriptions) turn it into, and
// the element finders they search it with.
package htmltext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Of renders n as plain text, leaving out the subtree skip (may be nil). Block
// elements become paragraph breaks, <br> a line break, list items lines starting "- ";
// whitespace is collapsed except in <pre>; script, style and the like are dropped.
func Of(n, skip *html.Node) string {
	w := &textWriter{}
	w.walk(n, skip)
	return w.b.String()
}

// FromString turns vendor HTML into clean text for diffs and Slack: blocks become
// paragraphs, script and style are dropped, entities decoded.
func FromString(s string) string {
	nodes, err := html.ParseFragment(strings.NewReader(s), nil)
	if err != nil {
		return strings.TrimSpace(s)
	}
	root := &html.Node{Type: html.DocumentNode}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return Of(root, nil)
}

// textWriter accumulates text with at most one pending break between runs, so nested
// blocks make one paragraph break, not several.
type textWriter struct {
	b     strings.Builder
	brk   int  // pending newlines before the next text: 0, 1 or 2
	space bool // pending space before the next text
	pre   int  // depth inside <pre>
}

func (w *textWriter) walk(n, skip *html.Node) {
	if n == skip {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
	default:
		return // comments, doctype
	}
	if Skips(n.DataAtom) {
		return
	}
	switch n.DataAtom {
	case atom.Br:
		w.breakLine(1)
		return
	case atom.Pre:
		w.pre++
		defer func() { w.pre-- }()
	}
	// A list item is a line of its list; every other block is a paragraph.
	brk := 0
	switch {
	case n.DataAtom == atom.Li:
		brk = 1
		w.breakLine(1)
		w.text("- ")
	case IsBlock(n.DataAtom):
		brk = 2
		w.breakLine(2)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, skip)
	}
	if brk > 0 {
		w.breakLine(brk)
	}
}

// Skips reports whether Of leaves out an element a with all it holds:
// script, style and the like.
func Skips(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Svg, atom.Iframe, atom.Object:
		return true
	}
	return false
}

// FindElement returns the first element of n's tree (n included), in document order, for
// which match is true; nil when there is none.
func FindElement(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := FindElement(c, match); f != nil {
			return f
		}
	}
	return nil
}

// Attr returns the value of n's attribute key (outside any namespace), "" when it has
// none.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasClass reports whether n's class attribute holds the token cls.
func HasClass(n *html.Node, cls string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == "class" && slices.Contains(strings.Fields(a.Val), cls) {
			return true
		}
	}
	return false
}

func (w *textWriter) breakLine(n int) {
	w.brk = max(w.brk, n)
	w.space = false
}

func (w *textWriter) text(s string) {
	if w.pre > 0 {
		if s == "" {
			return
		}
		w.flush(false)
		w.b.WriteString(s)
		return
	}
	lead, trail := startsSpace(s), endsSpace(s)
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" && w.b.Len() > 0 && w.brk == 0 {
			w.space = true
		}
		return
	}
	w.flush(lead)
	for i, word := range words {
		if i > 0 {
			w.b.WriteByte(' ')
		}
		w.b.WriteString(word)
	}
	w.space = trail
}

// flush writes what is pending before new text: breaks, else a space.
func (w *textWriter) flush(lead bool) {
	if w.b.Len() > 0 {
		if w.brk > 0 {
			w.b.WriteString("\n\n"[:w.brk])
		} else if w.space || lead {
			w.b.WriteByte(' ')
		}
	}
	w.brk, w.space = 0, false
}

func startsSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && unicode.IsSpace(r)
}

func endsSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && unicode.IsSpace(r)
}

// IsBlock reports whether a is a block element: Of parts it from its neighbours by a
// paragraph break (a list item by a line break).
func IsBlock(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Dd, atom.Details,
		atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer,
		atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hr,
		atom.Html, atom.Li, atom.Main, atom.Nav, atom.Ol, atom.P, atom.Pre, atom.Section,
		atom.Summary, atom.Table, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr,
		atom.Ul:
		return true
	}
	return false
}
