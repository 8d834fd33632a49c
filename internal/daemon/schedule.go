package daemon

import (
	"hash/fnv"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
)

// job is the cron job of one source.
func (d *Daemon) job(name string) func() {
	return func() {
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
			d.metrics.skippedInBackoff.WithLabelValues(name).Inc()
			return
		}
		d.pollSource(d.pollCtx, st)
	}
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
	h := fnv.New64a()
	h.Write([]byte(name))
	seconds := func(span time.Duration) time.Duration {
		return time.Duration(h.Sum64()%uint64(span/time.Second)) * time.Second
	}
	if cs, ok := s.(cron.ConstantDelaySchedule); ok && cs.Delay >= 2*time.Second {
		// @every: spread the sources over the whole interval.
		return phased{every: cs.Delay, offset: seconds(cs.Delay)}
	}
	span := min(iv/2, time.Minute)
	if span <= time.Second {
		return s
	}
	return jittered{s, seconds(span)}
}

// cronLogger adapts slog to cron's logger.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug("cron: "+msg, kv...) }

func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, "err", err)...)
}
