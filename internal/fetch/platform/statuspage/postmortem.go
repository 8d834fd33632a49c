package statuspage

// The postmortem of a Statuspage incident as its HTML incident page shows it, for an
// incident whose JSON lacks it.

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/fetch/htmltext"
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
	text := htmltext.Of(body, findClass(block, "update-title"))
	if text == "" {
		return nil
	}
	return &model.Postmortem{Body: text, Format: model.FormatText, PublishedAt: postedAt(block)}
}

// findPostmortem returns the first postmortem block in document order.
func findPostmortem(n *html.Node) *html.Node {
	return htmltext.FindElement(n, func(e *html.Node) bool {
		if htmltext.HasClass(e, "postmortem") || htmltext.HasClass(e, "incident-postmortem") {
			return true
		}
		if !htmltext.HasClass(e, "update-row") {
			return false
		}
		t := findClass(e, "update-title")
		return t != nil && strings.EqualFold(htmltext.Of(t, nil), "postmortem")
	})
}

// findClass returns the first element under n (n included) with the class token cls.
func findClass(n *html.Node, cls string) *html.Node {
	return htmltext.FindElement(n, func(e *html.Node) bool { return htmltext.HasClass(e, cls) })
}

// postedAt reads the block's "Posted" time from the data-datetime-unix attribute
// Statuspage puts on it (milliseconds, or seconds on older pages); zero when absent.
func postedAt(n *html.Node) time.Time {
	var at time.Time
	htmltext.FindElement(n, func(e *html.Node) bool {
		for _, a := range e.Attr {
			if a.Key != "data-datetime-unix" {
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSpace(a.Val), 10, 64)
			if err != nil || v <= 0 {
				continue
			}
			if v > 1e11 { // later than 5138 AD in seconds: it is milliseconds
				at = time.UnixMilli(v).UTC()
			} else {
				at = time.Unix(v, 0).UTC()
			}
			return true
		}
		return false
	})
	return at
}
