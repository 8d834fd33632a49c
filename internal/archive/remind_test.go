package archive

import (
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// msnap is a snapshot listing incidents and maintenances, at t.
func msnap(t time.Time, incs ...model.Incident) *model.Snapshot {
	s := snap(t, incs...)
	s.Listings = append(s.Listings, model.Listing{Kind: model.KindMaintenance})
	return s
}

// window schedules a maintenance from start for two hours.
func window(start time.Time) func(*model.Incident) {
	return func(i *model.Incident) { i.ScheduledFor, i.ScheduledUntil = start, start.Add(2*time.Hour) }
}

// reminders are the maintenance_soon messages of the outbox, as "id version".
func (ts *testStore) reminders() []string {
	ts.tb.Helper()
	var out []string
	for _, m := range ts.messages() {
		if m.Event == model.EventMaintenanceSoon {
			out = append(out, m.IncidentID+" "+string(rune('0'+m.Version)))
		}
	}
	return out
}

func (ts *testStore) remind(now time.Time, pass func(*model.Incident) bool) int {
	ts.tb.Helper()
	n, _, err := ts.Remind("acme", time.Hour, now, pass)
	if err != nil {
		ts.tb.Fatalf("Remind: %v", err)
	}
	return n
}

func TestRemindOnce(t *testing.T) {
	ts := MustOpen(t)
	start := at(1).Add(3 * time.Hour)
	ts.record(msnap(at(1), inc("m1", maintenance, window(start))), all, nil)

	before := ts.fileState()
	if n := ts.remind(start.Add(-61*time.Minute), nil); n != 0 {
		t.Errorf("61m before: got %d rows, want 0", n)
	}
	ts.assertNoWrite(before)

	if _, next, err := ts.Remind("acme", time.Hour, start.Add(-61*time.Minute), nil); err != nil || !next.Equal(start.Add(-time.Hour)) {
		t.Errorf("61m before: next %v, %v; want %v", next, err, start.Add(-time.Hour))
	}
	if n := ts.remind(start.Add(-59*time.Minute), nil); n != 1 {
		t.Errorf("59m before: got %d rows, want 1", n)
	}
	ts.reopen()
	before = ts.fileState()
	if n := ts.remind(start.Add(-time.Minute), nil); n != 0 {
		t.Errorf("again after a restart: got %d rows, want 0", n)
	}
	ts.assertNoWrite(before)
	if _, next, _ := ts.Remind("acme", time.Hour, start.Add(-time.Minute), nil); !next.IsZero() {
		t.Errorf("reminded: next %v, want none", next)
	}
	if got, want := ts.reminders(), []string{"m1 1"}; !slices.Equal(got, want) {
		t.Errorf("reminders: got %q, want %q", got, want)
	}
	m := ts.messages()[len(ts.messages())-1]
	if !m.CreatedAt.Equal(start.Add(-59*time.Minute)) || m.Source != "acme" {
		t.Errorf("message: got %+v", m)
	}
}

// A window moved to another start is reminded again; one moved back to a start already
// reminded, or later edited without moving, is not.
func TestRemindRescheduled(t *testing.T) {
	ts := MustOpen(t)
	start := at(1).Add(3 * time.Hour)
	ts.record(msnap(at(1), inc("m1", maintenance, window(start))), all, nil)
	ts.remind(start.Add(-30*time.Minute), nil)

	later := start.Add(2 * time.Hour)
	ts.record(msnap(start.Add(-20*time.Minute), inc("m1", maintenance, window(later))), all, nil)
	if n := ts.remind(start.Add(-10*time.Minute), nil); n != 0 {
		t.Errorf("moved 2h later, 2h10m ahead: got %d rows, want 0", n)
	}
	ts.record(msnap(later.Add(-40*time.Minute), inc("m1", maintenance, window(later), update("Still on."))), all, nil)
	if n := ts.remind(later.Add(-30*time.Minute), nil); n != 1 {
		t.Errorf("moved, due: got %d rows, want 1", n)
	}
	if n := ts.remind(later.Add(-20*time.Minute), nil); n != 0 {
		t.Errorf("moved, again: got %d rows, want 0", n)
	}
	if got, want := ts.reminders(), []string{"m1 1", "m1 3"}; !slices.Equal(got, want) {
		t.Errorf("reminders: got %q, want %q", got, want)
	}
}

// What is not a window still to come is never reminded: one that started, one whose
// start passed while it still says scheduled, one completed, removed from the page,
// called off in the provider's word, or never announced, and one the source's filter
// stops.
func TestRemindNot(t *testing.T) {
	start := at(1).Add(3 * time.Hour)
	soon := start.Add(-30 * time.Minute)
	tests := []struct {
		name string
		prep func(t *testing.T, ts *testStore)
		now  time.Time
		pass func(*model.Incident) bool
	}{
		{"in progress", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance, window(start), status(model.StatusInProgress))), all, nil)
		}, soon, nil},
		{"start passed", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance, window(start))), all, nil)
		}, start, nil},
		{"completed", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance, window(start), status(model.StatusCompleted))), all, nil)
		}, soon, nil},
		{"removed", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance, window(start)), inc("m2", maintenance)), all, nil)
			ts.record(msnap(at(2), inc("m2", maintenance)), all, nil)
			ts.record(msnap(at(3), inc("m2", maintenance)), all, nil)
			if !ts.incident("m1").Removed {
				t.Fatal("m1 not removed")
			}
		}, soon, nil},
		{"never announced", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance, window(start))), Policy{FirstPoll: FirstPollNone}, nil)
		}, soon, nil},
		{"filtered", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance, window(start))), all, nil)
		}, soon, func(*model.Incident) bool { return false }},
		{"cancelled", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance, window(start), func(i *model.Incident) { i.StatusRaw = "Cancelled" })), all, nil)
		}, soon, nil},
		{"no window", func(t *testing.T, ts *testStore) {
			ts.record(msnap(at(1), inc("m1", maintenance)), all, nil)
		}, soon, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := MustOpen(t)
			tt.prep(t, ts)
			if n := ts.remind(tt.now, tt.pass); n != 0 {
				t.Errorf("got %d rows, want 0 (%q)", n, ts.reminders())
			}
		})
	}
}

// The reminder is routed as any message: one row per receiver the route gives.
func TestRemindRouted(t *testing.T) {
	ts := MustOpen(t)
	var seen []model.Event
	ts.SetRoute(func(n *model.Notice) []string {
		seen = append(seen, n.Event)
		if n.Event == model.EventMaintenanceSoon && n.Incident != nil && n.Incident.ID == "m1" {
			return []string{"", "hooks"}
		}
		return []string{""}
	})
	start := at(1).Add(3 * time.Hour)
	ts.record(msnap(at(1), inc("m1", maintenance, window(start))), all, nil)
	if n := ts.remind(start.Add(-time.Minute), nil); n != 2 {
		t.Errorf("got %d rows, want 2", n)
	}
	var got []string
	for _, m := range ts.messages() {
		if m.Event == model.EventMaintenanceSoon {
			got = append(got, m.Receiver)
		}
	}
	if want := []string{"", "hooks"}; !slices.Equal(got, want) {
		t.Errorf("receivers: got %q, want %q", got, want)
	}
}
