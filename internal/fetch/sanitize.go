package fetch

import (
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
)

// vendorPolicy is the HTML we keep of vendor text for the UI: structure, emphasis and safe
// links; no images (UGCPolicy keeps them), no style, no event handlers, no forms.
var vendorPolicy = func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "hr", "ul", "ol", "li", "strong", "b", "em", "i", "code", "pre",
		"blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "span", "div")
	p.AllowAttrs("href").OnElements("a")
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireParseableURLs(true)
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}()

// SanitizeHTML returns vendor HTML reduced to a tight, safe subset for the UI.
func SanitizeHTML(s string) string {
	return strings.TrimSpace(vendorPolicy.Sanitize(s))
}

// HTMLToText turns vendor HTML into clean text for diffs and Slack: blocks become
// paragraphs, script and style are dropped, entities decoded.
func HTMLToText(s string) string {
	nodes, err := html.ParseFragment(strings.NewReader(s), nil)
	if err != nil {
		return strings.TrimSpace(s)
	}
	root := &html.Node{Type: html.DocumentNode}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return htmlText(root, nil)
}
