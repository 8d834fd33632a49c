package slack

import (
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
)

// build is render, or floodMessage for a flood.
func build(n *notify.Notification, webhook bool) message {
	if n.Flood == nil {
		return render(n, webhook)
	}
	m := floodMessage(n)
	if n.PlainText {
		m = m.plain()
	}
	return m.fit()
}

// floodMessage stands for the incident messages of one poll, too many to post one by
// one: the count, the first few incidents linked to our UI (else to the vendor's page),
// and a link to the source's page for the rest.
func floodMessage(n *notify.Notification) message {
	f := n.Flood
	text := esc(notify.FloodLine(n.SourceTitle, f))
	lines := []string{":information_source: " + text}
	for _, it := range f.Items {
		title := oneLine(it.Title, 150)
		if u := it.Link; u != "" {
			title = link(u, title)
		} else if u := kit.VendorURL(it.VendorURL); u != "" {
			title = link(u, title)
		}
		lines = append(lines, "• "+esc(it.What)+": "+title)
	}
	blocks := []slackapi.Block{section(strings.Join(lines, "\n"))}
	more := notify.FloodMore(f)
	switch {
	case more != "" && f.Link != "":
		blocks = append(blocks, contextBlock(link(f.Link, esc(more)+" in statuswatch")))
	case more != "":
		blocks = append(blocks, contextBlock(esc(more)))
	}
	return message{Text: text, Blocks: blocks}
}
