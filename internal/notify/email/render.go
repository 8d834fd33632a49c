package email

import (
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
)

// Vendor text reaches the HTML part only through html/template (escaped as text) and
// diff.HTML (escaped by diff); links are ours or a vendor's http(s) page. The text part
// is text/plain: nothing in it is interpreted.

// Budgets, in runes, that keep a message readable and bounded.
const (
	subjectLimit = 200
	lineLimit    = 600
	updateLimit  = 5000
	maxUpdates   = 5
	maxChanges   = 100
	// maxDiff is the most diff text a message carries; past it the diff is left to
	// the UI's page, which the message links.
	maxDiff = 200 << 10
)

type updateText struct{ Label, Caption, Body string }

type fact struct{ Name, Value string }

type link struct{ Label, URL string }

// content is what a message says, once, for its text and its HTML part.
type content struct {
	Headline string
	Summary  string
	Facts    []fact
	Lines    []string // a source event's error, a component message's or a flood's lines
	Updates  []updateText
	Note     string // updates or changes not shown
	changes  []model.Change
	inc      *model.Incident
	Links    []link
}

func parts(n *notify.Notification) *content {
	c := &content{Headline: kit.Cut(kit.OneLine(notify.Headline(*n)), lineLimit)}
	switch {
	case n.Digest != nil:
		c.Headline = notify.DigestLine(n.Digest)
		c.addLink("Every incident and change is in statuswatch", n.Digest.Link)
	case n.Flood != nil:
		c.Headline = kit.Cut(kit.OneLine(notify.FloodLine(n.SourceTitle, n.Flood)), lineLimit)
		for _, it := range n.Flood.Items {
			c.Lines = append(c.Lines, kit.Cut(kit.OneLine(it.What+": "+it.Title), lineLimit))
		}
		if m := notify.FloodMore(n.Flood); m != "" {
			c.Lines = append(c.Lines, m)
		}
		c.addLink("Every incident in statuswatch", n.Flood.Link)
	case n.Components != nil:
		c.Lines = notify.ComponentLines(n.Components, n.Told())
		if n.IncidentTitle != "" {
			c.Summary = "In the incident " + kit.Cut(kit.OneLine(n.IncidentTitle), lineLimit)
		}
		c.addLink("Components in statuswatch", n.SourceLink)
	case kit.Incident(n):
		c.incident(n)
	default:
		if e := strings.TrimSpace(n.Message.Text); e != "" {
			c.Lines = append(c.Lines, kit.Cut(e, lineLimit*2))
		}
		if n.Message.Event == model.EventSourceDown {
			c.Summary = "Its incidents are not watched until it reads again; a message follows when it does."
		}
	}
	return c
}

func (c *content) addLink(label, u string) {
	if u != "" {
		c.Links = append(c.Links, link{label, u})
	}
}

func (c *content) incident(n *notify.Notification) {
	v := n.Version
	inc := &v.Incident
	c.inc = inc
	c.Summary = kit.Cut(kit.OneLine(v.Summary), lineLimit)
	switch {
	case n.Message.Event == model.EventRemoved:
		c.Summary = fmt.Sprintf("It is no longer listed on the vendor's page. Last status: %s.", kit.Words(inc.Status))
	case notify.IsReminder(&n.Message):
		c.Summary = "Scheduled " + notify.Window(inc) + "."
	}
	c.Facts = []fact{{"Status", kit.Cut(kit.OneLine(kit.Words(inc.Status)), 100)}, {"Impact", kit.Cut(kit.OneLine(string(inc.Impact)), 100)}}
	if len(inc.Components) > 0 {
		c.Facts = append(c.Facts, fact{"Components", kit.Cut(kit.OneLine(strings.Join(inc.Components, ", ")), lineLimit)})
	}
	if inc.Kind == model.KindMaintenance && !inc.ScheduledFor.IsZero() {
		s := diff.FormatTime(inc.ScheduledFor)
		if !inc.ScheduledUntil.IsZero() {
			s += " → " + diff.FormatTime(inc.ScheduledUntil)
		}
		c.Facts = append(c.Facts, fact{"Scheduled", s})
	} else if !inc.StartedAt.IsZero() {
		c.Facts = append(c.Facts, fact{"Started", diff.FormatTime(inc.StartedAt)})
	}
	if !inc.ResolvedAt.IsZero() {
		c.Facts = append(c.Facts, fact{"Resolved", diff.FormatTime(inc.ResolvedAt)})
	}
	if ev := n.Message.Event; (ev == model.EventNew || ev == model.EventRemoved || ev == model.EventMaintenanceSoon) && n.IncidentLink != "" {
		c.addLink("History and diffs", n.IncidentLink)
	} else {
		c.addLink("Full diff", n.Link)
	}
	c.addLink("Vendor page", kit.VendorURL(inc.URL))
	switch n.Message.Event {
	case model.EventRemoved, model.EventMaintenanceSoon: // no change set to show
		return
	case model.EventNew:
		if u := kit.LatestUpdate(inc); u != nil && strings.TrimSpace(u.Body) != "" {
			c.Updates = append(c.Updates, newUpdate("Latest update", u))
		}
		return
	}
	added := kit.AddedUpdates(v)
	isAdded := map[string]bool{}
	for _, u := range added {
		isAdded["updates["+u.ID+"]"] = true
	}
	var notShown []string
	if len(added) > maxUpdates {
		notShown = append(notShown, fmt.Sprintf("%d earlier new updates", len(added)-maxUpdates))
		added = added[len(added)-maxUpdates:]
	}
	for _, u := range added {
		c.Updates = append(c.Updates, newUpdate("Update", u))
	}
	size := 0
	for _, ch := range v.Changes {
		if isAdded[ch.Field] {
			continue
		}
		if len(c.changes) == maxChanges || size > maxDiff {
			notShown = append(notShown, "more changes")
			break
		}
		c.changes = append(c.changes, ch)
		size += len(deref(ch.Before)) + len(deref(ch.After))
	}
	if len(notShown) > 0 {
		c.Note = strings.Join(notShown, " and ") + " are not shown here: the full diff has them."
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func newUpdate(label string, u *model.Update) updateText {
	return updateText{Label: label, Caption: diff.UpdateCaption(u), Body: kit.Cut(strings.TrimSpace(u.Body), updateLimit)}
}

// text is the text/plain part: the word diff marked as [-removed-]{+added+}.
func (c *content) text() string {
	var b strings.Builder
	b.WriteString(c.Headline + "\n")
	if c.Summary != "" {
		b.WriteString("\n" + c.Summary + "\n")
	}
	paragraph(&b, c.Facts, func(f fact) string { return f.Name + ": " + f.Value })
	paragraph(&b, c.Lines, func(l string) string { return l })
	for _, u := range c.Updates {
		b.WriteString("\n" + u.Label)
		if u.Caption != "" {
			b.WriteString(" · " + u.Caption)
		}
		b.WriteString(":\n" + u.Body + "\n")
	}
	if len(c.changes) > 0 {
		b.WriteString("\nWhat changed:\n" + diff.Terminal(c.changes, diff.Plain, c.inc))
	}
	if c.Note != "" {
		b.WriteString("\n" + c.Note + "\n")
	}
	paragraph(&b, c.Links, func(l link) string { return l.Label + ": " + l.URL })
	b.WriteString("\n-- \nSent by statuswatch.\n")
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// paragraph writes items to the text part, after a blank line, one line each; nothing
// for none.
func paragraph[T any](b *strings.Builder, items []T, line func(T) string) {
	if len(items) == 0 {
		return
	}
	b.WriteString("\n")
	for _, it := range items {
		b.WriteString(line(it) + "\n")
	}
}

// The change view's marking, inline: mail clients drop or ignore stylesheets, so each
// mark carries its own style (the UI's colours: red removed, blue added).
var inlineStyles = strings.NewReplacer(
	`<del>`, `<del style="color:#991b1b;background:#fee2e2;text-decoration:line-through">`,
	`<ins>`, `<ins style="color:#1e40af;background:#dbeafe;text-decoration:underline">`,
	`<span class="vh">`, `<span class="vh" style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">`,
	`<dd class="txt">`, `<dd class="txt" style="white-space:pre-wrap;margin:0 0 8px 0">`,
	`<h3 class="chg-h">`, `<h3 class="chg-h" style="font-size:14px;margin:12px 0 4px 0">`,
	`<code class="chg-key">`, `<code class="chg-key" style="color:#6b7280;font-size:12px">`,
	`<dt>`, `<dt style="color:#6b7280;font-size:12px">`,
)

var page = template.Must(template.New("mail").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Headline}}</title></head>
<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#111827">
<h2 style="font-size:16px;margin:0 0 8px 0">{{.Headline}}</h2>
{{if .Summary}}<p style="color:#4b5563;margin:0 0 8px 0">{{.Summary}}</p>
{{end}}{{if .Facts}}<table style="border-collapse:collapse;margin:0 0 8px 0">{{range .Facts}}
<tr><th style="text-align:left;padding:2px 12px 2px 0;color:#4b5563;font-weight:600">{{.Name}}</th><td style="padding:2px 0">{{.Value}}</td></tr>{{end}}
</table>
{{end}}{{range .Lines}}<p style="margin:0 0 4px 0">{{.}}</p>
{{end}}{{range .Updates}}<h3 style="font-size:14px;margin:12px 0 4px 0">{{.Label}}{{if .Caption}} <span style="color:#6b7280;font-weight:400">· {{.Caption}}</span>{{end}}</h3>
<p style="white-space:pre-wrap;margin:0 0 8px 0">{{.Body}}</p>
{{end}}{{with .Diff}}<h3 style="font-size:14px;margin:16px 0 4px 0">What changed</h3>
{{.}}{{end}}{{if .Note}}<p style="color:#4b5563"><em>{{.Note}}</em></p>
{{end}}{{if .Links}}<p style="margin:16px 0 0 0">{{range $i, $l := .Links}}{{if $i}} · {{end}}<a href="{{$l.URL}}">{{$l.Label}}</a>{{end}}</p>
{{end}}<p style="color:#9ca3af;font-size:12px;margin:16px 0 0 0">Sent by statuswatch.</p>
</body></html>
`))

// html is the text/html part.
func (c *content) html() (string, error) {
	data := struct {
		*content
		Diff template.HTML
	}{content: c}
	if len(c.changes) > 0 {
		data.Diff = template.HTML(inlineStyles.Replace(string(diff.HTML(c.changes, c.inc))))
	}
	var b strings.Builder
	if err := page.Execute(&b, data); err != nil {
		return "", err
	}
	s := b.String()
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, nil
}
