package diff

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Summary writes the one-line summary of a change set, clause by clause in field order,
// e.g. "Status monitoring → resolved; 1 update added; postmortem published.". A change
// set from version 0 reads "New incident: investigating, major impact; 1 update." (or
// "New maintenance: scheduled; …"); an empty one reads "No changes.". The sentence
// quotes vendor strings (statuses, component names) as they are: escape it for the
// medium it goes to.
func Summary(changes []model.Change) string {
	if len(changes) == 0 {
		return "No changes."
	}
	byField := make(map[string]model.Change, len(changes))
	var added, edited, removed int
	editedIDs := make(map[string]bool)
	allNew, allGone := true, true
	for _, c := range changes {
		byField[c.Field] = c
		allNew = allNew && c.Before == nil
		allGone = allGone && c.After == nil
		id, sub, ok := updateField(c.Field)
		switch {
		case !ok:
		case sub == "" && c.Before == nil:
			added++
		case sub == "":
			removed++
		case !editedIDs[id]:
			editedIDs[id] = true
			edited++
		}
	}
	_, hasKind := byField[FieldKind]
	_, hasStatus := byField[FieldStatus]

	var clauses []string
	switch {
	case allNew && (hasKind || hasStatus):
		clauses = newClauses(byField, added)
	case allGone && (hasKind || hasStatus):
		clauses = []string{"incident removed"}
	default:
		clauses = editClauses(byField, added, edited, removed)
	}
	s := strings.Join(clauses, "; ")
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:] + "."
}

// UpdateField splits a change field "updates[<id>]" (an update added or removed) or
// "updates[<id>].body|status" (an update edited) into the update's id and "", "body"
// or "status"; ok is false for any other field.
func UpdateField(field string) (id, sub string, ok bool) { return updateField(field) }

// updateField splits "updates[<id>]" and "updates[<id>].body|status".
func updateField(field string) (id, sub string, ok bool) {
	rest, ok := strings.CutPrefix(field, "updates[")
	if !ok {
		return "", "", false
	}
	for _, s := range []string{"].body", "].status", "]"} {
		if id, ok := strings.CutSuffix(rest, s); ok {
			return id, strings.TrimPrefix(s, "]"), true
		}
	}
	return "", "", false
}

func valueAfter(c model.Change) string {
	if c.After == nil {
		return ""
	}
	return *c.After
}

func valueBefore(c model.Change) string {
	if c.Before == nil {
		return ""
	}
	return *c.Before
}

// word shows an enum value (in_progress) as words (in progress).
func word(s string) string { return strings.ReplaceAll(s, "_", " ") }

// newClauses describe a version 0 → 1 change set: what the incident is now.
func newClauses(byField map[string]model.Change, updates int) []string {
	kind := "incident"
	if k := valueAfter(byField[FieldKind]); k != "" {
		kind = word(k)
	}
	var what []string
	if s := valueAfter(byField[FieldStatus]); s != "" {
		what = append(what, word(s))
	}
	// A maintenance's impact is "maintenance": saying so again adds nothing.
	if i := valueAfter(byField[FieldImpact]); i != "" && kind != string(model.KindMaintenance) {
		switch model.Impact(i) {
		case model.ImpactNone:
			what = append(what, "no impact")
		default:
			what = append(what, word(i)+" impact")
		}
	}
	first := "new " + kind
	if len(what) > 0 {
		first += ": " + strings.Join(what, ", ")
	}
	clauses := []string{first}
	if updates > 0 {
		clauses = append(clauses, plural(updates, "update"))
	}
	if _, ok := byField[FieldPostmortemBody]; ok {
		clauses = append(clauses, "postmortem published")
	}
	return clauses
}

// editClauses describe a change set between two versions, in field order.
func editClauses(byField map[string]model.Change, added, edited, removed int) []string {
	var clauses []string
	if c, ok := byField[FieldTitle]; ok {
		clauses = append(clauses, setChangedRemoved(c, "title", "set", "edited", "removed"))
	}
	for _, f := range []string{FieldStatus, FieldImpact, FieldKind} {
		c, ok := byField[f]
		switch {
		case !ok:
		case c.Before == nil:
			clauses = append(clauses, f+" set to "+word(valueAfter(c)))
		case c.After == nil:
			clauses = append(clauses, f+" removed")
		default:
			clauses = append(clauses, f+" "+word(valueBefore(c))+" → "+word(valueAfter(c)))
		}
	}
	// A resolved time appearing together with a status change to resolved (or completed)
	// says nothing the status clause has not said.
	closing := false
	if c, ok := byField[FieldStatus]; ok && c.After != nil && !model.Status(*c.After).Open() {
		closing = true
	}
	times := []struct{ field, name string }{
		{FieldStartedAt, "start time"},
		{FieldResolvedAt, "resolved time"},
		{FieldScheduledFor, "scheduled start"},
		{FieldScheduledUntil, "scheduled end"},
	}
	for _, t := range times {
		c, ok := byField[t.field]
		if !ok || (t.field == FieldResolvedAt && closing && c.Before == nil) {
			continue
		}
		clauses = append(clauses, setChangedRemoved(c, t.name, "set", "changed", "removed"))
	}
	if c, ok := byField[FieldComponents]; ok {
		clauses = append(clauses, componentsClause(c))
	}
	for _, n := range []struct {
		n    int
		verb string
	}{{added, "added"}, {edited, "edited"}, {removed, "removed"}} {
		if n.n > 0 {
			clauses = append(clauses, plural(n.n, "update")+" "+n.verb)
		}
	}
	body, hasBody := byField[FieldPostmortemBody]
	_, hasAt := byField[FieldPostmortemPublishedAt]
	switch {
	case hasBody && body.Before == nil:
		clauses = append(clauses, "postmortem published")
	case hasBody && body.After == nil:
		clauses = append(clauses, "postmortem removed")
	case hasBody || hasAt:
		clauses = append(clauses, "postmortem edited")
	}
	return clauses
}

func setChangedRemoved(c model.Change, name, set, changed, removed string) string {
	switch {
	case c.Before == nil:
		return name + " " + set
	case c.After == nil:
		return name + " " + removed
	}
	return name + " " + changed
}

// componentsClause names the components added (+) and removed (−) when there are few,
// and counts them otherwise, to keep the summary one short line.
func componentsClause(c model.Change) string {
	split := func(p *string) map[string]bool {
		m := make(map[string]bool)
		if p != nil {
			for _, s := range strings.Split(*p, ", ") {
				m[s] = true
			}
		}
		return m
	}
	was, is := split(c.Before), split(c.After)
	var plus, minus []string
	if c.After != nil {
		for _, s := range strings.Split(*c.After, ", ") {
			if !was[s] {
				plus = append(plus, s)
			}
		}
	}
	if c.Before != nil {
		for _, s := range strings.Split(*c.Before, ", ") {
			if !is[s] {
				minus = append(minus, s)
			}
		}
	}
	switch {
	case len(plus)+len(minus) == 0:
		return "components changed"
	case len(plus)+len(minus) > 3:
		var parts []string
		if len(plus) > 0 {
			parts = append(parts, fmt.Sprintf("%d added", len(plus)))
		}
		if len(minus) > 0 {
			parts = append(parts, fmt.Sprintf("%d removed", len(minus)))
		}
		return "components: " + strings.Join(parts, ", ")
	}
	var parts []string
	for _, s := range plus {
		parts = append(parts, "+"+s)
	}
	for _, s := range minus {
		parts = append(parts, "−"+s)
	}
	return "components: " + strings.Join(parts, ", ")
}

// plural writes "1 update", "2 updates".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
