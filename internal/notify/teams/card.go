package teams

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
)

// Vendor text goes only into TextRuns of RichTextBlocks, never into a TextBlock or a
// FactSet: a TextRun is not Markdown (Adaptive Cards render its text as it is), so a
// vendor's **, [link](javascript:…), HTML or line breaks cannot format or link
// anything. TextBlocks carry our own words only. Links are Action.OpenUrl and TextRun
// selectActions with URLs that are ours or a vendor's http(s) page.

// MaxBytes is the most a message may weigh: Teams refuses messages past about 28 KB,
// envelope included, so every card is cut to this, with a link to the full diff.
const MaxBytes = 27 << 10

// Budgets of a card's parts, in runes, so that the usual card needs no cut.
const (
	headlineLimit = 300
	factLimit     = 600
	summaryLimit  = 500
	updateLimit   = 2000
	fieldLimit    = 3000 // one field's runs together
	errorLimit    = 1000
	maxUpdates    = 3
	maxFields     = 40
)

// Adaptive Card colours: removed words in attention (red) and struck through, added
// words in good (green) and underlined, so colour is never the only cue.
const (
	colorRemoved = "attention"
	colorAdded   = "good"
)

// message is what a Workflows webhook takes: a message with one Adaptive Card
// attachment. The golden files hold its JSON.
type message struct {
	Type        string       `json:"type"`
	Attachments []attachment `json:"attachments"`
}

type attachment struct {
	ContentType string  `json:"contentType"`
	ContentURL  *string `json:"contentUrl"`
	Content     card    `json:"content"`
}

type card struct {
	Schema  string            `json:"$schema"`
	Type    string            `json:"type"`
	Version string            `json:"version"`
	MSTeams map[string]string `json:"msteams,omitempty"`
	Body    []element         `json:"body"`
	Actions []action          `json:"actions,omitempty"`
}

// element is a TextBlock (our words) or a RichTextBlock (TextRuns).
type element struct {
	Type      string    `json:"type"`
	Text      string    `json:"text,omitempty"`
	Inlines   []textRun `json:"inlines,omitempty"`
	Wrap      bool      `json:"wrap,omitempty"`
	Weight    string    `json:"weight,omitempty"`
	Size      string    `json:"size,omitempty"`
	IsSubtle  bool      `json:"isSubtle,omitempty"`
	Separator bool      `json:"separator,omitempty"`
	Spacing   string    `json:"spacing,omitempty"`

	cuttable bool // part of the change set: dropped from the end when the card is too big
}

type textRun struct {
	Type          string  `json:"type"`
	Text          string  `json:"text"`
	Weight        string  `json:"weight,omitempty"`
	Size          string  `json:"size,omitempty"`
	Color         string  `json:"color,omitempty"`
	IsSubtle      bool    `json:"isSubtle,omitempty"`
	Italic        bool    `json:"italic,omitempty"`
	Strikethrough bool    `json:"strikethrough,omitempty"`
	Underline     bool    `json:"underline,omitempty"`
	SelectAction  *action `json:"selectAction,omitempty"`
}

type action struct {
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

func run(text string) textRun { return textRun{Type: "TextRun", Text: text} }

func bold(text string) textRun {
	r := run(text)
	r.Weight = "Bolder"
	return r
}

func subtle(text string) textRun {
	r := run(text)
	r.IsSubtle = true
	return r
}

func rich(runs ...textRun) element {
	return element{Type: "RichTextBlock", Inlines: runs}
}

func openURL(title, u string) action { return action{Type: "Action.OpenUrl", Title: title, URL: u} }

// render builds the message for n: one card per change set, or for a source event, a
// digest, a flood or a component change.
func render(n *notify.Notification) message {
	var body []element
	var actions []action
	head := rich(run(kit.Cut(kit.OneLine(notify.Headline(*n)), headlineLimit)))
	head.Inlines[0].Weight, head.Inlines[0].Size = "Bolder", "Medium"
	if n.Digest != nil {
		head.Inlines[0].Text = kit.Cut(notify.DigestLine(n.Digest), headlineLimit*4)
	}
	body = append(body, head)
	more := ""
	switch {
	case n.Digest != nil:
		actions = link(actions, "Open statuswatch", n.Digest.Link)
	case n.Flood != nil:
		body, actions = flood(n, body, actions)
	case n.Components != nil:
		if n.IncidentTitle != "" {
			body = append(body, rich(subtle("In the incident "), subtle(kit.Cut(kit.OneLine(n.IncidentTitle), headlineLimit))))
		}
		for _, l := range notify.ComponentLines(n.Components, n.Told()) {
			body = append(body, rich(run(l)))
		}
		actions = link(actions, "Components in statuswatch", n.SourceLink)
	case kit.Incident(n):
		body, more = incident(n, body)
		actions = incidentLinks(n, actions)
	default:
		if e := strings.TrimSpace(n.Message.Text); e != "" {
			body = append(body, rich(run(kit.Cut(e, errorLimit))))
		}
		if n.Message.Event == model.EventSourceDown {
			body = append(body, element{Type: "TextBlock", Text: "Its incidents are not watched until it reads again; a message follows when it does.", Wrap: true, IsSubtle: true})
		}
	}
	if n.PlainText {
		// The one retry after Teams refused the card: the headline, the summary and the
		// links, nothing else.
		body = body[:min(len(body), 2)]
	}
	c := card{
		Schema: "http://adaptivecards.io/schemas/adaptive-card.json", Type: "AdaptiveCard", Version: "1.4",
		MSTeams: map[string]string{"width": "Full"},
		Body:    body, Actions: actions,
	}
	return fit(envelope(c), more)
}

func envelope(c card) message {
	return message{Type: "message", Attachments: []attachment{{ContentType: "application/vnd.microsoft.card.adaptive", Content: c}}}
}

func link(actions []action, title, u string) []action {
	if u == "" {
		return actions
	}
	return append(actions, openURL(title, u))
}

// incidentLinks are the card's buttons: our full diff (or the incident's page for its
// first card and its removal) and the vendor's page.
func incidentLinks(n *notify.Notification, actions []action) []action {
	if ev := n.Message.Event; (ev == model.EventNew || ev == model.EventRemoved || ev == model.EventMaintenanceSoon) && n.IncidentLink != "" {
		actions = link(actions, "History and diffs", n.IncidentLink)
	} else {
		actions = link(actions, "Full diff", n.Link)
	}
	return link(actions, "Vendor page", kit.VendorURL(n.Version.Incident.URL))
}

// incident is a change set's card: status facts, the summary, the new updates, the word
// diff of everything else. more is where the full diff is, for a cut.
func incident(n *notify.Notification, body []element) ([]element, string) {
	v := n.Version
	inc := &v.Incident
	summary := v.Summary
	switch {
	case n.Message.Event == model.EventRemoved:
		summary = fmt.Sprintf("It is no longer listed on the vendor's page. Last status: %s.", kit.Words(inc.Status))
	case notify.IsReminder(&n.Message):
		summary = "Scheduled " + notify.Window(inc) + "."
	}
	body = append(body, rich(subtle(kit.Cut(kit.OneLine(summary), summaryLimit))))
	facts := []textRun{bold("Status: "), run(kit.Cut(kit.OneLine(kit.Words(inc.Status)), 100)), bold(" · Impact: "), run(kit.Cut(kit.OneLine(string(inc.Impact)), 100))}
	if len(inc.Components) > 0 {
		facts = append(facts, bold(" · Components: "), run(kit.Cut(kit.OneLine(strings.Join(inc.Components, ", ")), factLimit)))
	}
	switch {
	case inc.Kind == model.KindMaintenance && !inc.ScheduledFor.IsZero():
		s := diff.FormatTime(inc.ScheduledFor)
		if !inc.ScheduledUntil.IsZero() {
			s += " → " + diff.FormatTime(inc.ScheduledUntil)
		}
		facts = append(facts, bold(" · Scheduled: "), run(s))
	case !inc.StartedAt.IsZero():
		facts = append(facts, bold(" · Started: "), run(diff.FormatTime(inc.StartedAt)))
	}
	if !inc.ResolvedAt.IsZero() {
		facts = append(facts, bold(" · Resolved: "), run(diff.FormatTime(inc.ResolvedAt)))
	}
	body = append(body, rich(facts...))
	more := n.Link
	if more == "" {
		more = kit.VendorURL(inc.URL)
	}
	switch n.Message.Event {
	case model.EventRemoved, model.EventMaintenanceSoon: // no change set to show
		return body, more
	case model.EventNew:
		if u := kit.LatestUpdate(inc); u != nil && strings.TrimSpace(u.Body) != "" {
			body = append(body, updateBlock("Latest update", u))
		}
		return body, more
	}
	added := kit.AddedUpdates(v)
	shown := added[max(0, len(added)-maxUpdates):]
	if len(added) > len(shown) {
		body = append(body, element{Type: "TextBlock", Text: fmt.Sprintf("%d earlier new updates not shown.", len(added)-len(shown)), Wrap: true, IsSubtle: true})
	}
	isAdded := map[string]bool{}
	for _, u := range added {
		isAdded["updates["+u.ID+"]"] = true
	}
	for _, u := range shown {
		e := updateBlock("Update", u)
		e.cuttable = true
		body = append(body, e)
	}
	var rest []model.Change
	for _, c := range v.Changes {
		if !isAdded[c.Field] {
			rest = append(rest, c)
		}
	}
	fields := diff.Runs(rest, inc)
	for i, f := range fields {
		if i == maxFields {
			body = append(body, element{Type: "TextBlock", Text: fmt.Sprintf("%d more changed fields not shown.", len(fields)-maxFields), Wrap: true, IsSubtle: true, cuttable: true})
			break
		}
		body = append(body, fieldBlock(f))
	}
	return body, more
}

// updateBlock is one vendor update: its label and caption, then its text.
func updateBlock(label string, u *model.Update) element {
	runs := []textRun{bold(label)}
	if c := diff.UpdateCaption(u); c != "" {
		runs = append(runs, subtle(" · "+c))
	}
	runs = append(runs, run("\n"+kit.Cut(strings.TrimSpace(u.Body), updateLimit)))
	e := rich(runs...)
	e.Separator = true
	return e
}

// fieldBlock is one field's word diff: removed words struck through in attention
// colour, added words underlined in good colour, unchanged context plain.
func fieldBlock(f diff.FieldRuns) element {
	runs := []textRun{bold(f.Label)}
	if f.Note != "" {
		runs = append(runs, subtle(" · "+f.Note))
	}
	runs = append(runs, run(": "))
	left := fieldLimit
	for _, r := range f.Runs {
		if left <= 0 {
			runs = append(runs, subtle(" …"))
			break
		}
		text := kit.Cut(r.Text, left)
		left -= utf8.RuneCountInString(text)
		t := run(text)
		switch r.Op {
		case model.OpDelete:
			t.Strikethrough, t.Color = true, colorRemoved
		case model.OpInsert:
			t.Underline, t.Color = true, colorAdded
		case "":
			t.IsSubtle, t.Italic = true, true
		}
		runs = append(runs, t)
	}
	e := rich(runs...)
	e.cuttable = true
	return e
}

// flood is the one card that stands for many incident messages of one poll.
func flood(n *notify.Notification, body []element, actions []action) ([]element, []action) {
	body[0].Inlines[0].Text = kit.Cut(kit.OneLine(notify.FloodLine(n.SourceTitle, n.Flood)), headlineLimit)
	for _, it := range n.Flood.Items {
		r := run(kit.Cut(kit.OneLine(it.What+": "+it.Title), headlineLimit))
		if it.Link != "" {
			a := openURL("", it.Link)
			r.SelectAction = &a
		} else if u := kit.VendorURL(it.VendorURL); u != "" {
			a := openURL("", u)
			r.SelectAction = &a
		}
		body = append(body, rich(r))
	}
	if m := notify.FloodMore(n.Flood); m != "" {
		body = append(body, element{Type: "TextBlock", Text: m, Wrap: true, IsSubtle: true})
	}
	return body, link(actions, "Every incident in statuswatch", n.Flood.Link)
}

// encode is the message's JSON as it is sent: HTML characters left as they are, since
// a card is JSON read by Teams, not a page.
func encode(m message) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // nothing in a message can fail to encode
	return bytes.TrimRight(b.Bytes(), "\n")
}

// fit cuts a message over MaxBytes: it drops the change set's parts from the end and
// says how many are not shown, with a link to more; then, if the card is still too
// big, shortens the longest runs.
func fit(m message, more string) message {
	if len(encode(m)) <= MaxBytes {
		return m
	}
	c := &m.Attachments[0].Content
	dropped := 0
	for len(encode(m)) > MaxBytes {
		i := lastCuttable(c.Body)
		if i < 0 {
			break
		}
		c.Body = append(c.Body[:i], c.Body[i+1:]...)
		dropped++
	}
	if dropped > 0 {
		notice := subtle(fmt.Sprintf("Cut to fit Teams: %d more parts of this change not shown.", dropped))
		notice.Italic = true
		blk := rich(notice)
		if more != "" {
			open := run(" Open the full diff")
			a := openURL("", more)
			open.SelectAction, open.Color = &a, "accent"
			blk.Inlines = append(blk.Inlines, open)
		}
		c.Body = append(c.Body, blk)
	}
	// Still too big (a headline and facts alone cannot be, but a huge single field
	// kept by no cut can): halve the longest run until it fits.
	for tries := 0; len(encode(m)) > MaxBytes && tries < 64; tries++ {
		var longest *textRun
		for i := range c.Body {
			for j := range c.Body[i].Inlines {
				r := &c.Body[i].Inlines[j]
				if longest == nil || len(r.Text) > len(longest.Text) {
					longest = r
				}
			}
		}
		if longest == nil || len(longest.Text) < 16 {
			break
		}
		longest.Text = kit.Cut(longest.Text, utf8.RuneCountInString(longest.Text)/2)
	}
	return m
}

func lastCuttable(body []element) int {
	for i := len(body) - 1; i >= 0; i-- {
		if body[i].cuttable {
			return i
		}
	}
	return -1
}
