// Package sanitize holds the one HTML policy for vendor text: the fetcher applies it before
// the archive keeps vendor HTML, and the UI applies it again when it renders, rather than
// trusting HTML kept under an older policy.
package sanitize

import (
	"strings"

	"github.com/microcosm-cc/bluemonday"
)

// policy keeps structure, emphasis, tables and safe links (http, https, mailto;
// rel="nofollow noreferrer", a new tab for absolute ones); no images (bluemonday's
// UGCPolicy keeps them), no style, no event handlers, no forms, no frames, no script.
var policy = func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "hr", "ul", "ol", "li", "strong", "b", "em", "i", "code", "pre",
		"blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
		"span", "div", "del", "ins", "s")
	p.AllowAttrs("href").OnElements("a")
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireParseableURLs(true)
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}()

// HTML reduces vendor HTML to what the policy allows.
func HTML(s string) string {
	return strings.TrimSpace(policy.Sanitize(s))
}
