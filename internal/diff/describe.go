package diff

import (
	"fmt"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Description writes the one-line description of an incident of SPEC §5, in UTC:
//
//	Yandex Cloud experienced a major incident on September 8, 2020 affecting Certificate
//	Manager and Cloud Functions and 1 more component, lasting 1h 31m.
//
// title is the source's display name. The impact reads "a minor", "a major" or "a
// critical"; none, unknown and anything else read "an incident" (SPEC names no impact
// and unknown; none is treated alike, since "a none incident" says nothing). At most two
// components are named, the rest counted, as in the SPEC's example ("A and B and 1 more
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
