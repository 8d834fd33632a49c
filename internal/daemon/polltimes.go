package daemon

import (
	"github.com/statuswatch/statuswatch/internal/archive"
)

// restore shows a new source state the poll times saved before this process started.
// The caller holds d.mu.
func (d *Daemon) restore(name string, st *sourceState) {
	t, ok := d.restored[name]
	if !ok {
		return
	}
	st.poll.lastPollAt, st.poll.lastSuccessAt = t.Polled, t.Succeeded
	st.poll.successBeforeRestart = !t.Succeeded.IsZero()
	if !t.Succeeded.IsZero() {
		d.metrics.setLastSuccess(name, t.Succeeded)
	}
}

// savePollTimes saves every source's poll times, once, at a clean shutdown: a poll that
// changes nothing writes nothing, so this is how the next start knows them.
func (d *Daemon) savePollTimes() {
	if !d.polled.Load() {
		return // nothing new since the start
	}
	d.mu.RLock()
	times := make(map[string]archive.PollTimes, len(d.sources))
	for name, st := range d.sources {
		st.mu.Lock()
		if !st.poll.lastPollAt.IsZero() {
			times[name] = archive.PollTimes{Polled: st.poll.lastPollAt, Succeeded: st.poll.lastSuccessAt}
		}
		st.mu.Unlock()
	}
	d.mu.RUnlock()
	if err := d.store.SavePollTimes(times); err != nil {
		d.log.Warn("save poll times", "err", err)
	}
}
