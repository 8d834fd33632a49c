package diff

import (
	"html"
	"html/template"
	"strings"
	"unicode"

	"github.com/statuswatch/statuswatch/internal/model"
)

// HTML renders a change set for the web's "what changed" view, like a wiki diff: one block per
// field with its label and its machine name, then Before and After side by side (the
// page's CSS stacks them on a phone).
//
//	<div class="chg"><h3 class="chg-h">Status <code class="chg-key">status</code></h3>
//	<dl class="ba"><div class="ba-before"><dt>Before</dt><dd><del>…</del></dd></div>
//	<div class="ba-after"><dt>After</dt><dd><ins>…</ins></dd></div></dl></div>
//
// Text fields (title and every body) show their word diff: Before is the unchanged
// context (<span class="eq">) with the removed words in <del>, After the same context
// with the added words in <ins>. Components mark the names removed and added, with the
// names kept as context. Other fields show the whole old value in <del> and the new one
// in <ins>. A nil Before reads "not present", a nil After "removed", an empty
// value "(empty)". Colour is never the only cue: every <del> and <ins> starts with a
// visually hidden "removed: " or "added: " for screen readers, and the stylesheet
// strikes through and underlines them.
//
// Every vendor string is escaped; control characters other than tab and newline are
// shown escaped (\x1b) as in Text, CR LF reads as a line break, and invalid UTF-8 as
// U+FFFD. Line breaks are kept as newlines: the value elements (<dd class="txt">) are
// meant for white-space: pre-wrap, so the output has no newline inside them. An empty
// change set renders as <p class="chg-none">No changes.</p>.
//
// incs are the versions the change set lies between, the one after it first: given
// them, a change to an update says which update it is (UpdateCaption) in a
// <span class="chg-note"> after the label, which a "· " (<span class="sep">) parts from
// it where no stylesheet sets the note on a line of its own. Time values read as FormatTime writes them.
func HTML(changes []model.Change, incs ...*model.Incident) template.HTML {
	var b strings.Builder
	if len(changes) == 0 {
		b.WriteString(`<p class="chg-none">No changes.</p>` + "\n")
		return template.HTML(b.String())
	}
	b.WriteString(`<div class="changes">` + "\n")
	for _, c := range changes {
		c = readable(c)
		kind := "chg-edit"
		switch {
		case c.Before == nil:
			kind = "chg-new"
		case c.After == nil:
			kind = "chg-removed"
		}
		b.WriteString(`<div class="chg ` + kind + `">` + "\n")
		b.WriteString(`<h3 class="chg-h">`)
		b.WriteString(htmlText(htmlLabel(c)))
		if note := caption(c.Field, incs); note != "" {
			b.WriteString(` <span class="chg-note"><span class="sep" aria-hidden="true">· </span>` + htmlText(note) + `</span>`)
		}
		b.WriteString(` <code class="chg-key">`)
		b.WriteString(htmlText(c.Field))
		b.WriteString("</code></h3>\n")
		b.WriteString(`<dl class="ba">` + "\n")
		writeSide(&b, "Before", c.Before, "not present", c, model.OpDelete)
		writeSide(&b, "After", c.After, "removed", c, model.OpInsert)
		b.WriteString("</dl>\n</div>\n")
	}
	b.WriteString("</div>\n")
	return template.HTML(b.String())
}

// writeSide writes one side of a field: its value, or missing when the pointer is nil.
// Text fields show the equal runs and the runs of kind op (delete for Before, insert for
// After); components show the names both sides share as context and the others marked;
// any other value is marked whole.
func writeSide(b *strings.Builder, name string, v *string, missing string, c model.Change, op string) {
	b.WriteString(`<div class="ba-` + strings.ToLower(name) + `"><dt>` + name + `</dt>`)
	switch {
	case v == nil:
		b.WriteString(`<dd class="none">` + missing + `</dd>`)
	case strings.TrimSpace(*v) == "":
		b.WriteString(`<dd class="none">(empty)</dd>`)
	case len(c.Ops) > 0:
		var segs segments
		for _, o := range c.Ops {
			switch o.Op {
			case model.OpEqual:
				segs.add(false, o.Text)
			case op:
				segs.add(true, o.Text)
			}
		}
		b.WriteString(`<dd class="txt">`)
		segs.write(b, op)
		b.WriteString(`</dd>`)
	case c.Field == FieldComponents && c.Before != nil && c.After != nil:
		other := c.After
		if op == model.OpInsert {
			other = c.Before
		}
		theirs := make(map[string]bool)
		for _, n := range strings.Split(*other, ", ") {
			theirs[n] = true
		}
		var segs segments
		for i, n := range strings.Split(*v, ", ") {
			if i > 0 {
				segs.add(false, ", ")
			}
			segs.add(!theirs[n], n)
		}
		b.WriteString(`<dd>`)
		segs.write(b, op)
		b.WriteString(`</dd>`)
	default:
		b.WriteString(`<dd>`)
		writeMarked(b, op, *v)
		b.WriteString(`</dd>`)
	}
	b.WriteString("</div>\n")
}

// segments is one side of a field as runs of context and marked text. Adjacent runs of
// one kind are merged, and whitespace at the ends of a marked run is moved out of it as
// context, so a strikethrough or underline never starts or ends on a space.
type segments []segment

type segment struct {
	marked bool
	text   string
}

func (s *segments) add(marked bool, text string) {
	if marked {
		core := strings.TrimLeftFunc(text, unicode.IsSpace)
		s.add(false, text[:len(text)-len(core)])
		trimmed := strings.TrimRightFunc(core, unicode.IsSpace)
		s.push(true, trimmed)
		s.add(false, core[len(trimmed):])
		return
	}
	s.push(false, text)
}

func (s *segments) push(marked bool, text string) {
	if text == "" {
		return
	}
	if n := len(*s); n > 0 && (*s)[n-1].marked == marked {
		(*s)[n-1].text += text
		return
	}
	*s = append(*s, segment{marked, text})
}

func (s segments) write(b *strings.Builder, op string) {
	for _, g := range s {
		if g.marked {
			writeMarked(b, op, g.text)
		} else {
			b.WriteString(`<span class="eq">` + htmlText(g.text) + `</span>`)
		}
	}
}

// writeMarked writes s inside <del> or <ins>, with the hidden cue for screen readers.
func writeMarked(b *strings.Builder, op, s string) {
	if op == model.OpDelete {
		b.WriteString(`<del><span class="vh">removed: </span>` + htmlText(s) + `</del>`)
		return
	}
	b.WriteString(`<ins><span class="vh">added: </span>` + htmlText(s) + `</ins>`)
}

// htmlLabel names a field for people, as the Slack rendering does. label escapes an
// unknown field name for mrkdwn; here it is shown raw and escaped for HTML instead (a
// known field's label never equals its escaped name: "Title" is not "title").
func htmlLabel(c model.Change) string {
	l := label(c)
	if l == EscapeMrkdwn(c.Field) {
		return c.Field
	}
	return l
}

var newlines = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// htmlText escapes vendor text for HTML: valid UTF-8, line breaks as newlines, other
// control characters shown escaped.
func htmlText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = terminalSafe(newlines.Replace(s))
	return html.EscapeString(s)
}
