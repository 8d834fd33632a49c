package daemon

import (
	"fmt"
	"hash/fnv"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
)

// sourceJob is the cron job of one source: a value, where cron's chain (SkipIfStillRunning,
// Recover) made a channel and three closures for each (~220 B a source, 2 MB at 10,000
// sources, all of it for the GC to mark: BenchmarkHeapPerSource). A source needs neither:
// its job skips a tick while its poll runs or waits (tickSource), and a panic in a poll
// is the poll's error (pollRecovered).
type sourceJob struct {
	d    *Daemon
	name string
}

// Run is a tick of the source's schedule. A panic outside the poll itself is logged as
// cron's Recover would, and the next tick comes as usual.
func (j sourceJob) Run() {
	defer func() {
		if r := recover(); r != nil {
			cronLogger{j.d.log}.Error(fmt.Errorf("%v", r), "panic", "source", j.name, "stack", string(debug.Stack()))
		}
	}()
	j.d.tickSource(j.name)
}

// tickSource is a tick of name's schedule: it polls the source now, or queues it, unless
// it is paused, its poll is in progress, or a backoff holds it.
func (d *Daemon) tickSource(name string) {
	d.mu.RLock()
	st := d.sources[name]
	d.mu.RUnlock()
	if st == nil {
		return
	}
	st.mu.Lock()
	skip := st.src.Paused || st.running != nil
	inBackoff := d.now().Before(st.nextAllowed)
	st.mu.Unlock()
	if skip {
		return
	}
	if inBackoff {
		// Ticks inside a backoff wait are skipped, not queued.
		d.metrics.countSkipped(name)
		return
	}
	d.runDue(st)
}

// interval is the time between two consecutive runs of s.
func interval(s cron.Schedule, now time.Time) time.Duration {
	a := s.Next(now)
	return s.Next(a).Sub(a)
}

// jittered shifts a cron schedule by a fixed offset, so sources sharing a spec never fire
// in the same second (cron has no jitter of its own).
type jittered struct {
	cron.Schedule
	offset time.Duration
}

// Next is the inner schedule's next run after t-offset, shifted by offset: always after t.
func (j jittered) Next(t time.Time) time.Time {
	return j.Schedule.Next(t.Add(-j.offset)).Add(j.offset)
}

// phased is an @every schedule pinned to a fixed phase: runs at epoch + offset + k×every.
// cron's ConstantDelaySchedule is "every after the last run", so shifting it as jittered
// does cancels out and every source would fire in the same second.
type phased struct {
	every, offset time.Duration
}

// Next is the first run of the phase strictly after t.
func (p phased) Next(t time.Time) time.Time {
	since := t.Sub(time.Unix(0, 0).Add(p.offset))
	k := since/p.every + 1
	if since < 0 {
		k = 0
	}
	return time.Unix(0, 0).Add(p.offset + k*p.every).In(t.Location())
}

// jitter gives name a fixed offset in [0, min(interval/2, 60s)), from a hash of the name so
// it stays put across restarts. Offsets are whole seconds: the sources that share a second
// fire in one wake of the scheduler, so 1,000 sources on @every 2m wake the process about
// once a second rather than 8 times (each wake of an idle Go process costs more CPU in
// the runtime's scheduler and sysmon than a 304 poll itself).
func jitter(s cron.Schedule, name string, iv time.Duration) cron.Schedule {
	if cs, ok := s.(cron.ConstantDelaySchedule); ok && cs.Delay >= 2*time.Second {
		// @every: spread the sources over the whole interval.
		return phased{every: cs.Delay, offset: nameSeconds(name, cs.Delay)}
	}
	span := min(iv/2, time.Minute)
	if span <= time.Second {
		return s
	}
	return jittered{s, nameSeconds(name, span)}
}

// nameSeconds is name's fixed offset in whole seconds within [0, span), from a hash of
// the name.
func nameSeconds(name string, span time.Duration) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(name))
	return time.Duration(h.Sum64()%uint64(max(span/time.Second, 1))) * time.Second
}

// cronLogger adapts slog to cron's logger.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug("cron: "+msg, kv...) }

func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, "err", err)...)
}

// followUps is a source's schedule with the follow-ups of docs/design.md §8: while the
// source has an open incident, it runs at least every open_interval (on the source's own
// whole-second phase, as @every schedules do), on top of its own schedule; otherwise
// its schedule alone. Backoff and Retry-After are not its business: the job skips the
// ticks that fall inside them.
type followUps struct {
	cron.Schedule
	every phased
	open  *atomic.Bool
}

// Next is the schedule's next run after t, or the next follow-up when that comes first
// and an incident is open.
func (f followUps) Next(t time.Time) time.Time {
	next := f.Schedule.Next(t)
	if f.open.Load() {
		if n := f.every.Next(t); n.Before(next) {
			return n
		}
	}
	return next
}

// withFollowUps wraps s with name's follow-ups every openEvery; zero leaves s alone.
func withFollowUps(s cron.Schedule, name string, openEvery time.Duration, open *atomic.Bool) cron.Schedule {
	if openEvery <= 0 {
		return s
	}
	every := max(openEvery.Truncate(time.Second), time.Second)
	return followUps{Schedule: s, every: phased{every: every, offset: nameSeconds(name, every)}, open: open}
}

// setOpen records whether a source has an open incident and, when that changed,
// schedules its entry again: cron computed the next run before the poll that opened (or
// closed) the incident, from the state before it.
func (d *Daemon) setOpen(name string, open bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.sources[name]
	if st == nil || st.open.Swap(open) == open {
		return
	}
	if _, follows := st.sched.(followUps); follows {
		d.reschedule(name, st)
	}
}

// reschedule replaces st's cron entry by one on st.sched. The caller holds d.mu.
func (d *Daemon) reschedule(name string, st *sourceState) {
	if st.entry != 0 {
		d.cron.Remove(st.entry)
	}
	st.entry = d.cron.Schedule(st.sched, sourceJob{d, name})
}
