package diff

import (
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// FieldRuns is one field of a change set as a rich-text renderer (a Teams Adaptive Card)
// lays it out: its label for people, its note (which update it is, as in HTML) and its
// machine name, then the runs of text that make its change.
type FieldRuns struct {
	Label, Note, Field string
	Runs               []Run
}

// Run is a piece of a field's change. Op is model.OpEqual for unchanged context,
// model.OpDelete for removed text, model.OpInsert for added text, and "" for our own
// words between them (" → ", "not present", "removed", "(empty)").
type Run struct {
	Text string
	Op   string
}

// Runs lays a change set out as runs, one FieldRuns per change, in order. Text fields
// are their word diff, long unchanged stretches shortened as WordDiff shortens them
// (ContextWords on each side of a change); other fields are the old value removed, " →
// ", the new value added, with "not present" and "removed" for a missing side. Vendor
// text is valid UTF-8 with CR LF as "\n" and control characters other than tab and
// newline dropped, and is otherwise as the vendor wrote it: the renderer escapes it for
// its medium. Time values read as FormatTime writes them; incs are as for HTML.
func Runs(changes []model.Change, incs ...*model.Incident) []FieldRuns {
	out := make([]FieldRuns, 0, len(changes))
	for _, c := range changes {
		c = readable(c)
		f := FieldRuns{Label: htmlLabel(c), Note: caption(c.Field, incs), Field: cleanTerminal(c.Field)}
		add := func(text, op string) {
			if text != "" {
				f.Runs = append(f.Runs, Run{Text: text, Op: op})
			}
		}
		value := func(p *string, op string) {
			if strings.TrimSpace(*p) == "" {
				add("(empty)", "")
				return
			}
			add(cleanTerminal(*p), op)
		}
		switch {
		case len(c.Ops) > 0 && c.Before != nil && c.After != nil:
			for i, o := range c.Ops {
				text := cleanTerminal(o.Text)
				if o.Op == model.OpEqual {
					text = shorten(text, i > 0, i < len(c.Ops)-1)
				}
				add(text, o.Op)
			}
		case c.Before != nil && c.After != nil:
			value(c.Before, model.OpDelete)
			add(" → ", "")
			value(c.After, model.OpInsert)
		case c.After != nil:
			value(c.After, model.OpInsert)
		case c.Before != nil:
			value(c.Before, model.OpDelete)
			add(" (removed)", "")
		}
		out = append(out, f)
	}
	return out
}
