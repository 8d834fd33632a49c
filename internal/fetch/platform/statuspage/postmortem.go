package statuspage

// The postmortem of a Statuspage incident as its HTML incident page shows it, for an
// incident whose JSON lacks it.

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// postmortemFromHTML extracts the postmortem block of a Statuspage incident page, nil when
// the page has none. Statuspage renders an incident's timeline as
//
//	<div class="incident-updates-container">
//	  <div class="row update-row">
//	    <div class="update-title span3 font-large">Postmortem</div>
//	    <div class="update-container">
//	      <div class="update-body font-regular">…</div>
//	      <div class="update-timestamp …">Posted <span class="ago" data-datetime-unix="…">…
//
// with the postmortem as the row titled "Postmortem". An element whose class is
// "postmortem" or "incident-postmortem" is accepted too, as a hedge against a layout
// change. The text comes out clean: blocks become paragraphs, script and style are dropped.
func postmortemFromHTML(page []byte) *model.Postmortem {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil
	}
	block := findPostmortem(doc)
	if block == nil {
		return nil
	}
	body := block
	if b := findClass(block, "update-body"); b != nil {
		body = b
	} else if b := findClass(block, "markdown-display"); b != nil {
		body = b
	}
	text := fetch.HTMLText(body, findClass(block, "update-title"))
	if text == "" {
		return nil
	}
	return &model.Postmortem{Body: text, Format: model.FormatText, PublishedAt: postedAt(block)}
}

// findPostmortem returns the first postmortem block in document order.
func findPostmortem(n *html.Node) *html.Node {
	if n.Type == html.ElementNode {
		if hasClass(n, "postmortem") || hasClass(n, "incident-postmortem") {
			return n
		}
		if hasClass(n, "update-row") {
			if t := findClass(n, "update-title"); t != nil && strings.EqualFold(fetch.HTMLText(t, nil), "postmortem") {
				return n
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findPostmortem(c); f != nil {
			return f
		}
	}
	return nil
}

// findClass returns the first element under n (n included) with the class token cls.
func findClass(n *html.Node, cls string) *html.Node {
	if n.Type == html.ElementNode && hasClass(n, cls) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findClass(c, cls); f != nil {
			return f
		}
	}
	return nil
}

func hasClass(n *html.Node, cls string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == "class" {
			for _, f := range strings.Fields(a.Val) {
				if f == cls {
					return true
				}
			}
		}
	}
	return false
}

// postedAt reads the block's "Posted" time from the data-datetime-unix attribute
// Statuspage puts on it (milliseconds, or seconds on older pages); zero when absent.
func postedAt(n *html.Node) time.Time {
	if n.Type == html.ElementNode {
		for _, a := range n.Attr {
			if a.Key != "data-datetime-unix" {
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSpace(a.Val), 10, 64)
			if err != nil || v <= 0 {
				continue
			}
			if v > 1e11 { // later than 5138 AD in seconds: it is milliseconds
				return time.UnixMilli(v).UTC()
			}
			return time.Unix(v, 0).UTC()
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := postedAt(c); !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}
