package fetch

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/sanitize"
)

// SanitizeHTML returns vendor HTML reduced to the tight, safe subset the UI may show.
func SanitizeHTML(s string) string { return sanitize.HTML(s) }

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
	return HTMLText(root, nil)
}
