package historyfeed

// The content of a history-feed entry: its dated paragraphs, the components it names, its
// labels. feed.go reads the entries; feeddates.go reads the dates.

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/htmltext"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/sanitize"
)

// ---- Content: dated paragraphs ----

// feedContent is what an entry's HTML says.
type feedContent struct {
	dated      []feedPara // the dated paragraphs, in document order
	undated    feedPara   // everything, as one paragraph, when nothing is dated
	components []string
	// maintenance is set by a "THIS IS A SCHEDULED EVENT …" banner, which also gives the
	// window.
	maintenance                  bool
	scheduledFor, scheduledUntil time.Time
}

// feedPara is one update of an entry: a dated paragraph and the undated ones after it.
type feedPara struct {
	stamp string    // the provider's timestamp as written, e.g. "Nov 30, 10:00 UTC"
	at    time.Time // that timestamp, UTC; zero when unreadable
	label string    // "Resolved", as written; "" when none
	html  string    // sanitised HTML of the body
	text  string    // clean text of the body
}

// feedBodyContext is the context vendor fragments are parsed in.
var feedBodyContext = &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}

// parseFeedContent splits an entry's HTML into dated paragraphs. ref is the time the
// year-less dates are read against (Statuspage writes "Nov 30, 10:00 UTC").
func parseFeedContent(content string, ref time.Time) feedContent {
	var fc feedContent
	nodes, err := html.ParseFragment(strings.NewReader(content), feedBodyContext)
	if err != nil {
		t := fetch.CleanBody(content)
		fc.undated = feedPara{text: t, html: sanitize.HTML(html.EscapeString(t))}
		return fc
	}
	root := &html.Node{Type: html.DocumentNode}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	fc.components = takeComponentLists(root)

	var undated []*html.Node
	for _, seg := range feedSegments(root) {
		text := htmltext.Of(seg, nil)
		if text == "" {
			continue
		}
		if names, ok := affectedLine(text); ok {
			fc.components = append(fc.components, names...)
			continue
		}
		if rest, ok := cutBanner(text); ok {
			fc.maintenance = true
			if st, ok := parseFeedStamp(rest, ref); ok {
				fc.scheduledFor, fc.scheduledUntil = st.at, st.until
			}
			continue
		}
		if st, ok := parseFeedStamp(text, ref); ok {
			label, n := leadLabel(text[st.n:], seg)
			feedTrimLeading(seg, feedNonSpace(text[:st.n+n]))
			p := feedPara{stamp: feedCollapseSpace(text[:st.n]), at: st.at, label: label}
			p.html, p.text = renderSegment(seg)
			fc.dated = append(fc.dated, p)
			continue
		}
		if at, stamp, ok := embeddedStamp(seg, ref); ok {
			text = htmltext.Of(seg, nil)
			label, n := leadLabel(text, seg)
			feedTrimLeading(seg, feedNonSpace(text[:n]))
			p := feedPara{stamp: stamp, at: at, label: label}
			p.html, p.text = renderSegment(seg)
			fc.dated = append(fc.dated, p)
			continue
		}
		if k := len(fc.dated); k > 0 {
			// An undated paragraph after a dated one continues it.
			h, t := renderSegment(seg)
			fc.dated[k-1].html = feedJoin(fc.dated[k-1].html, h, "")
			fc.dated[k-1].text = feedJoin(fc.dated[k-1].text, t, "\n\n")
			continue
		}
		undated = append(undated, seg)
	}
	if len(fc.dated) == 0 && len(undated) > 0 {
		text := htmltext.Of(undated[0], nil)
		label, n := leadLabel(text, undated[0])
		feedTrimLeading(undated[0], feedNonSpace(text[:n]))
		p := feedPara{label: label}
		for _, seg := range undated {
			h, t := renderSegment(seg)
			p.html = feedJoin(p.html, h, "")
			p.text = feedJoin(p.text, t, "\n\n")
		}
		fc.undated = p
	}
	return fc
}

func feedJoin(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// renderSegment returns a segment's sanitised HTML and its clean text (the walker behind
// htmltext.FromString, on the tree already parsed).
func renderSegment(seg *html.Node) (string, string) {
	feedTrimBlank(seg, true)
	feedTrimBlank(seg, false)
	var b strings.Builder
	for c := seg.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			break
		}
	}
	return sanitize.HTML(b.String()), fetch.CleanBody(htmltext.Of(seg, nil))
}

// embeddedStamp finds the date of a paragraph that does not start with one: a <time
// datetime="…"> anywhere in it, or a date in a <small> at its end (the layout of
// Statuspage's own incident pages: "<strong>Update</strong> - text<br><small>Jan 12,
// 16:04 UTC</small>"). The element is removed from the tree; the stamp is its datetime or
// its text.
func embeddedStamp(seg *html.Node, ref time.Time) (time.Time, string, bool) {
	if el := htmltext.FindElement(seg, func(n *html.Node) bool { return n.DataAtom == atom.Time && htmltext.Attr(n, "datetime") != "" }); el != nil {
		v := strings.TrimSpace(htmltext.Attr(el, "datetime"))
		if t := payload.ParseTime(v); !t.IsZero() {
			el.Parent.RemoveChild(el)
			return t, v, true
		}
	}
	var last *html.Node
	htmltext.FindElement(seg, func(n *html.Node) bool {
		if n.DataAtom == atom.Small {
			last = n
		}
		return false
	})
	if last == nil || !feedEndsSegment(seg, last) {
		return time.Time{}, "", false
	}
	text := htmltext.Of(last, nil)
	st, ok := parseFeedStamp(text, ref)
	if !ok || strings.TrimSpace(text[st.n:]) != "" {
		return time.Time{}, "", false
	}
	if p := last.PrevSibling; p != nil && p.Type == html.ElementNode && p.DataAtom == atom.Br {
		p.Parent.RemoveChild(p)
	}
	last.Parent.RemoveChild(last)
	return st.at, feedCollapseSpace(text), true
}

// feedEndsSegment reports whether nothing but blank text follows el within seg.
func feedEndsSegment(seg, el *html.Node) bool {
	for n := el; n != nil && n != seg; n = n.Parent {
		for c := n.NextSibling; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode || (c.Type == html.TextNode && strings.TrimSpace(c.Data) != "") {
				return false
			}
		}
	}
	return true
}

// feedSegments cuts the content into paragraphs: every block element at the top (below a
// lone wrapping div) is one, and so is every run of inline content between them. A block
// that holds several dated blocks (a list whose items are updates, a div of dated
// paragraphs) is cut into them, level by level; so is a run whose lines start with dates
// (<br>-separated updates). List items count as blocks with or without their list around
// them: vendor feeds carry bare <li>s. Each segment is a document node holding the moved
// nodes.
func feedSegments(root *html.Node) []*html.Node {
	parent := root
	for {
		only := feedSoleElement(parent)
		if only == nil {
			break
		}
		switch only.DataAtom {
		case atom.Div, atom.Section, atom.Article, atom.Main, atom.Body, atom.Html:
			parent = only
			continue
		}
		break
	}
	return feedCut(parent, 0)
}

// feedMaxNesting bounds how deep feedCut looks for dated blocks: vendor HTML is untrusted,
// and real updates sit one or two levels down.
const feedMaxNesting = 8

// feedCut moves parent's children into segments (see feedSegments); depth counts the
// blocks it has opened on the way down.
func feedCut(parent *html.Node, depth int) []*html.Node {
	var segs []*html.Node
	var run *html.Node
	for c := parent.FirstChild; c != nil; {
		next := c.NextSibling
		parent.RemoveChild(c)
		if c.Type == html.ElementNode && htmltext.IsBlock(c.DataAtom) {
			run = nil
			seg := &html.Node{Type: html.DocumentNode}
			if feedDatedItem(c) {
				// An update written as a list item is an update, not a bullet of one.
				for g := c.FirstChild; g != nil; {
					gn := g.NextSibling
					c.RemoveChild(g)
					seg.AppendChild(g)
					g = gn
				}
			} else {
				seg.AppendChild(c)
			}
			segs = append(segs, seg)
		} else {
			if run == nil {
				run = &html.Node{Type: html.DocumentNode}
				segs = append(segs, run)
			}
			run.AppendChild(c)
		}
		c = next
	}
	var out []*html.Node
	for _, s := range segs {
		if el := s.FirstChild; el.Type == html.ElementNode && el.NextSibling == nil && depth < feedMaxNesting && feedDatedBlocks(el) >= 2 {
			out = append(out, feedCut(el, depth+1)...)
			continue
		}
		out = append(out, splitDatedLines(s)...)
	}
	return out
}

// feedDatedBlocks counts the children of el that are blocks starting with a date.
func feedDatedBlocks(el *html.Node) int {
	n := 0
	for c := el.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && htmltext.IsBlock(c.DataAtom) && feedStartsDated(c) {
			n++
		}
	}
	return n
}

// feedStartsDated reports whether a block's text starts with a date; a list item's text
// is read without its "- ".
func feedStartsDated(el *html.Node) bool {
	text := strings.TrimSpace(htmltext.Of(el, nil))
	if el.DataAtom == atom.Li {
		text = strings.TrimPrefix(text, "- ")
	}
	_, ok := parseFeedStamp(text, time.Time{})
	return ok
}

// feedDatedItem reports whether el is a list item that starts with a date.
func feedDatedItem(el *html.Node) bool {
	return el.DataAtom == atom.Li && feedStartsDated(el)
}

// feedSoleElement returns n's only element child when every other child is blank text.
func feedSoleElement(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.ElementNode:
			if only != nil {
				return nil
			}
			only = c
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.CommentNode:
		default:
			return nil
		}
	}
	return only
}

// splitDatedLines cuts an inline run at the <br>s that start a dated line, when at least
// two of its lines are dated: "10 Sep 10:00 UTC — Investigating…<br>10 Sep 11:00 UTC —
// Resolved…" is two updates. Any other segment is returned as is.
func splitDatedLines(seg *html.Node) []*html.Node {
	var cuts []*html.Node
	dated := 0
	if lineStartsDated(seg.FirstChild) {
		dated++
	}
	for c := seg.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Br && lineStartsDated(c.NextSibling) {
			cuts = append(cuts, c)
			dated++
		}
	}
	if dated < 2 {
		return []*html.Node{seg}
	}
	var out []*html.Node
	part := &html.Node{Type: html.DocumentNode}
	for c := seg.FirstChild; c != nil; {
		next := c.NextSibling
		seg.RemoveChild(c)
		if slices.Contains(cuts, c) {
			out = append(out, part)
			part = &html.Node{Type: html.DocumentNode}
		} else {
			part.AppendChild(c)
		}
		c = next
	}
	return append(out, part)
}

// lineStartsDated reports whether the inline content from n up to the next <br> starts
// with a date.
func lineStartsDated(n *html.Node) bool {
	var b strings.Builder
	for c := n; c != nil && b.Len() < 64; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Br {
			break
		}
		b.WriteString(htmltext.Of(c, nil))
		b.WriteByte(' ')
	}
	_, ok := parseFeedStamp(strings.TrimSpace(b.String()), time.Time{})
	return ok
}

// ---- Content: components ----

var componentHeadings = map[string]bool{
	"affected components": true, "components affected": true, "affected component": true,
	"affected services": true, "services affected": true,
}

// takeComponentLists removes every "Affected components" heading followed by a list (the
// incident.io feed's shape) and returns the names of the list items.
func takeComponentLists(root *html.Node) []string {
	var names []string
	type hit struct{ heading, list *html.Node }
	var hits []hit
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.B, atom.Strong, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Div, atom.Span:
				t := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(htmltext.Of(c, nil)), ":"))
				if componentHeadings[t] {
					h := c
					l := feedNextElement(h)
					if l == nil && feedSoleElement(h.Parent) == h && h.Parent != root {
						h = h.Parent
						l = feedNextElement(h)
					}
					if l != nil && (l.DataAtom == atom.Ul || l.DataAtom == atom.Ol) {
						hits = append(hits, hit{h, l})
						continue
					}
				}
			}
			walk(c)
		}
	}
	walk(root)
	for _, h := range hits {
		for li := h.list.FirstChild; li != nil; li = li.NextSibling {
			if li.Type == html.ElementNode && li.DataAtom == atom.Li {
				// htmlText writes a list item as "- name".
				if n := stripComponentStatus(strings.TrimPrefix(htmltext.Of(li, nil), "- ")); n != "" {
					names = append(names, n)
				}
			}
		}
		for c := h.heading.NextSibling; c != nil && c != h.list; {
			next := c.NextSibling
			c.Parent.RemoveChild(c) // the <br>s and blanks between heading and list
			c = next
		}
		if h.heading.Parent != nil {
			h.heading.Parent.RemoveChild(h.heading)
		}
		if h.list.Parent != nil {
			h.list.Parent.RemoveChild(h.list)
		}
	}
	return names
}

// feedNextElement returns the element after n, skipping blank text and <br>s; nil when the
// next thing is anything else.
func feedNextElement(n *html.Node) *html.Node {
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
		case c.Type == html.ElementNode:
			return c
		default:
			return nil
		}
	}
	return nil
}

// componentStatus matches the status incident.io writes after a component name,
// "Conversations (Operational)"; any other parenthesis is part of the name.
var componentStatus = regexp.MustCompile(`(?i)\s*\((?:operational|degraded performance|partial outage|full outage|major outage|under maintenance|degraded|outage|maintenance)\)$`)

func stripComponentStatus(s string) string {
	return strings.TrimSpace(componentStatus.ReplaceAllString(strings.TrimSpace(s), ""))
}

// affectedPrefixes start Statuspage's closing paragraph, "This incident affected: API
// Requests, Issues, and Webhooks."
var affectedPrefixes = []string{
	"this incident affected:", "this scheduled maintenance affected:", "this maintenance affected:",
	"affected components:", "components affected:", "affected services:",
}

// affectedLine reads a "This incident affected: A, B, and C." paragraph.
func affectedLine(text string) ([]string, bool) {
	for _, p := range affectedPrefixes {
		if len(text) < len(p) || !strings.EqualFold(text[:len(p)], p) {
			continue
		}
		rest := strings.TrimSuffix(strings.TrimSpace(text[len(p):]), ".")
		var names []string
		parts := strings.Split(rest, ", ")
		if len(parts) == 1 {
			parts = strings.Split(rest, " and ")
		}
		for _, part := range parts {
			part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "and "))
			if part != "" {
				names = append(names, stripComponentStatus(part))
			}
		}
		return names, true
	}
	return nil, false
}

// cutBanner reads Statuspage's maintenance banner, "THIS IS A SCHEDULED EVENT Nov 30,
// 10:00 - 12:00 UTC", returning the window's text.
func cutBanner(text string) (string, bool) {
	const banner = "this is a scheduled event"
	if len(text) < len(banner) || !strings.EqualFold(text[:len(banner)], banner) {
		return "", false
	}
	return strings.TrimSpace(text[len(banner):]), true
}

// ---- Content: labels and trimming ----

// leadLabel finds the status label at the start of rest (what follows a date): a known
// status word, or the text of the segment's first <strong>/<b>, followed by a separator
// ("Resolved - …", "Resolved: …"), or a "Status: X" line (incident.io). It returns the
// label and how many bytes of rest it and the separators around it take; without a label,
// "" and the leading separators ("10:43 MSK. We are …").
func leadLabel(rest string, seg *html.Node) (string, int) {
	i := feedSkipSeparators(rest, 0)
	s := rest[i:]
	if len(s) >= 7 && strings.EqualFold(s[:7], "status:") {
		line, _, _ := strings.Cut(s[7:], "\n")
		label := strings.TrimSpace(line)
		if label != "" && len(label) <= 40 {
			return label, feedSkipSeparators(rest, i+7+len(line))
		}
	}
	candidates := feedLabels
	if b := feedFirstBold(seg); b != "" && len(b) <= 40 {
		candidates = append([]string{b}, feedLabels...)
	}
	for _, c := range candidates {
		if len(s) < len(c) || !strings.EqualFold(s[:len(c)], c) {
			continue
		}
		after := s[len(c):]
		if after != "" {
			r, _ := utf8.DecodeRuneInString(after)
			if !unicode.IsSpace(r) && !strings.ContainsRune("-–—:.|", r) {
				continue // a word that merely starts like a label: "Updated …"
			}
		}
		if !feedHasSeparator(after) {
			// A label is followed by a separator, not by the sentence it starts:
			// "Resolved - Fixed" is a label, "Resolved the issue" is a body.
			continue
		}
		return strings.TrimSpace(s[:len(c)]), feedSkipSeparators(rest, i+len(c))
	}
	return "", i
}

// feedHasSeparator reports whether s starts, after spaces, with a label separator or a line
// break.
func feedHasSeparator(s string) bool {
	for _, r := range s {
		switch {
		case r == '\n' || strings.ContainsRune("-–—:.|", r):
			return true
		case unicode.IsSpace(r):
		default:
			return false
		}
	}
	return true
}

// feedSkipSeparators skips spaces and separator punctuation in s from i.
func feedSkipSeparators(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) && !strings.ContainsRune("-–—:.|", r) {
			break
		}
		i += n
	}
	return i
}

// feedFirstBold returns the text of the first <strong> or <b> under n.
func feedFirstBold(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if c.DataAtom == atom.Strong || c.DataAtom == atom.B {
				return strings.TrimSpace(htmltext.Of(c, nil))
			}
			if t := feedFirstBold(c); t != "" {
				return t
			}
		}
	}
	return ""
}

// feedNonSpace counts the runes of s that are not white space: the measure by which the date
// and label are cut from the front of a segment, since the text and the tree agree on
// those runes whatever they do with white space.
func feedNonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// feedTrimLeading removes the first k non-space runes of text from under n, and the elements
// it leaves empty; it returns how many are left to remove.
func feedTrimLeading(n *html.Node, k int) int {
	for c := n.FirstChild; c != nil && k > 0; {
		next := c.NextSibling
		switch c.Type {
		case html.TextNode:
			i := 0
			for i < len(c.Data) && k > 0 {
				r, size := utf8.DecodeRuneInString(c.Data[i:])
				if !unicode.IsSpace(r) {
					k--
				}
				i += size
			}
			c.Data = c.Data[i:]
			if c.Data == "" {
				n.RemoveChild(c)
			}
		case html.ElementNode:
			if htmltext.Skips(c.DataAtom) {
				break
			}
			k = feedTrimLeading(c, k)
			if c.FirstChild == nil {
				n.RemoveChild(c) // emptied, or a <br> inside the cut
			}
		}
		c = next
	}
	return k
}

// feedTrimBlank removes the blank text and <br>s a cut leaves at one end of n: the front
// when front, else the end.
func feedTrimBlank(n *html.Node, front bool) {
	c, trim := n.LastChild, strings.TrimRightFunc
	if front {
		c, trim = n.FirstChild, strings.TrimLeftFunc
	}
	for c != nil {
		next := c.PrevSibling
		if front {
			next = c.NextSibling
		}
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
			n.RemoveChild(c)
		case c.Type == html.TextNode:
			c.Data = trim(c.Data, unicode.IsSpace)
			return
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
			n.RemoveChild(c)
		case c.Type == html.ElementNode:
			feedTrimBlank(c, front)
			return
		default:
			return
		}
		c = next
	}
}

func feedCollapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
