package vendortext

import (
	"html"
	"html/template"
	"regexp"
	"strings"

	xhtml "golang.org/x/net/html"
)

// Vendor text often carries bare URLs ("See https://…/incidents/123 for details"); the
// pages and the feed make them links. It runs on text already escaped or HTML already
// sanitised: only text nodes outside an <a> are searched, each is escaped again around
// the links it gets, and a link is made only of an http or https URL, so vendor text
// never produces markup of its own.

// urlPattern finds http and https URLs in text. What ends a URL is decided after the
// match (trimURL), as people end sentences with one. Control characters and U+FFFD end
// a URL too: no browser would send them, and the tokenizer rewrites NUL.
var urlPattern = regexp.MustCompile(`(?i)\bhttps?://[^\s\x00-\x1f\x7f\x{FFFD}<>"'\x60{}|\\^\[\]]+`)

// maxLinkLen is the longest URL made a link; a longer one stays text.
const maxLinkLen = 2048

// linkRel is what every link made from vendor text carries: no ranking credit for
// the vendor's targets, and no window.opener for the page it opens.
const linkRel = "nofollow noopener"

// trimURL drops the punctuation a sentence puts after a URL, and a closing bracket
// the URL did not open.
func trimURL(u string) string {
	for u != "" {
		last := u[len(u)-1]
		switch {
		case strings.IndexByte(".,;:!?*'\"", last) >= 0:
			u = u[:len(u)-1]
		case last == ')' && strings.Count(u, "(") < strings.Count(u, ")"):
			u = u[:len(u)-1]
		default:
			return u
		}
	}
	return u
}

// linkText is text as HTML, escaped, its URLs made links.
func linkText(s string) string {
	var b strings.Builder
	for {
		loc := urlPattern.FindStringIndex(s)
		if loc == nil {
			b.WriteString(html.EscapeString(s))
			return b.String()
		}
		u := trimURL(s[loc[0]:loc[1]])
		end := loc[0] + len(u)
		b.WriteString(html.EscapeString(s[:loc[0]]))
		if len(u) <= len("https://") || len(u) > maxLinkLen {
			b.WriteString(html.EscapeString(u))
		} else {
			// The scheme in lower case ("Http://" → "http://"), so every href we write
			// starts with exactly http:// or https://.
			scheme, rest, _ := strings.Cut(u, "://")
			href := html.EscapeString(strings.ToLower(scheme) + "://" + rest)
			b.WriteString(`<a href="` + href + `" rel="` + linkRel + `">` + html.EscapeString(u) + `</a>`)
		}
		s = s[end:]
	}
}

// LinkifyHTML makes links of the URLs in the text of h, HTML that is already safe
// (sanitised or escaped): text inside an <a> is left alone, every other text node is
// written by linkText, every tag as the tokenizer read it.
func LinkifyHTML(h template.HTML) template.HTML {
	if !strings.Contains(strings.ToLower(string(h)), "http") {
		return h
	}
	z := xhtml.NewTokenizer(strings.NewReader(string(h)))
	var b strings.Builder
	inLink := 0
	for {
		if z.Next() == xhtml.ErrorToken {
			return template.HTML(b.String())
		}
		tok := z.Token()
		switch {
		case tok.Type == xhtml.TextToken && inLink == 0:
			b.WriteString(linkText(tok.Data)) // Data is unescaped
			continue
		case tok.Type == xhtml.StartTagToken && tok.Data == "a":
			inLink++
		case tok.Type == xhtml.EndTagToken && tok.Data == "a" && inLink > 0:
			inLink--
		}
		b.WriteString(tok.String()) // escaped again
	}
}
