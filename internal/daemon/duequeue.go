package daemon

import "sync"

// dueQueue holds the sources whose tick came while every poll slot was taken. Without it
// each such tick's goroutine waited for a slot: in a cold round of 10,000 sources on a
// one-minute schedule, where a poll costs ~70 ms of CPU, all 10,000 waited at once and
// their stacks took ~43 MB. A few goroutines (runners, twice the slots so that none
// stays idle) now poll the waiting sources one after the other, in the order they came
// due; a source waits once however many of its ticks pass.
type dueQueue struct {
	runners sync.WaitGroup // Run waits for them at shutdown, as for cron's jobs
	mu      sync.Mutex
	running int // goroutines polling from the queue
	waiting []*sourceState
	queued  map[*sourceState]bool
}

// admit says whether the caller is to poll st now, as a runner; false: st waits (or
// already did) for a runner to take it.
func (q *dueQueue) admit(st *sourceState, runners int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running < runners {
		q.running++
		return true
	}
	if !q.queued[st] {
		if q.queued == nil {
			q.queued = map[*sourceState]bool{}
		}
		q.queued[st] = true
		q.waiting = append(q.waiting, st)
	}
	return false
}

// next is the source a runner polls next, or nil: the runner is done.
func (q *dueQueue) next() *sourceState {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 {
		q.running--
		return nil
	}
	st := q.waiting[0]
	q.waiting[0] = nil
	q.waiting = q.waiting[1:]
	delete(q.queued, st)
	return st
}

// runDue polls st, a source whose tick came, now (the caller waits for it) or once a
// runner takes it. A runner that finds sources waiting after its own poll goes on with
// them in a goroutine of its own, until none is left or the daemon stops: the cron job
// that started it returns, since a job still running has its own source's ticks skipped,
// which would starve that source while the queue stays full.
func (d *Daemon) runDue(st *sourceState) {
	d.mu.RLock()
	runners := 2 * cap(d.slots)
	d.mu.RUnlock()
	if !d.due.admit(st, runners) {
		return
	}
	d.pollSource(d.pollCtx, st)
	next := d.due.next()
	if next == nil {
		return
	}
	d.due.runners.Add(1)
	go func() {
		defer d.due.runners.Done()
		for st := next; st != nil; st = d.due.next() {
			if d.pollCtx.Err() != nil {
				continue // stopping: empty the queue without polling
			}
			st.mu.Lock()
			skip := st.src.Paused || st.running != nil || d.now().Before(st.nextAllowed) // may have changed while it waited
			st.mu.Unlock()
			if !skip {
				d.pollSource(d.pollCtx, st)
			}
		}
	}()
}
