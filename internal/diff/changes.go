// Package diff compares versions of an incident field by field and renders the change
// sets (docs/design.md §5). It is pure and deterministic: no I/O, no clock, no logging, and the
// same output on any machine for the same input.
package diff

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Field names of a change set (docs/design.md §5). Updates are "updates[<id>]", with ".body" or
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

// value is one version field as compared and shown. A field is absent when it is
// empty: an empty or all-whitespace text, a zero time, no components.
type value struct {
	show string // what the change set shows: the vendor's own string
	// key is what is compared when it differs from show (components); text fields
	// compare show word by word instead, so their normal form is never built.
	key  string
	text bool // a text field: whitespace is cosmetic, and it carries word-diff ops
}

func (v value) present() bool {
	if v.text {
		w, _ := nextWord(v.show, 0)
		return w != ""
	}
	return v.key != ""
}

// same reports whether x and y compare equal.
func (x value) same(y value) bool {
	if x.text || y.text {
		return sameWords(x.show, y.show)
	}
	return x.key == y.key
}

func (v value) ptr() *string {
	if !v.present() {
		return nil
	}
	s := v.show
	return &s
}

func textValue(s string) value { return value{show: s, text: true} }

func wordValue(s string) value { return value{show: s, key: s} }

func timeValue(t time.Time) value {
	if t.IsZero() {
		return value{}
	}
	s := t.UTC().Format(time.RFC3339)
	return value{show: s, key: s}
}

// normSpace collapses runs of whitespace and trims: whitespace is cosmetic (docs/design.md §4).
// A string already in that form is returned as it is, without allocating.
func normSpace(s string) string {
	if isNormalSpace(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isNormalSpace reports whether normSpace(s) == s: s has no white space but single
// spaces between words. (Its length alone does not tell: "a\tb" is as long as "a b".)
func isNormalSpace(s string) bool {
	end := -1 // where the last word ended; -1 before the first
	for i := 0; ; {
		var w string
		if w, i = nextWord(s, i); w == "" {
			return end == len(s) || end == -1 && s == ""
		}
		start := i - len(w)
		if end == -1 && start != 0 || end >= 0 && (start != end+1 || s[end] != ' ') {
			return false
		}
		end = i
	}
}

// asciiSpace is strings.Fields' set of ASCII white space.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// nextWord returns the first word of s at or after byte i, as strings.Fields splits
// (unicode.IsSpace separates words), and the index just past it; "" at the end.
func nextWord(s string, i int) (string, int) {
	for i < len(s) { // skip white space
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	start := i
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return s[start:i], i
}

// sameWords reports whether normSpace(a) == normSpace(b), without building either.
func sameWords(a, b string) bool {
	if a == b {
		return true
	}
	var i, j int
	for {
		var x, y string
		x, i = nextWord(a, i)
		y, j = nextWord(b, j)
		if x != y {
			return false
		}
		if x == "" {
			return true
		}
	}
}

// normUpdate is one update of a version as compared: only its body and status are version
// fields (an update whose posted_at or format moved is unchanged).
type normUpdate struct {
	id     string
	body   value
	status value
}

// version is the normalised form of an incident that Changes compares. Fingerprint
// writes the same form without building it, so that "equal fingerprints" and "no
// changes" never disagree (TestFingerprintAsNormalised, FuzzFingerprint).
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
	components := value{show: strings.Join(names, ", "), key: strings.Join(names, componentsSep)}

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

// componentsSep separates the names in the components value's key: NUL, not ", ", so
// {"A, B"} and {"A", "B"} differ.
const componentsSep = "\x00"

// componentNames is the set of components as compared: whitespace-normalised, sorted,
// without duplicates or empty names, since their order is cosmetic (docs/design.md §4).
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

// Changes lists the field changes from before to after, in the order of docs/design.md §5: title,
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
	if x.same(y) {
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
//
// It writes what normalise would give field by field, straight from inc, without building
// the normalised version: every Record fingerprints every incident of its page, and the
// version's slices, map and formatted times were a third of a Record's cost.
// TestFingerprintAsNormalised and FuzzFingerprint hold it to normalise's form byte for
// byte.
func Fingerprint(inc *model.Incident) [32]byte {
	if inc == nil {
		inc = &model.Incident{}
	}
	f := fingerprints.Get().(*fingerprinter)
	defer fingerprints.Put(f)
	f.buf = f.buf[:0]
	f.put("statuswatch/diff.Fingerprint v1")
	// The scalars, in normalise's order.
	f.text(inc.Title)
	f.put(string(inc.Status))
	f.put(string(inc.Impact))
	f.put(string(inc.Kind))
	f.time(inc.StartedAt)
	f.time(inc.ResolvedAt)
	f.time(inc.ScheduledFor)
	f.time(inc.ScheduledUntil)
	f.components(inc.Components)
	f.updates(inc.Updates)
	var pm model.Postmortem // none hashes as an empty one: both are absent fields
	if inc.Postmortem != nil {
		pm = *inc.Postmortem
	}
	f.text(pm.Body)
	f.time(pm.PublishedAt)
	return sha256.Sum256(f.buf)
}

// fingerprinter builds what Fingerprint hashes. Every string is length-prefixed, so no
// two different sequences hash the same input. Its buffers are reused across calls.
type fingerprinter struct {
	buf  []byte
	ups  []int // indexes of the updates hashed, in id order
	when [len(time.RFC3339) + 16]byte
}

var fingerprints = sync.Pool{New: func() any { return new(fingerprinter) }}

func (f *fingerprinter) put(s string) {
	f.buf = binary.AppendUvarint(f.buf, uint64(len(s)))
	f.buf = append(f.buf, s...)
}

// time puts timeValue(t)'s key: "" for the zero time.
func (f *fingerprinter) time(t time.Time) {
	if t.IsZero() {
		f.put("")
		return
	}
	b := t.UTC().AppendFormat(f.when[:0], time.RFC3339)
	f.buf = binary.AppendUvarint(f.buf, uint64(len(b)))
	f.buf = append(f.buf, b...)
}

// components puts the components value's key: the names as componentNames gives them,
// joined by NUL. Names already whitespace-normalised, non-empty and in strictly
// increasing order (the usual case) are written as they are; others go through
// componentNames.
func (f *fingerprinter) components(cs []string) {
	n := 0
	for i, c := range cs {
		if c == "" || !isNormalSpace(c) || i > 0 && cs[i-1] >= c {
			f.put(strings.Join(componentNames(cs), componentsSep))
			return
		}
		n += len(c) + len(componentsSep)
	}
	if n > 0 {
		n -= len(componentsSep)
	}
	f.buf = binary.AppendUvarint(f.buf, uint64(n))
	for i, c := range cs {
		if i > 0 {
			f.buf = append(f.buf, componentsSep...)
		}
		f.buf = append(f.buf, c...)
	}
}

// updates puts the updates as normalise keeps them (the first of each id) in id order.
func (f *fingerprinter) updates(us []model.Update) {
	f.ups = f.ups[:0]
	for i := range us {
		f.ups = append(f.ups, i)
	}
	// Stable, so that of updates with the same id the first comes first, and is kept.
	slices.SortStableFunc(f.ups, func(x, y int) int { return strings.Compare(us[x].ID, us[y].ID) })
	kept := 0
	for k, i := range f.ups {
		if k == 0 || us[i].ID != us[f.ups[k-1]].ID {
			f.ups[kept] = i
			kept++
		}
	}
	f.ups = f.ups[:kept]
	f.buf = binary.AppendUvarint(f.buf, uint64(kept))
	for _, i := range f.ups {
		f.put(us[i].ID)
		f.text(us[i].Body)
		f.put(string(us[i].Status))
	}
}

// text puts textValue(s)'s compared form: s as normSpace would give it, word by word,
// without building it.
func (f *fingerprinter) text(s string) {
	// The words go after room for the longest length prefix, which then moves in front.
	at := len(f.buf)
	f.buf = append(f.buf, make([]byte, binary.MaxVarintLen64)...)
	start := len(f.buf)
	for i := 0; ; {
		var w string
		if w, i = nextWord(s, i); w == "" {
			break
		}
		if len(f.buf) > start {
			f.buf = append(f.buf, ' ')
		}
		f.buf = append(f.buf, w...)
	}
	n := len(f.buf) - start
	p := binary.PutUvarint(f.buf[at:], uint64(n))
	copy(f.buf[at+p:], f.buf[start:])
	f.buf = f.buf[:at+p+n]
}
