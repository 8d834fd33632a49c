package diff

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Description writes the one-line description of an incident, in UTC:
//
//	Yandex Cloud experienced a major incident on September 8, 2020 affecting Certificate
//	Manager and Cloud Functions and 1 more component, lasting 1h 31m.
//
// title is the source's display name. The impact reads "a minor", "a major" or "a
// critical"; none, unknown and anything else read "an incident" (none is treated as
// unknown, since "a none incident" says nothing). At most two
// components are named, the rest counted, as in the example above ("A and B and 1 more
// component"); with none the "affecting" clause is left out. The start is started_at,
// else the first update's posted_at; the end is resolved_at, else, once the incident is
// closed, the last update's posted_at; without a start the date and duration are left
// out. An incident still open reads ", ongoing for <duration>" measured to now, passed
// in since this package has no clock. A maintenance reads "<Title> scheduled maintenance
// on …", dated by scheduled_for and scheduled_until when set. The sentence is plain
// text: escape it for the medium it goes to.
func Description(title string, inc *model.Incident, now time.Time) string {
	if inc == nil {
		inc = &model.Incident{}
	}
	title = normSpace(title)
	if title == "" {
		title = "The vendor"
	}
	first, last := updateSpan(inc.Updates)
	open := inc.Open() && inc.ResolvedAt.IsZero()

	var b strings.Builder
	var start, end time.Time
	b.WriteString(title)
	if inc.Kind == model.KindMaintenance {
		b.WriteString(" scheduled maintenance")
		start = firstSet(inc.ScheduledFor, inc.StartedAt, first)
		end = firstSet(inc.ScheduledUntil, inc.ResolvedAt)
		// A maintenance still scheduled has not started: "ongoing" would be false.
		open = open && inc.Status != model.StatusScheduled
	} else {
		b.WriteString(" experienced ")
		switch inc.Impact {
		case model.ImpactMinor, model.ImpactMajor, model.ImpactCritical:
			b.WriteString("a " + string(inc.Impact) + " incident")
		default:
			b.WriteString("an incident")
		}
		start = firstSet(inc.StartedAt, first)
		end = inc.ResolvedAt
	}
	if end.IsZero() && !open {
		end = last
	}
	if !start.IsZero() {
		b.WriteString(" on " + start.UTC().Format("January 2, 2006"))
	}
	if names := componentNames(inc.Components); len(names) > 0 {
		b.WriteString(" affecting " + affecting(names))
	}
	switch {
	case start.IsZero():
	case !end.IsZero():
		b.WriteString(", lasting " + FormatDuration(end.Sub(start)))
	case open:
		b.WriteString(", ongoing for " + FormatDuration(now.Sub(start)))
	}
	b.WriteString(".")
	return b.String()
}

// affecting names at most two components and counts the rest.
func affecting(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " and " + names[1]
	}
	return fmt.Sprintf("%s and %s and %s", names[0], names[1], plural(len(names)-2, "more component"))
}

// updateSpan returns the earliest and latest posted_at of the updates. It takes the
// extremes rather than the first and last in the slice, so a provider listing updates
// newest first gives the same answer.
func updateSpan(updates []model.Update) (first, last time.Time) {
	for _, u := range updates {
		if u.PostedAt.IsZero() {
			continue
		}
		if first.IsZero() || u.PostedAt.Before(first) {
			first = u.PostedAt
		}
		if last.IsZero() || u.PostedAt.After(last) {
			last = u.PostedAt
		}
	}
	return first, last
}

func firstSet(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// FormatDuration writes a duration the way people read incident lengths: "45m",
// "1h 31m", "2d 3h", truncated to the minute, with a zero second unit left out ("2h",
// "3d"). Under a minute reads "<1m"; a negative duration (clock skew between vendor
// timestamps) counts as zero.
func FormatDuration(d time.Duration) string {
	if d < time.Minute {
		return "<1m"
	}
	days, hours, mins := int64(d/(24*time.Hour)), int64(d/time.Hour)%24, int64(d/time.Minute)%60
	switch {
	case days > 0 && hours > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case days > 0:
		return fmt.Sprintf("%dd", days)
	case hours > 0 && mins > 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%dh", hours)
	}
	return fmt.Sprintf("%dm", mins)
}

// TimeLayout is how every page, message and command shows a time to a person:
// "2026-07-01 17:39 UTC". Machine answers (the JSON API, the Atom timestamps) keep
// RFC 3339.
const TimeLayout = "2006-01-02 15:04 UTC"

// TimeLayoutSeconds is TimeLayout to the second, for observation times: "what did the
// page say at 14:05" is answered to the second.
const TimeLayoutSeconds = "2006-01-02 15:04:05 UTC"

// FormatTime writes t for people, in UTC (TimeLayout); a zero t reads "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeLayout)
}

// isTimeField reports whether a change field holds a time (an RFC 3339 value).
func isTimeField(field string) bool {
	switch field {
	case FieldStartedAt, FieldResolvedAt, FieldScheduledFor, FieldScheduledUntil, FieldPostmortemPublishedAt:
		return true
	}
	return false
}

// readable is c as people read it: the RFC 3339 values of a time field written with
// FormatTime. A value that does not parse is left as it is.
func readable(c model.Change) model.Change {
	if !isTimeField(c.Field) {
		return c
	}
	conv := func(p *string) *string {
		if p == nil {
			return nil
		}
		t, err := time.Parse(time.RFC3339, *p)
		if err != nil {
			return p
		}
		s := FormatTime(t)
		return &s
	}
	c.Before, c.After = conv(c.Before), conv(c.After)
	return c
}

// maxCaptionStatus is the longest status, in runes, an update's caption shows.
const maxCaptionStatus = 40

// UpdateCaption says which update an update is, as people know it: its status and when
// it was posted ("Investigating · 2026-07-01 17:39 UTC"), either left out when unknown.
// The status is vendor text: escape the caption for the medium it goes to.
func UpdateCaption(u *model.Update) string {
	var parts []string
	if s := normSpace(word(string(u.Status))); s != "" {
		if rs := []rune(s); len(rs) > maxCaptionStatus { // statuses are short; vendor text need not be
			s = string(rs[:maxCaptionStatus-1]) + "…"
		}
		r, n := utf8.DecodeRuneInString(s)
		parts = append(parts, string(unicode.ToUpper(r))+s[n:])
	}
	if t := FormatTime(u.PostedAt); t != "" {
		parts = append(parts, t)
	}
	return strings.Join(parts, " · ")
}

// caption is the caption of the update a change field names ("updates[<id>]…"), looked
// up in incs in order (the version after the change, then the one before, for an update
// the change removed); "" for any other field or an update none of them lists.
func caption(field string, incs []*model.Incident) string {
	id, _, ok := updateField(field)
	if !ok {
		return ""
	}
	for _, inc := range incs {
		if inc == nil {
			continue
		}
		for i := range inc.Updates {
			if inc.Updates[i].ID == id {
				return UpdateCaption(&inc.Updates[i])
			}
		}
	}
	return ""
}
