// Package view computes what the pages and feeds show of archived incidents and sources,
// knowing nothing of HTTP: badges and source states, time stamps ("3h ago"), titles and
// durations, a source's figures and its 90-day timeline (an SVG's coordinates), the order
// every list of incidents follows, and the addresses of the pages.
package view

import (
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Title is an incident's title, or a placeholder for a vendor that gave none.
func Title(inc *model.Incident) string {
	if strings.TrimSpace(inc.Title) == "" {
		return "(untitled " + string(inc.Kind) + ")"
	}
	return inc.Title
}

// Duration says how long an incident lasted ("1h 31m"), or has lasted so far at now
// ("ongoing, 2h"); a maintenance its scheduled length. Empty when the times are not known.
func Duration(inc *model.Incident, now time.Time) string {
	if inc.Kind == model.KindMaintenance {
		if !inc.ScheduledFor.IsZero() && !inc.ScheduledUntil.IsZero() {
			return diff.FormatDuration(inc.ScheduledUntil.Sub(inc.ScheduledFor)) + " window"
		}
		return ""
	}
	switch {
	case inc.StartedAt.IsZero():
		return ""
	case !inc.ResolvedAt.IsZero():
		return diff.FormatDuration(inc.ResolvedAt.Sub(inc.StartedAt))
	case inc.Open():
		return "ongoing, " + diff.FormatDuration(now.Sub(inc.StartedAt))
	}
	return ""
}

// NewestUpdate is the update posted last (providers do not all list them oldest first).
func NewestUpdate(updates []model.Update) *model.Update {
	var out *model.Update
	for i := range updates {
		if out == nil || !updates[i].PostedAt.Before(out.PostedAt) {
			out = &updates[i]
		}
	}
	return out
}

// Plural writes "1 failure", "3 failures".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
