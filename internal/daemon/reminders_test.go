package daemon

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
)

// A maintenance announced days ahead is reminded by the scheduler's tick once its
// window is within maintenance_reminder, with no poll in between; once only. A source
// with maintenance_reminder 0 gets none.
func TestReminderBetweenPolls(t *testing.T) {
	for _, tc := range []struct {
		lead string
		want int
		next time.Duration // when the next reminder comes due, from the window's start; 0: none
	}{{"30m", 1, -30 * time.Minute}, {"0", 0, 0}} {
		t.Run(tc.lead, func(t *testing.T) {
			page := &fakepage.Statuspage{Name: "Acme"}
			srv := httptest.NewServer(page)
			defer srv.Close()
			clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
			d, store := newDaemonWith(t, "listen: \"\"\ndefaults:\n  maintenance_reminder: "+tc.lead+"\nsources:\n  - name: acme\n    url: "+srv.URL+
				"\n    kind: statuspage\n    schedule: \"@every 1h\"\n", clk)
			start, until := clk.Now().Add(2*24*time.Hour), clk.Now().Add(2*24*time.Hour+time.Hour)
			at := clk.Now().Add(-time.Hour)
			page.Set(nil, []fakepage.Incident{{ID: "mnt1", Name: "Upgrade", Status: "scheduled", Impact: "maintenance",
				CreatedAt: at, UpdatedAt: at, StartedAt: start, ScheduledFor: &start, ScheduledUntil: &until}})
			if _, err := d.pollSource(t.Context(), d.sources["acme"]); err != nil {
				t.Fatal(err)
			}
			count := func() int {
				t.Helper()
				ms, err := store.Messages()
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, m := range ms {
					if m.Event == model.EventMaintenanceSoon {
						n++
					}
				}
				return n
			}
			d.remindAll()
			if n := count(); n != 0 {
				t.Fatalf("two days ahead: %d reminders, want none", n)
			}
			// Until then, the ticks read nothing: the daemon knows when it comes due.
			st := d.sources["acme"]
			if want := start.Add(tc.next).UnixNano(); tc.next != 0 && st.remindAt.Load() != want {
				t.Errorf("next reminder: got %d, want %d (%v)", st.remindAt.Load(), want, start.Add(tc.next))
			}
			clk.Add(2*24*time.Hour - 29*time.Minute)
			d.remindAll()
			d.remindAll()
			if n := count(); n != tc.want {
				t.Errorf("29m ahead: %d reminders, want %d", n, tc.want)
			}
			if tc.want > 0 && st.remindAt.Load() != remindNone {
				t.Errorf("after the reminder: next %d, want none", st.remindAt.Load())
			}
		})
	}
}
