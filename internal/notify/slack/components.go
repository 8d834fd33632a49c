package slack

// Component messages in Slack: the root of a source's component thread ("<Vendor>:
// Actions degraded — no incident posted"), edited to the components' current state
// after each reply; the replies in it or in an incident's thread; and, for a webhook,
// each message on its own. Every vendor string is escaped; the lines come from notify,
// shared with the console.

import (
	"fmt"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// componentMessage is a component message as posted: the component thread's root when
// it opens it, else a reply (in its thread for the bot, on its own for a webhook).
func componentMessage(n *notify.Notification, webhook bool) message {
	v := n.Components
	told := n.Told()
	lines := notify.ComponentLines(v, told)
	src := oneLine(n.SourceTitle, titleLimit)
	if n.ComponentOpens(!webhook) {
		state := esc(notify.ComponentRootState(v))
		body := fmt.Sprintf("%s *%s*: %s", componentEmoji(notify.ComponentRootWorst(v)), src, state)
		blocks := []slackapi.Block{section(body + bullets(lines))}
		if l := componentLinks(n); len(l) > 0 {
			blocks = append(blocks, contextBlock(l...))
		}
		return message{Text: src + ": " + state, Blocks: blocks}
	}
	emoji := componentEmoji(notify.ComponentWorst(told))
	var head, text string
	if len(lines) == 1 {
		head = fmt.Sprintf("%s *%s* · %s", emoji, src, esc(lines[0]))
		text = src + " · " + esc(lines[0])
	} else {
		head = fmt.Sprintf("%s *%s* · %d component changes%s", emoji, src, len(told), bullets(lines))
		text = fmt.Sprintf("%s · %d component changes: %s", src, len(told), esc(strings.Join(lines, "; ")))
	}
	blocks := []slackapi.Block{section(head)}
	var ctx []string
	if n.IncidentTitle != "" && n.Thread == nil {
		ctx = append(ctx, "Incident: "+oneLine(n.IncidentTitle, titleLimit))
	}
	if ctx = append(ctx, componentLinks(n)...); len(ctx) > 0 {
		blocks = append(blocks, contextBlock(ctx...))
	}
	return message{Text: text, Blocks: blocks}
}

// componentRoot is the component thread's root as chat.update rewrites it after a
// reply: the state of the components alerted there as of the reply's version, and the
// reply's lines as its last change.
func componentRoot(n *notify.Notification) message {
	v := n.Components
	src := oneLine(n.SourceTitle, titleLimit)
	state := esc(notify.ComponentRootState(v))
	lines := notify.ComponentLines(v, n.Told())
	ctx := []string{fmt.Sprintf("Last change %s: %s", when(v.ObservedAt), esc(strings.Join(lines, "; ")))}
	blocks := []slackapi.Block{
		section(fmt.Sprintf("%s *%s*: %s", componentEmoji(notify.ComponentRootWorst(v)), src, state)),
		contextBlock(append(ctx, componentLinks(n)...)...),
	}
	return message{Text: src + ": " + state, Blocks: blocks}
}

// bullets writes lines (vendor text) as a list under a headline.
func bullets(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\n• " + esc(l))
	}
	return b.String()
}

// componentLinks is the link to the source's page in our UI, which lists its
// components and their history.
func componentLinks(n *notify.Notification) []string {
	if n.SourceLink == "" {
		return nil
	}
	return []string{link(n.SourceLink, "Components in statuswatch")}
}

// componentEmoji marks a component message by the worst status it tells.
func componentEmoji(s model.ComponentStatus) string {
	switch s {
	case model.ComponentMajorOutage:
		return ":red_circle:"
	case model.ComponentPartialOutage:
		return ":large_orange_circle:"
	case model.ComponentDegraded:
		return ":large_yellow_circle:"
	case model.ComponentMaintenance:
		return ":wrench:"
	}
	return ":white_check_mark:"
}
