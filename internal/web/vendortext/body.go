// Package vendortext turns what a vendor wrote into HTML that a page or a feed entry can
// carry, knowing nothing of HTTP. Vendor text reaches a page in one of three ways, and
// never as raw vendor HTML:
//   - HTML the fetcher kept (Update.HTML, Postmortem.HTML) goes through the vendor policy
//     of internal/sanitize again (sanitize.go): structure, emphasis and safe links only; no
//     script, no event handlers, no images, no style.
//   - Markdown (a Statuspage postmortem) is rendered by goldmark with its raw HTML passed
//     through, then sanitised the same way: the policy removes the tags it does not allow
//     and keeps their text. (Goldmark's default, leaving raw HTML out, dropped a whole
//     block: a "<div>" or "<br>" line took every line up to the next blank one with it.)
//   - Text is escaped, its blank lines made paragraphs and its line breaks <br>.
//
// Bare URLs in any of them become links (linkify.go); listings show excerpts and search
// snippets of the text (excerpt.go, snippet.go).
package vendortext

import (
	"bytes"
	"html"
	"html/template"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/statuswatch/statuswatch/internal/model"
)

// markdown renders postmortems: GitHub-flavoured (tables, autolinks), headings moved down
// so the vendor's "#" sits below the page's own headings. Raw HTML is rendered (WithUnsafe)
// only because its output always goes through SanitizeHTML, which is what makes it safe.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(headingShift{}, 100))),
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
)

// headingShift moves every heading down so that the highest is an <h3>: the page's
// sections are <h2>.
type headingShift struct{}

func (headingShift) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	top := 7
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			top = min(top, h.Level)
		}
		return ast.WalkContinue, nil
	})
	if top >= 3 {
		return
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(6, h.Level+3-top)
		}
		return ast.WalkContinue, nil
	})
}

// UpdateHTML is an update's body for the page: its sanitised HTML when the vendor sent
// HTML, else its text.
func UpdateHTML(u *model.Update) template.HTML {
	if u.HTML != "" {
		if h := SanitizeHTML(u.HTML); h != "" {
			return template.HTML(h)
		}
	}
	return textHTML(u.Body)
}

// PostmortemHTML is a postmortem for the page: its sanitised HTML when the vendor sent
// HTML, its markdown rendered and sanitised, or its text.
func PostmortemHTML(pm *model.Postmortem) template.HTML {
	if pm.HTML != "" {
		if h := SanitizeHTML(pm.HTML); h != "" {
			return template.HTML(h)
		}
	}
	if pm.Format == model.FormatMarkdown {
		var buf bytes.Buffer
		if err := markdown.Convert([]byte(pm.Body), &buf); err == nil {
			return template.HTML(SanitizeHTML(buf.String()))
		}
	}
	return textHTML(pm.Body)
}

// SafeLink is a vendor's URL as a page may link it: http, https and mailto URLs as they
// are, anything else (javascript:, data:, a relative path, a URL that does not parse)
// empty, so that the page shows no link rather than html/template's "#ZgotmplZ".
func SafeLink(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return ""
		}
		return u.String()
	case "mailto":
		return u.String()
	}
	return ""
}

var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// textHTML is text as HTML: escaped, paragraphs at blank lines, <br> at line breaks.
func textHTML(s string) template.HTML {
	s = strings.ToValidUTF8(lineBreaks.Replace(s), "\uFFFD")
	var b strings.Builder
	for _, para := range strings.Split(s, "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		b.WriteString("<p>")
		for i, line := range strings.Split(para, "\n") {
			if i > 0 {
				b.WriteString("<br>")
			}
			b.WriteString(html.EscapeString(strings.TrimSpace(line)))
		}
		b.WriteString("</p>")
	}
	return template.HTML(b.String())
}
