package daemon

import "time"

// remindEvery is how often the daemon looks for maintenance windows whose reminder is
// due (docs/design.md §10), besides after every poll of their source: a window
// announced days ahead may come due between two polls of a slow schedule.
const remindEvery = 15 * time.Second

// The values of sourceState.remindAt besides a due time in Unix nanoseconds.
const (
	remindUnknown int64 = 0  // not asked since the archive or the config changed
	remindNone    int64 = -1 // no reminder to come of what the archive holds
)

// remind writes the maintenance_soon reminders of st's source that are due now, and
// wakes delivery when it wrote one. It reads the archive only for a source with an open
// maintenance (refreshOpen) whose next reminder, as the last read found it, is due: so
// the sources without one, and polls between reminders, cost nothing. A poll that
// changed the source, and a reload, make it read again (remindUnknown).
func (d *Daemon) remind(name string, st *sourceState) {
	st.mu.Lock()
	src := st.src
	st.mu.Unlock()
	if src == nil || src.MaintenanceReminder <= 0 || !st.maint.Load() {
		return
	}
	now := d.now().UTC()
	switch at := st.remindAt.Load(); {
	case at == remindNone, at > 0 && now.UnixNano() < at:
		return
	}
	n, next, err := d.store.Remind(name, src.MaintenanceReminder, now, Filter(src))
	if err != nil {
		d.log.Warn("maintenance reminder", "source", name, "err", err)
		return
	}
	if next.IsZero() {
		st.remindAt.Store(remindNone)
	} else {
		st.remindAt.Store(max(next.UnixNano(), 1))
	}
	if n > 0 {
		d.log.Info("maintenance reminder written", "source", name, "messages", n)
		d.wakeDelivery()
	}
}

// remindAll is remind for every source, on the scheduler every remindEvery.
func (d *Daemon) remindAll() {
	d.mu.RLock()
	names := make([]string, 0, len(d.sources))
	states := make([]*sourceState, 0, len(d.sources))
	for n, st := range d.sources {
		if st.maint.Load() {
			names, states = append(names, n), append(states, st)
		}
	}
	d.mu.RUnlock()
	for i, n := range names {
		d.remind(n, states[i])
	}
}
