package web

import (
	"strings"

	"github.com/microcosm-cc/bluemonday"
)

// vendorPolicy is the HTML of vendor text a page may show: structure, emphasis, tables and
// safe links (http, https, mailto; rel="nofollow noreferrer", a new tab for absolute
// ones); no images, no style, no event handlers, no forms, no frames, no script.
//
// The fetcher sanitises vendor HTML with the same policy before the archive keeps it
// (fetch.SanitizeHTML). The UI applies its own again at render time rather than trusting
// the archive, which may hold HTML kept under an older policy, and rather than importing
// the fetch package, which would tie the UI to every provider adapter.
var vendorPolicy = func() *bluemonday.Policy {
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

// sanitizeHTML reduces vendor HTML to what vendorPolicy allows.
func sanitizeHTML(s string) string {
	return strings.TrimSpace(vendorPolicy.Sanitize(s))
}
