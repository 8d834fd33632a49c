package notify

import (
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// IsReminder reports whether m is a maintenance's maintenance_soon reminder: a reply in
// the maintenance's thread that changes nothing its root shows.
func IsReminder(m *model.Message) bool { return m.Event == model.EventMaintenanceSoon }

// StartsIn says how soon a reminder's window starts, as its headline puts it
// ("Maintenance starts in 1h"): from when the reminder was written, rounded up to the
// minute, so that a reminder delivered late still says what it said when it was due.
func StartsIn(m model.Message, inc *model.Incident) string {
	lead := inc.ScheduledFor.Sub(m.CreatedAt)
	if lead <= 0 {
		return "Maintenance starting"
	}
	if r := lead.Truncate(time.Minute); r != lead {
		lead = r + time.Minute
	}
	return "Maintenance starts in " + diff.FormatDuration(lead)
}

// Window is a maintenance's scheduled window for people, in UTC: "2026-12-02 14:00 UTC
// → 2026-12-02 16:00 UTC", or its start alone when it has no end.
func Window(inc *model.Incident) string {
	s := diff.FormatTime(inc.ScheduledFor)
	if !inc.ScheduledUntil.IsZero() {
		s = fmt.Sprintf("%s → %s", s, diff.FormatTime(inc.ScheduledUntil))
	}
	return s
}
