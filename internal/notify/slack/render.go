package slack

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
)

// Every piece of vendor text (titles, statuses, components, update bodies, the error of a
// source that cannot be read) goes through esc, oneLine or cutVendor before it reaches a
// message; diff.Mrkdwn escapes the change sets itself. Text objects are verbatim, so
// Slack does not turn a vendor's plain "#general" or URL into a link either. No header
// block is used: it is plain_text, whose handling of &amp; is not documented, and a
// vendor title must read the same everywhere.

// message is one Slack message as we build it: what chat.postMessage, chat.update or an
// incoming webhook receives. The golden files hold its JSON.
type message struct {
	Text      string           `json:"text"`
	Blocks    []slackapi.Block `json:"blocks,omitempty"`
	Broadcast bool             `json:"reply_broadcast,omitempty"`
}

// render builds the message for n: for the bot (a root card, or a reply in the thread)
// or for a webhook (one self-contained message per change set).
func render(n *notify.Notification, webhook bool) message {
	var m message
	switch {
	case n.Digest != nil:
		m = digestMessage(n.Digest)
	case n.Components != nil:
		m = componentMessage(n, webhook)
	case n.Message.IncidentID == "" || n.Version == nil:
		m = sourceMessage(n)
	case notify.IsReminder(&n.Message) && (webhook || n.Thread != nil):
		m = reminderMessage(n, webhook)
	case webhook && n.Message.Event == model.EventNew:
		m = card(n, false)
	case webhook:
		m = reply(n, true)
	case n.Thread == nil:
		m = card(n, false)
	default:
		m = reply(n, false)
	}
	if n.PlainText {
		m = m.plain()
	}
	return m.fit()
}

// renderRoot builds the root card as chat.update rewrites it after a reply: the
// incident's current status, impact and latest update, or for the component thread the
// state of its components.
func renderRoot(n *notify.Notification) message {
	var m message
	if n.Components != nil {
		m = componentRoot(n)
	} else {
		m = card(n, true)
	}
	if n.PlainText {
		m = m.plain()
	}
	return m.fit()
}

// card is an incident's root message: headline, status fields, latest update, postmortem
// excerpt, links. edit marks the version chat.update writes, which says what changed
// last instead of how the thread began.
func card(n *notify.Notification, edit bool) message {
	inc := &n.Version.Incident
	what := whatNew(n)
	if edit {
		what = whatNow(n)
	}
	title := oneLine(inc.Title, titleLimit)
	blocks := []slackapi.Block{
		section(fmt.Sprintf("%s *%s* · %s\n*%s*", emoji(n, edit), oneLine(n.SourceTitle, titleLimit), what, title)),
		fieldsBlock(inc),
	}
	if u := kit.LatestUpdate(inc); u != nil {
		blocks = append(blocks, section(updateText("Latest update", u, rootUpdateLimit, n.Link)))
	}
	if pm := inc.Postmortem; pm != nil && strings.TrimSpace(pm.Body) != "" {
		blocks = append(blocks, section(postmortemText(pm, postmortemLimit, n.Link)))
	}
	var ctx []string
	switch {
	case edit:
		ctx = append(ctx, fmt.Sprintf("Last change %s: %s", when(n.Version.ObservedAt), cutVendor(n.Version.Summary, summaryLimit, "", "")))
	case !n.FirstSeen.IsZero():
		ctx = append(ctx, catchUp(n))
	}
	if len(n.AlsoAffected) > 0 {
		ctx = append(ctx, "Also affected: "+oneLine(strings.Join(n.AlsoAffected, ", "), titleLimit))
	}
	ctx = append(ctx, links(n)...)
	if len(ctx) > 0 {
		blocks = append(blocks, contextBlock(ctx...))
	}
	text := fmt.Sprintf("%s · %s: %s (%s, %s impact)", oneLine(n.SourceTitle, titleLimit), what, title,
		oneLine(kit.Words(inc.Status), 100), oneLine(string(inc.Impact), 100))
	return message{Text: text, Blocks: blocks}
}

// reply is one change set: in the thread for the bot, or, for a webhook, on its own with
// the incident's status fields so that it needs no root to be understood.
func reply(n *notify.Notification, webhook bool) message {
	inc := &n.Version.Incident
	what := whatChange(n)
	title := oneLine(inc.Title, titleLimit)
	summary := cutVendor(n.Version.Summary, summaryLimit, "", "")
	if n.Message.Event == model.EventRemoved {
		summary = fmt.Sprintf("It is no longer listed on the vendor's page. Last status: %s.", oneLine(kit.Words(inc.Status), 100))
	}
	blocks := []slackapi.Block{
		section(fmt.Sprintf("%s *%s* · %s: *%s*\n%s", emoji(n, false), oneLine(n.SourceTitle, titleLimit), what, title, summary)),
	}
	if webhook {
		blocks = append(blocks, fieldsBlock(inc))
	}
	if n.Message.Event != model.EventRemoved {
		ch := split(n.Version)
		if len(ch.added) > maxNewUpdates {
			blocks = append(blocks, section(fmt.Sprintf("_%d earlier new updates not shown: %s_", len(ch.added)-maxNewUpdates, moreLink(n))))
			ch.added = ch.added[len(ch.added)-maxNewUpdates:]
		}
		for _, u := range ch.added {
			blocks = append(blocks, section(updateText("Update", u, updateLimit, n.Link)))
		}
		if ch.postmortem != nil {
			blocks = append(blocks, section(postmortemText(ch.postmortem, postmortemLimit, n.Link)))
		}
		if len(ch.rest) > 0 {
			blocks = append(blocks, section(diff.Mrkdwn(ch.rest, diffLimit, n.Link, &n.Version.Incident)))
		}
	}
	if l := links(n); len(l) > 0 {
		blocks = append(blocks, contextBlock(l...))
	}
	text := fmt.Sprintf("%s · %s: %s — %s", oneLine(n.SourceTitle, titleLimit), what, title, summary)
	ev := n.Message.Event
	return message{Text: text, Blocks: blocks, Broadcast: !webhook && (ev == model.EventResolved || ev == model.EventPostmortem)}
}

// reminderMessage is a maintenance about to start: a short reply in its thread, its
// window, and for a webhook the status fields, so that it needs no root. It edits no
// root: nothing the root shows has changed. With no thread to reply in (its root was
// never posted), the bot posts the maintenance's card instead, headed the same way.
func reminderMessage(n *notify.Notification, webhook bool) message {
	inc := &n.Version.Incident
	what := notify.StartsIn(n.Message, inc)
	src, title, window := oneLine(n.SourceTitle, titleLimit), oneLine(inc.Title, titleLimit), notify.Window(inc)
	blocks := []slackapi.Block{
		section(fmt.Sprintf(":alarm_clock: *%s* · %s: *%s*\nScheduled %s", src, what, title, window)),
	}
	if webhook {
		blocks = append(blocks, fieldsBlock(inc))
	}
	if l := links(n); len(l) > 0 {
		blocks = append(blocks, contextBlock(l...))
	}
	return message{Text: fmt.Sprintf("%s · %s: %s — %s", src, what, title, window), Blocks: blocks}
}

// sourceMessage is a source that cannot be read (Message.Text is the error) or has
// recovered.
func sourceMessage(n *notify.Notification) message {
	src := oneLine(n.SourceTitle, titleLimit)
	var text string
	var blocks []slackapi.Block
	switch n.Message.Event {
	case model.EventSourceDown:
		text = fmt.Sprintf("%s: cannot read the status page", src)
		body := fmt.Sprintf(":warning: *%s*: cannot read the status page", src)
		if e := strings.TrimSpace(n.Message.Text); e != "" {
			body += "\n>" + strings.ReplaceAll(cutVendor(e, errorLimit, "", ""), "\n", "\n>")
		}
		blocks = []slackapi.Block{
			section(body),
			contextBlock("Its incidents are not watched until it reads again; a message follows when it does."),
		}
	case model.EventSourceUp:
		text = fmt.Sprintf("%s: status page recovered", src)
		blocks = []slackapi.Block{section(fmt.Sprintf(":white_check_mark: *%s*: status page recovered, reading it again", src))}
	default:
		text = fmt.Sprintf("%s: %s", src, oneLine(string(n.Message.Event), 100))
		blocks = []slackapi.Block{section(text)}
	}
	return message{Text: text, Blocks: blocks}
}

// digestMessage stands for messages older than max_queue_age.
func digestMessage(d *notify.Digest) message {
	text := esc(notify.DigestLine(d))
	blocks := []slackapi.Block{section(":hourglass: " + text)}
	if d.Link != "" {
		blocks = append(blocks, contextBlock(link(d.Link, "Every incident and change is in statuswatch")))
	}
	return message{Text: text, Blocks: blocks}
}

// catchUp is the line of a root that comes late: an incident announced only once a
// change passed the filters, or a thread whose root was never posted (skipped as too
// old, or posted through a webhook before).
func catchUp(n *notify.Notification) string {
	v := n.Version
	noun := "versions"
	if v.N == 1 {
		noun = "version"
	}
	s := fmt.Sprintf("First seen %s; now %d %s; status %s.", when(n.FirstSeen), v.N, noun, oneLine(kit.Words(v.Incident.Status), 100))
	if n.Message.CatchUp {
		s = "Announced late. " + s
	}
	return s
}

// links are the context links: our full diff or incident page, and the vendor's page.
func links(n *notify.Notification) []string {
	var out []string
	switch {
	case n.IncidentLink != "" && (n.Thread == nil && n.Message.Event == model.EventNew || n.Message.Event == model.EventRemoved ||
		notify.IsReminder(&n.Message)):
		out = append(out, link(n.IncidentLink, "History and diffs"))
	case n.Link != "":
		out = append(out, link(n.Link, "Full diff"))
	}
	if n.Version != nil {
		if u := kit.VendorURL(n.Version.Incident.URL); u != "" {
			out = append(out, link(u, "Vendor page"))
		}
	}
	return out
}

func moreLink(n *notify.Notification) string {
	if n.Link == "" {
		return "see the status page"
	}
	return link(n.Link, "full diff")
}

// fieldsBlock shows status, impact, components and when.
func fieldsBlock(inc *model.Incident) slackapi.Block {
	fields := []string{
		"*Status*\n" + oneLine(kit.Words(inc.Status), 200),
		"*Impact*\n" + oneLine(string(inc.Impact), 200),
	}
	if len(inc.Components) > 0 {
		fields = append(fields, "*Components*\n"+cutVendor(strings.Join(inc.Components, ", "), componentsLimit, "", ""))
	}
	if inc.Kind == model.KindMaintenance && !inc.ScheduledFor.IsZero() {
		s := when(inc.ScheduledFor)
		if !inc.ScheduledUntil.IsZero() {
			s += " → " + when(inc.ScheduledUntil)
		}
		fields = append(fields, "*Scheduled*\n"+s)
	} else if !inc.StartedAt.IsZero() {
		fields = append(fields, "*Started*\n"+when(inc.StartedAt))
	}
	if !inc.ResolvedAt.IsZero() {
		label := "*Resolved*"
		if inc.ResolvedInferred {
			label = "*Resolved* (inferred)"
		}
		fields = append(fields, label+"\n"+when(inc.ResolvedAt))
	}
	objs := make([]*slackapi.TextBlockObject, len(fields))
	for i, f := range fields {
		objs[i] = mrkdwn(f)
	}
	return slackapi.NewSectionBlock(nil, objs, nil)
}

// updateText is one vendor update: a label line, then its body.
func updateText(label string, u *model.Update, limit int, more string) string {
	head := "*" + label + "*"
	if u.Status != "" {
		head += " · " + oneLine(kit.Words(u.Status), 100)
	}
	if t := when(u.PostedAt); t != "" {
		head += " · " + t
	}
	body := strings.TrimSpace(u.Body)
	if body == "" {
		return head
	}
	return head + "\n" + cutVendor(body, limit, more, "full text")
}

func postmortemText(pm *model.Postmortem, limit int, more string) string {
	head := "*Postmortem*"
	if t := when(pm.PublishedAt); t != "" {
		head += " · published " + t
	}
	return head + "\n" + cutVendor(strings.TrimSpace(pm.Body), limit, more, "full text")
}

// changeParts splits a change set for a reply: new updates and a new postmortem are
// shown as text people read, everything else as a word diff.
type changeParts struct {
	added      []*model.Update
	postmortem *model.Postmortem
	rest       []model.Change
}

func split(v *model.Version) changeParts {
	var p changeParts
	inc := &v.Incident
	for _, c := range v.Changes {
		switch id, ok := addedUpdate(c); {
		case ok:
			if u := findUpdate(inc, id); u != nil {
				p.added = append(p.added, u)
				continue
			}
		case c.Field == diff.FieldPostmortemBody && c.Before == nil && c.After != nil && inc.Postmortem != nil:
			p.postmortem = inc.Postmortem
			continue
		}
		p.rest = append(p.rest, c)
	}
	slices.SortStableFunc(p.added, func(a, b *model.Update) int { return a.PostedAt.Compare(b.PostedAt) })
	return p
}

// addedUpdate reports whether c adds an update ("updates[<id>]" with no before).
func addedUpdate(c model.Change) (string, bool) {
	f := c.Field
	if c.Before != nil || c.After == nil || !strings.HasPrefix(f, "updates[") || !strings.HasSuffix(f, "]") {
		return "", false
	}
	return f[len("updates[") : len(f)-1], true
}

func findUpdate(inc *model.Incident, id string) *model.Update {
	for i := range inc.Updates {
		if inc.Updates[i].ID == id {
			return &inc.Updates[i]
		}
	}
	return nil
}

// whatNew names a root: the event that started the thread.
func whatNew(n *notify.Notification) string {
	inc := &n.Version.Incident
	if n.Message.Event != model.EventNew {
		return whatChange(n)
	}
	if inc.Kind == model.KindMaintenance {
		return maintenanceWord(inc.Status)
	}
	if !inc.Open() {
		return "Incident (already resolved)"
	}
	return "New incident"
}

// whatNow names a root as chat.update rewrites it: where the incident stands.
func whatNow(n *notify.Notification) string {
	inc := &n.Version.Incident
	switch {
	case n.Message.Event == model.EventRemoved:
		return "Removed from the status page"
	case inc.Kind == model.KindMaintenance:
		return maintenanceWord(inc.Status)
	case inc.Status == model.StatusPostmortem || inc.Postmortem != nil && !inc.Open():
		return "Resolved, postmortem published"
	case !inc.Open():
		return "Resolved"
	}
	return "Incident"
}

func maintenanceWord(s model.Status) string {
	switch s {
	case model.StatusScheduled:
		return "Maintenance scheduled"
	case model.StatusInProgress:
		return "Maintenance started"
	case model.StatusVerifying:
		return "Maintenance verifying"
	case model.StatusCompleted:
		return "Maintenance completed"
	}
	return "Maintenance"
}

// whatChange names a change set by the most important thing it says.
func whatChange(n *notify.Notification) string {
	v := n.Version
	inc := &v.Incident
	switch n.Message.Event {
	case model.EventRemoved:
		return "Removed from the status page"
	case model.EventMaintenanceSoon:
		return notify.StartsIn(n.Message, inc)
	case model.EventResolved:
		if inc.Kind == model.KindMaintenance {
			return "Maintenance completed"
		}
		return "Resolved"
	case model.EventPostmortem:
		for _, c := range v.Changes {
			if c.Field == diff.FieldPostmortemBody && c.Before != nil {
				return "Postmortem edited"
			}
		}
		return "Postmortem published"
	}
	var added, edited, status, impact, title bool
	for _, c := range v.Changes {
		_, isAdded := addedUpdate(c)
		switch {
		case isAdded:
			added = true
		case strings.HasPrefix(c.Field, "updates[") && (strings.HasSuffix(c.Field, "].body") || strings.HasSuffix(c.Field, "].status")):
			edited = true
		case c.Field == diff.FieldStatus:
			status = true
		case c.Field == diff.FieldImpact:
			impact = true
		case c.Field == diff.FieldTitle:
			title = true
		}
	}
	switch {
	case inc.Kind == model.KindMaintenance && status:
		if inc.Status == model.StatusScheduled {
			return "Maintenance rescheduled"
		}
		return maintenanceWord(inc.Status)
	case added:
		return "New update"
	case status:
		return "Status " + oneLine(kit.Words(inc.Status), 100)
	case edited:
		return "Update edited"
	case impact:
		return "Impact " + oneLine(string(inc.Impact), 100)
	case title:
		return "Title changed"
	}
	return "Changed"
}

// emoji marks a message by what it says, for people scanning a busy channel.
func emoji(n *notify.Notification, current bool) string {
	inc := &n.Version.Incident
	ev := n.Message.Event
	switch {
	case ev == model.EventRemoved:
		return ":wastebasket:"
	case ev == model.EventPostmortem && !current:
		return ":memo:"
	case !inc.Open() && (current || ev == model.EventResolved):
		return ":white_check_mark:"
	case inc.Kind == model.KindMaintenance:
		return ":wrench:"
	}
	switch inc.Impact {
	case model.ImpactCritical:
		return ":red_circle:"
	case model.ImpactMajor:
		return ":large_orange_circle:"
	case model.ImpactMinor:
		return ":large_yellow_circle:"
	}
	return ":white_circle:"
}

func mrkdwn(s string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.MarkdownType, s, false, true)
}

func section(s string) *slackapi.SectionBlock {
	return slackapi.NewSectionBlock(mrkdwn(s), nil, nil)
}

func contextBlock(items ...string) *slackapi.ContextBlock {
	els := make([]slackapi.MixedElement, len(items))
	for i, s := range items {
		els[i] = mrkdwn(s)
	}
	return slackapi.NewContextBlock("", els...)
}

// plain is m as text only, for the one retry after Slack rejected its blocks: every
// block's text in order, cut to the text limit.
func (m message) plain() message {
	var parts []string
	for _, b := range m.Blocks {
		switch b := b.(type) {
		case *slackapi.SectionBlock:
			if b.Text != nil {
				parts = append(parts, b.Text.Text)
			}
			var fs []string
			for _, f := range b.Fields {
				fs = append(fs, strings.Replace(f.Text, "\n", ": ", 1))
			}
			if len(fs) > 0 {
				parts = append(parts, strings.Join(fs, " · "))
			}
		case *slackapi.ContextBlock:
			var cs []string
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slackapi.TextBlockObject); ok {
					cs = append(cs, t.Text)
				}
			}
			parts = append(parts, strings.Join(cs, " · "))
		}
	}
	return message{Text: strings.Join(parts, "\n"), Broadcast: m.Broadcast}
}

// fit enforces Slack's limits on whatever the builders made, as the last line of defence:
// the builders' own budgets keep every message well inside them.
func (m message) fit() message {
	m.Text = cutMrkdwn(m.Text, maxText)
	if len(m.Blocks) > maxBlocks {
		m.Blocks = m.Blocks[:maxBlocks]
	}
	total := 0
	var texts []*slackapi.TextBlockObject
	for _, b := range m.Blocks {
		switch b := b.(type) {
		case *slackapi.SectionBlock:
			if b.Text != nil {
				b.Text.Text = cutMrkdwn(b.Text.Text, maxSectionText)
				texts = append(texts, b.Text)
			}
			if len(b.Fields) > maxFields {
				b.Fields = b.Fields[:maxFields]
			}
			for _, f := range b.Fields {
				f.Text = cutMrkdwn(f.Text, maxFieldText)
				texts = append(texts, f)
			}
		case *slackapi.ContextBlock:
			if els := b.ContextElements.Elements; len(els) > maxContextItems {
				b.ContextElements.Elements = els[:maxContextItems]
			}
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slackapi.TextBlockObject); ok {
					t.Text = cutMrkdwn(t.Text, maxSectionText)
					texts = append(texts, t)
				}
			}
		}
	}
	for _, t := range texts {
		total += utf8.RuneCountInString(t.Text)
	}
	// Over the whole-message cap: shorten the longest texts first, never below a few
	// hundred runes, until the message fits.
	for total > maxAllBlocksText {
		longest := slices.MaxFunc(texts, func(a, b *slackapi.TextBlockObject) int {
			return utf8.RuneCountInString(a.Text) - utf8.RuneCountInString(b.Text)
		})
		n := utf8.RuneCountInString(longest.Text)
		target := max(n-(total-maxAllBlocksText), 200)
		if target >= n {
			break
		}
		longest.Text = cutMrkdwn(longest.Text, target)
		total -= n - utf8.RuneCountInString(longest.Text)
	}
	return m
}
