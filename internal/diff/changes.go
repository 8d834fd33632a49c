// Package diff compares versions of an incident field by field and renders the change
// sets (SPEC §5). It is pure and deterministic: no I/O, no clock, no logging, and the
// same output on any machine for the same input.
package diff

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Field names of a change set (SPEC §5). Updates are "updates[<id>]", with ".body" or
// ".status" appended when an existing update was edited.
const (
	FieldTitle                 = "title"
	FieldStatus                = "status"
	FieldImpact                = "impact"
	FieldKind                  = "kind"
	FieldStartedAt             = "started_at"
	FieldResolvedAt            = "resolved_at"
	FieldScheduledFor          = "scheduled_for"
	FieldScheduledUntil        = "scheduled_until"
	FieldComponents            = "components"
	FieldPostmortemBody        = "postmortem.body"
	FieldPostmortemPublishedAt = "postmortem.published_at"
)

// value is one version field as compared and shown. A field is absent when its
// comparison key is empty: an empty or all-whitespace string, a zero time, no components.
type value struct {
	show string // what the change set shows: the vendor's own string
	key  string // what is compared: show after the cosmetic normalisation
	text bool   // a text field, which carries word-diff ops
}

func (v value) present() bool { return v.key != "" }

func (v value) ptr() *string {
	if !v.present() {
		return nil
	}
	s := v.show
	return &s
}

func textValue(s string) value { return value{show: s, key: normSpace(s), text: true} }

func wordValue(s string) value { return value{show: s, key: s} }

func timeValue(t time.Time) value {
	if t.IsZero() {
		return value{}
	}
	s := t.UTC().Format(time.RFC3339)
	return value{show: s, key: s}
}

// normSpace collapses runs of whitespace and trims: whitespace is cosmetic (SPEC §4).
func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// normUpdate is one update of a version as compared: only its body and status are version
// fields (an update whose posted_at or format moved is unchanged).
type normUpdate struct {
	id     string
	body   value
	status value
}

// version is the normalised form of an incident that Changes and Fingerprint share, so
// that "equal fingerprints" and "no changes" can never disagree.
type version struct {
	scalars []namedValue // in change-set order
	updates []normUpdate // in the incident's order, duplicate ids dropped
	pmBody  value
	pmAt    value
}

type namedValue struct {
	name string
	v    value
}

// normalise gives the compared form of inc; nil is version 0, an incident with no field.
func normalise(inc *model.Incident) version {
	if inc == nil {
		inc = &model.Incident{}
	}
	names := componentNames(inc.Components)
	// The key separates names with NUL, not ", ", so {"A, B"} and {"A", "B"} differ.
	components := value{show: strings.Join(names, ", "), key: strings.Join(names, "\x00")}

	v := version{scalars: []namedValue{
		{FieldTitle, textValue(inc.Title)},
		{FieldStatus, wordValue(string(inc.Status))},
		{FieldImpact, wordValue(string(inc.Impact))},
		{FieldKind, wordValue(string(inc.Kind))},
		{FieldStartedAt, timeValue(inc.StartedAt)},
		{FieldResolvedAt, timeValue(inc.ResolvedAt)},
		{FieldScheduledFor, timeValue(inc.ScheduledFor)},
		{FieldScheduledUntil, timeValue(inc.ScheduledUntil)},
		{FieldComponents, components},
	}}
	seen := make(map[string]bool, len(inc.Updates))
	for _, u := range inc.Updates {
		// A provider should never repeat an id; if one does, the first occurrence wins,
		// the same way in Changes and Fingerprint.
		if seen[u.ID] {
			continue
		}
		seen[u.ID] = true
		v.updates = append(v.updates, normUpdate{id: u.ID, body: textValue(u.Body), status: wordValue(string(u.Status))})
	}
	if pm := inc.Postmortem; pm != nil {
		v.pmBody, v.pmAt = textValue(pm.Body), timeValue(pm.PublishedAt)
	}
	return v
}

// componentNames is the set of components as compared: whitespace-normalised, sorted,
// without duplicates or empty names, since their order is cosmetic (SPEC §4).
func componentNames(components []string) []string {
	names := make([]string, 0, len(components))
	for _, c := range components {
		if c = normSpace(c); c != "" {
			names = append(names, c)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Changes lists the field changes from before to after, in the order of SPEC §5: title,
// status, impact, kind, started_at, resolved_at, scheduled_for, scheduled_until,
// components, then updates in the order of after's updates (oldest first) followed by
// removed updates in their order in before, then postmortem.body and
// postmortem.published_at. A nil before is version 0 ("not present"): every field present
// in after is listed with a nil Before. A nil after lists every field of before as
// removed. Cosmetic differences are no change: whitespace in text fields, the order of
// components, an update's posted_at or format. Text fields (title and every body) carry
// word-diff ops. The result is nil when nothing changed.
func Changes(before, after *model.Incident) []model.Change {
	b, a := normalise(before), normalise(after)
	var out []model.Change
	for i, av := range a.scalars {
		out = appendChange(out, av.name, b.scalars[i].v, av.v)
	}

	old := make(map[string]normUpdate, len(b.updates))
	for _, u := range b.updates {
		old[u.id] = u
	}
	kept := make(map[string]bool, len(a.updates))
	for _, u := range a.updates {
		field := "updates[" + u.id + "]"
		bu, ok := old[u.id]
		if !ok {
			out = append(out, wholeUpdate(field, nil, &u.body.show))
			continue
		}
		kept[u.id] = true
		out = appendChange(out, field+".body", bu.body, u.body)
		out = appendChange(out, field+".status", bu.status, u.status)
	}
	for _, u := range b.updates {
		if !kept[u.id] {
			out = append(out, wholeUpdate("updates["+u.id+"]", &u.body.show, nil))
		}
	}

	out = appendChange(out, FieldPostmortemBody, b.pmBody, a.pmBody)
	return appendChange(out, FieldPostmortemPublishedAt, b.pmAt, a.pmAt)
}

// appendChange appends the change from x to y, if there is one.
func appendChange(out []model.Change, field string, x, y value) []model.Change {
	if x.key == y.key {
		return out
	}
	c := model.Change{Field: field, Before: x.ptr(), After: y.ptr()}
	if x.text || y.text {
		c.Ops = textOps(c.Before, c.After)
	}
	return append(out, c)
}

// wholeUpdate is an update added (before nil) or removed (after nil): its value is the
// body, present even when empty since the update itself is.
func wholeUpdate(field string, before, after *string) model.Change {
	c := model.Change{Field: field, Before: before, After: after}
	c.Ops = textOps(before, after)
	return c
}

// textOps is the word diff of a text field, where nil is the empty text.
func textOps(before, after *string) []model.Op {
	var x, y string
	if before != nil {
		x = *before
	}
	if after != nil {
		y = *after
	}
	return Words(x, y)
}

// Fingerprint hashes the version fields of inc after the cosmetic normalisation Changes
// applies, so that two incidents have the same fingerprint exactly when Changes finds no
// change between them. Updates are hashed in id order, since Changes ignores their order
// too. A nil inc hashes like version 0.
func Fingerprint(inc *model.Incident) [32]byte {
	v := normalise(inc)
	h := sha256.New()
	// Every string is length-prefixed, so no two different sequences hash the same input.
	var n [binary.MaxVarintLen64]byte
	put := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	put("statuswatch/diff.Fingerprint v1")
	for _, s := range v.scalars {
		put(s.v.key)
	}
	ups := slices.Clone(v.updates)
	slices.SortFunc(ups, func(x, y normUpdate) int { return strings.Compare(x.id, y.id) })
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(ups)))])
	for _, u := range ups {
		put(u.id)
		put(u.body.key)
		put(u.status.key)
	}
	put(v.pmBody.key)
	put(v.pmAt.key)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}
