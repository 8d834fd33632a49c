package notify_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// TestConsoleMarksWords: an edit of a long update prints as a word diff, the change marked
// and the unchanged text around it shortened, so a small edit in a long body shows.
func TestConsoleMarksWords(t *testing.T) {
	long := "We are investigating reports of elevated error rates for API requests in the EU region. " +
		"Customers may see timeouts when creating or updating resources, and some webhooks may be delayed. " +
		"Our engineers have identified a database failover as the likely trigger and are working to restore " +
		"normal service. Dashboard access is not affected. We will post another update within 30 minutes."
	e := newEnv(t, nil)
	a := inc("a1", model.StatusInvestigating, long)
	e.poll("acme", a)
	a = inc("a1", model.StatusInvestigating, strings.Replace(long, "database failover", "network partition", 1))
	e.poll("acme", a)
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	e.drain(d)
	got := out.String()
	want := "  … may be delayed. Our engineers have identified a [-database failover-]{+network partition+} as the likely trigger and are working to …\n"
	if !strings.Contains(got, want) {
		t.Errorf("console: want the marked, shortened edit\n%s\nin:\n%s", want, got)
	}
	if strings.Contains(got, "Before: "+long) {
		t.Errorf("console prints the whole body before and after:\n%s", got)
	}
}

// TestConsoleReminder: a maintenance's reminder prints its headline and window, not the
// change set of the version it names.
func TestConsoleReminder(t *testing.T) {
	start := time.Date(2026, 7, 2, 14, 0, 0, 0, time.UTC)
	n := &notify.Notification{
		Message:     model.Message{Source: "acme", IncidentID: "m1", Version: 2, Event: model.EventMaintenanceSoon, CreatedAt: start.Add(-59*time.Minute - time.Second)},
		SourceTitle: "Acme",
		Version: &model.Version{N: 2, Summary: "1 update added.", Changes: []model.Change{{Field: "updates[u2]"}},
			Incident: model.Incident{ID: "m1", Kind: model.KindMaintenance, Title: "Upgrade", Status: model.StatusScheduled,
				Impact: model.ImpactMaintenance, ScheduledFor: start, ScheduledUntil: start.Add(2 * time.Hour)}},
		Link: "https://watch.test/incidents/acme/m1",
	}
	var out bytes.Buffer
	if _, err := (&notify.Console{W: &out}).Send(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	want := "== Acme: Maintenance starts in 1h: Upgrade\nStatus: scheduled · Impact: maintenance\n" +
		"Scheduled: 2026-07-02 14:00 UTC → 2026-07-02 16:00 UTC\nHistory: https://watch.test/incidents/acme/m1\n\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
