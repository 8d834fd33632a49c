package daemon

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/web"
)

// pollSource polls st now, or waits for the poll in flight, and returns its outcome.
func (d *Daemon) pollSource(ctx context.Context, st *sourceState) (int, error) {
	st.mu.Lock()
	if c := st.running; c != nil {
		st.mu.Unlock()
		select {
		case <-c.done:
			return c.changes, c.err
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	c := &pollCall{done: make(chan struct{})}
	st.running = c
	src := st.src
	st.mu.Unlock()

	d.mu.RLock()
	p, slots := d.poller, d.slots
	d.mu.RUnlock()
	var out Outcome
	var err error
	select {
	case slots <- struct{}{}:
		out, err = d.pollRecovered(ctx, p, src)
		<-slots
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.changes, c.err = out.Changes, err
	d.afterPoll(st, src, out, err)

	st.mu.Lock()
	st.running = nil
	st.mu.Unlock()
	close(c.done)
	return c.changes, c.err
}

// pollRecovered is p.Poll(ctx, src) with a panic in it (a parser meeting a page its
// fuzzing never made) turned into the poll's error: the source fails and backs off as for
// any page it cannot read, and its slot and its poll in progress are released. Uncaught,
// the panic ended the process on a runner's goroutine, and on a cron job's (whose chain
// recovered it) left the source's poll "in progress" for good, never polled again.
func (d *Daemon) pollRecovered(ctx context.Context, p *Poller, src *config.Source) (out Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("poll panicked", "source", src.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			out, err = Outcome{}, fmt.Errorf("poll panicked: %v", r)
		}
	}()
	return p.Poll(ctx, src)
}

// afterPoll keeps the in-memory bookkeeping of a poll: last poll and success live here,
// not in the archive, since a poll that changes nothing writes nothing (they are saved
// once, at shutdown: savePollTimes).
func (d *Daemon) afterPoll(st *sourceState, src *config.Source, out Outcome, err error) {
	now := d.now().UTC()
	d.polled.Store(true)
	st.mu.Lock()
	st.poll.lastPollAt = now
	switch {
	case errors.Is(err, archive.ErrStorage):
		// The archive failed, not the vendor: no backoff, no last_error for the source.
	case err != nil:
		st.poll.lastError = err.Error()
		st.poll.failures++
		wait := fetch.Backoff(st.interval, st.poll.failures, nil)
		if ra, ok := fetch.RetryAfter(err); ok {
			wait = ra // the client caps it (6 h)
		}
		st.nextAllowed = now.Add(wait)
	default:
		st.poll.lastSuccessAt, st.poll.lastError, st.poll.failures = now, "", 0
		st.poll.successBeforeRestart = false
		st.nextAllowed = time.Time{}
		if out.PageTitle != "" {
			st.pageTitle = out.PageTitle
		}
	}
	failures := st.poll.failures
	// A new component set is written with the poll, and a reload may have changed the
	// components list: only then is the set read again (one read transaction per poll
	// otherwise, for nothing).
	components := err == nil && (out.Wrote || st.componentsOf != src)
	if components {
		st.componentsOf = src
	}
	st.mu.Unlock()

	m := d.metrics
	switch {
	case errors.Is(err, archive.ErrStorage):
		m.countPoll(src.Name, "archive_error")
	case err != nil:
		m.countPoll(src.Name, "failed")
	case out.Changes > 0:
		m.countPoll(src.Name, "ok")
	default:
		m.countPoll(src.Name, "unchanged")
	}
	m.setFailures(src.Name, failures)
	if err == nil {
		m.setLastSuccess(src.Name, now)
	}
	if out.Changes > 0 {
		m.addChanges(src.Name, out.Changes)
		st.remindAt.Store(remindUnknown)
		d.refreshOpen(src.Name)
	}
	if out.Wrote && d.wrote.Add(1)%releaseWritesEvery == 0 {
		d.releasePages()
	}
	if err == nil {
		d.remind(src.Name, st)
	}
	if components {
		d.refreshComponents(src)
	}
	// Any outbox row a poll wrote wakes delivery: a recovery's "readable again" is
	// written by a poll that is otherwise unchanged (even a 304), and must not wait for
	// delivery's idle sweep.
	if out.Messages > 0 || out.Wrote || err != nil {
		d.wakeDelivery()
	}
}

// PollNow polls a source now, or waits for its poll in flight, and returns once the result
// is archived. Delivery goes on in the background.
func (d *Daemon) PollNow(ctx context.Context, source string) (int, error) {
	d.mu.RLock()
	st := d.sources[source]
	d.mu.RUnlock()
	if st == nil {
		return 0, web.ErrUnknownSource
	}
	return d.pollSource(ctx, st)
}
