package notify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Defaults of the Deliverer's knobs.
const (
	// DefaultMaxQueueAge is slack.max_queue_age's default.
	DefaultMaxQueueAge = 24 * time.Hour
	// DefaultMaxWait bounds the waiting of one Drain: `watcher poll` honours a short
	// Retry-After or backoff, and leaves a long one to the next run.
	DefaultMaxWait = 30 * time.Second
	// DefaultIdle is how often Run looks at the outbox when nothing woke it: it picks up
	// messages put back by `watcher outbox retry` from another process.
	DefaultIdle = time.Minute
	// DefaultRateLimitWait is the wait after a 429 that came without a usable Retry-After.
	DefaultRateLimitWait = 10 * time.Second
)

// Backoff after transient errors: 2 s, 4 s, 8 s, … up to 5 min, each ±20%.
const (
	backoffBase = 2 * time.Second
	backoffMax  = 5 * time.Minute
)

// ErrBusy is returned by Drain and Run while another Drain or Run of the same Deliverer
// is going on: two loops over one outbox could send a message twice.
var ErrBusy = errors.New("notify: delivery already running")

// Clock is the time the Deliverer paces and waits by; tests inject a fake one.
type Clock interface {
	Now() time.Time
	// After is time.After: the channel receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Deliverer drains the outbox into one Notifier (SPEC §7 Delivery). Drain is one bounded
// pass for `watcher poll`; Run is the daemon's loop. Both keep, in memory, each
// destination's clock (pacing, Retry-After, backoff) and the auth pause, so one Deliverer
// should live as long as the process (or until a config reload builds a new one).
//
// What it guarantees: a row is marked sent in one short transaction right after the
// sink's answer, so only a crash in that instant can repeat a message; one incident's
// messages go in order and a reply waits for its root; a parked message, a paused
// credential or a rate-limited channel never holds up another destination or incident.
type Deliverer struct {
	Outbox   Outbox
	Notifier Notifier
	// Title gives a source's display name; nil: the source's name.
	Title func(source string) string
	// BaseURL prefixes links to the UI; empty: no links.
	BaseURL string
	// MaxQueueAge is slack.max_queue_age: pending messages older than this are collapsed
	// into one digest per destination. 0 means DefaultMaxQueueAge; negative, never.
	MaxQueueAge time.Duration
	// MaxWait bounds the total waiting of one Drain; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// Idle is how long Run sleeps when nothing is due and nothing wakes it; 0 means
	// DefaultIdle.
	Idle time.Duration
	// Clock is the time source; nil means the real clock.
	Clock Clock
	// Jitter spreads a backoff; nil means ±20% at random.
	Jitter func(time.Duration) time.Duration
	// Log receives one line per failed send and per pause; nil discards.
	Log *slog.Logger

	busy sync.Mutex // held by Drain and Run
	mu   sync.Mutex // guards st
	st   *state
}

// state is what the Deliverer remembers between passes.
type state struct {
	dests  map[string]*destState // by Destination.Key
	paused map[string]string     // Destination.Account → why
	// plain marks messages (and digests, by "digest:"+key) that Slack rejected once:
	// their next try is plain text.
	plain map[string]bool
	// edits are root updates still to do, by incident key; a newer one replaces an older.
	edits map[string]*Notification
	// threads are roots posted by this process, by incident key: a fallback for when
	// SetThread failed, so the replies still find their thread.
	threads map[string]Thread
	// delivered are messages Slack took whose MarkSent failed: never send them again.
	delivered map[uint64]bool
	resume    chan struct{}
}

// destState is one destination's clock.
type destState struct {
	next     time.Time // nothing goes there before this
	failures int       // transient failures in a row
}

func (d *Deliverer) state() *state {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st == nil {
		d.st = &state{
			dests:     map[string]*destState{},
			paused:    map[string]string{},
			plain:     map[string]bool{},
			edits:     map[string]*Notification{},
			threads:   map[string]Thread{},
			delivered: map[uint64]bool{},
			resume:    make(chan struct{}, 1),
		}
	}
	return d.st
}

func (d *Deliverer) clock() Clock {
	if d.Clock == nil {
		return realClock{}
	}
	return d.Clock
}

func (d *Deliverer) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return d.Log
}

func (d *Deliverer) maxQueueAge() time.Duration {
	if d.MaxQueueAge == 0 {
		return DefaultMaxQueueAge
	}
	return d.MaxQueueAge
}

func (d *Deliverer) jitter(b time.Duration) time.Duration {
	if d.Jitter != nil {
		return d.Jitter(b)
	}
	return time.Duration(float64(b) * (0.8 + 0.4*rand.Float64()))
}

// Drain is one pass over the pending messages, for `watcher poll`: it sends what it can,
// waiting for pacing, Retry-After and backoff only while the total wait stays within
// MaxWait, and leaves the rest queued. It returns how many messages were sent and how many
// are still queued: pending after the pass, plus those it parked.
func (d *Deliverer) Drain(ctx context.Context) (sent, queued int, err error) {
	if !d.busy.TryLock() {
		return 0, 0, ErrBusy
	}
	defer d.busy.Unlock()
	budget := cmp.Or(d.MaxWait, DefaultMaxWait)
	var errs []error
	parked := 0
	for ctx.Err() == nil {
		res := d.cycle(ctx)
		sent += res.sent
		parked += res.parked
		errs = append(errs, res.errs...)
		if res.fatal || res.next.IsZero() {
			break
		}
		wait := max(res.next.Sub(d.clock().Now()), 0)
		if wait > budget {
			break
		}
		budget -= wait
		if wait > 0 && !sleep(ctx, d.clock(), wait, nil) {
			break
		}
	}
	pending, rerr := d.Outbox.Messages(model.MessagePending)
	if rerr != nil {
		errs = append(errs, fmt.Errorf("read outbox: %w", rerr))
	}
	if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	return sent, len(pending) + parked, errors.Join(errs...)
}

// Run is the daemon's delivery loop: it drains whenever woken (a poll recorded
// something), when a destination's wait is over, or every Idle. It honours Retry-After and
// backs off as long as it takes, and returns nil when ctx is done.
func (d *Deliverer) Run(ctx context.Context, wake <-chan struct{}) error {
	if !d.busy.TryLock() {
		return ErrBusy
	}
	defer d.busy.Unlock()
	st := d.state()
	idle := cmp.Or(d.Idle, DefaultIdle)
	for {
		res := d.cycle(ctx)
		for _, err := range res.errs {
			d.log().Warn("delivery", "error", err)
		}
		if ctx.Err() != nil {
			return nil
		}
		wait := idle
		if !res.next.IsZero() {
			wait = min(wait, max(res.next.Sub(d.clock().Now()), 0))
		}
		if wait == 0 {
			continue
		}
		if !sleep(ctx, d.clock(), wait, wake, st.resume) {
			return nil
		}
	}
}

// sleep waits d, or until one of the wake channels fires; false when ctx is done.
func sleep(ctx context.Context, c Clock, d time.Duration, wake ...<-chan struct{}) bool {
	var w0, w1 <-chan struct{}
	if len(wake) > 0 {
		w0 = wake[0]
	}
	if len(wake) > 1 {
		w1 = wake[1]
	}
	select {
	case <-ctx.Done():
		return false
	case <-c.After(d):
	case <-w0:
	case <-w1:
	}
	return true
}

// Paused reports whether delivery is paused by an auth error, and why. Nothing is dropped
// meanwhile; Resume (on config reload) or a restart ends the pause.
func (d *Deliverer) Paused() (bool, string) {
	st := d.state()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(st.paused) == 0 {
		return false, ""
	}
	var reasons []string
	for _, acct := range slices.Sorted(maps.Keys(st.paused)) {
		reasons = append(reasons, acct+": "+st.paused[acct])
	}
	return true, strings.Join(reasons, "; ")
}

// Resume ends an auth pause and wakes Run, for a config reload that fixed the credential.
// A credential still wrong pauses again at the next send.
func (d *Deliverer) Resume() {
	st := d.state()
	d.mu.Lock()
	clear(st.paused)
	d.mu.Unlock()
	select {
	case st.resume <- struct{}{}:
	default:
	}
}

// item is one thing to send in a pass: a message, or a digest of old messages.
type item struct {
	msg    *model.Message
	digest []model.Message
	dest   Destination
}

func (it *item) first() uint64 {
	if it.msg != nil {
		return it.msg.ID
	}
	return it.digest[0].ID
}

// incidents are the incident keys the item stands for, for per-incident ordering.
func (it *item) incidents() []string {
	if it.msg != nil {
		if k := incidentKey(it.msg); k != "" {
			return []string{k}
		}
		return nil
	}
	var ks []string
	for i := range it.digest {
		if k := incidentKey(&it.digest[i]); k != "" {
			ks = append(ks, k)
		}
	}
	return ks
}

func incidentKey(m *model.Message) string {
	if m.IncidentID == "" {
		return ""
	}
	return m.Source + "/" + m.IncidentID
}

// cycleResult is what one pass did.
type cycleResult struct {
	sent, parked int
	// next is the earliest time a destination with work waiting is due again; zero when
	// nothing waits on a clock (all sent, or held by a pause or a parked root).
	next  time.Time
	errs  []error
	fatal bool // the outbox could not be read
}

func (r *cycleResult) due(t time.Time) {
	if r.next.IsZero() || t.Before(r.next) {
		r.next = t
	}
}

// outcome is what became of one send.
type outcome int

const (
	outSent    outcome = iota // the sink took it (or it had been taken before a crash)
	outHeld                   // not sent, still pending; the destination's clock says when
	outParked                 // parked: it waits for `watcher outbox retry`
	outGone                   // parked because its destination is gone
	outPaused                 // not sent: its credential is paused
)

// cycle sends everything that is due now, at most one message per paced destination,
// and says when to come back.
func (d *Deliverer) cycle(ctx context.Context) cycleResult {
	var res cycleResult
	msgs, err := d.Outbox.Messages(model.MessagePending, model.MessageParked)
	if err != nil {
		res.errs = append(res.errs, fmt.Errorf("read outbox: %w", err))
		res.fatal = true
		return res
	}
	now := d.clock().Now()

	// A parked root holds its incident's later messages: they wait, unparked and unsent,
	// until someone retries the root.
	parkedRoots := map[string]bool{}
	for i := range msgs {
		if m := &msgs[i]; m.State == model.MessageParked && m.Event == model.EventNew {
			parkedRoots[incidentKey(m)] = true
		}
	}
	items := d.items(msgs, now)

	d.retryEdits(ctx, now, &res)

	held := map[string]bool{}    // incidents whose earlier message did not go in this pass
	blocked := map[string]bool{} // destinations done for this pass
	gone := map[string]string{}  // destinations found gone in this pass → why
	hold := func(it *item) {
		for _, k := range it.incidents() {
			held[k] = true
		}
	}
	for i := range items {
		if ctx.Err() != nil {
			return res
		}
		it := &items[i]
		waiting := false
		for _, k := range it.incidents() {
			waiting = waiting || held[k] || (it.msg != nil && parkedRoots[k])
		}
		if waiting {
			hold(it)
			continue
		}
		key := it.dest.Key
		if why, ok := gone[key]; ok {
			res.parked += d.park(it, why, &res)
			if it.msg != nil && it.msg.Event == model.EventNew {
				parkedRoots[incidentKey(it.msg)] = true
			}
			hold(it)
			continue
		}
		if blocked[key] || d.isPaused(it.dest.Account) {
			hold(it)
			continue
		}
		ds := d.dest(key)
		if now.Before(ds.next) {
			blocked[key] = true
			res.due(ds.next)
			hold(it)
			continue
		}
		out, called, why := d.deliver(ctx, it, &res)
		now = d.clock().Now()
		d.mu.Lock()
		switch out {
		case outSent:
			ds.failures = 0
		case outHeld:
			// deliver moved the clock (backoff, Retry-After, or the plain-text retry).
		case outParked:
			res.parked += len(it.all())
		case outGone:
			res.parked += len(it.all())
			gone[key] = why
		}
		if called && it.dest.Interval > 0 && ds.next.Before(now.Add(it.dest.Interval)) {
			ds.next = now.Add(it.dest.Interval)
		}
		next := ds.next
		d.mu.Unlock()
		switch out {
		case outSent:
			res.sent += len(it.all())
		case outParked, outGone:
			if it.msg != nil && it.msg.Event == model.EventNew {
				parkedRoots[incidentKey(it.msg)] = true
			}
		}
		if out != outSent {
			hold(it)
		}
		switch {
		case next.After(now):
			blocked[key] = true
			res.due(next)
		case out == outHeld:
			// Retried in the next pass (the plain-text retry of an unpaced sink); the
			// destination's later messages must not overtake it meanwhile.
			blocked[key] = true
			res.due(now)
		}
	}
	return res
}

// all is the messages an item stands for.
func (it *item) all() []model.Message {
	if it.msg != nil {
		return []model.Message{*it.msg}
	}
	return it.digest
}

// items lists what is to be sent, in outbox order: each pending message, except that
// those older than max_queue_age become one digest per destination, placed where the
// oldest of them was.
func (d *Deliverer) items(msgs []model.Message, now time.Time) []item {
	st := d.state()
	var cutoff time.Time
	if age := d.maxQueueAge(); age > 0 {
		cutoff = now.Add(-age)
	}
	var out []item
	digests := map[string]int{} // destination key → index in out
	for i := range msgs {
		m := &msgs[i]
		d.mu.Lock()
		done := st.delivered[m.ID]
		d.mu.Unlock()
		if m.State != model.MessagePending || done {
			continue
		}
		dest := d.Notifier.Destination(m.Source)
		if !cutoff.IsZero() && m.CreatedAt.Before(cutoff) {
			if j, ok := digests[dest.Key]; ok {
				out[j].digest = append(out[j].digest, *m)
				continue
			}
			digests[dest.Key] = len(out)
			out = append(out, item{digest: []model.Message{*m}, dest: dest})
			continue
		}
		out = append(out, item{msg: m, dest: dest})
	}
	slices.SortStableFunc(out, func(a, b item) int { return cmp.Compare(a.first(), b.first()) })
	return out
}

func (d *Deliverer) dest(key string) *destState {
	st := d.state()
	d.mu.Lock()
	defer d.mu.Unlock()
	ds := st.dests[key]
	if ds == nil {
		ds = &destState{}
		st.dests[key] = ds
	}
	return ds
}

func (d *Deliverer) isPaused(account string) bool {
	st := d.state()
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := st.paused[account]
	return ok
}

// deliver sends one item and handles the answer. called reports whether the sink was
// asked (pacing counts it); why is the error text when the destination is gone.
func (d *Deliverer) deliver(ctx context.Context, it *item, res *cycleResult) (out outcome, called bool, why string) {
	st := d.state()
	var n *Notification
	plainKey := ""
	if it.msg != nil {
		m := it.msg
		var err error
		n, err = d.notification(m, it.dest)
		if err != nil {
			// The archive cannot give what the message announces: no retry will fix
			// that by itself, so park it where `watcher outbox` shows it.
			res.errs = append(res.errs, fmt.Errorf("message %d: %w", m.ID, err))
			d.markAttempt(m.ID, err.Error(), true, res)
			return outParked, false, ""
		}
		if n == nil {
			// A root whose thread is already stored: it was posted and the process died
			// before MarkSent. Marking it now is all that is left to do.
			if err := d.Outbox.MarkSent(m.ID); err != nil {
				res.errs = append(res.errs, fmt.Errorf("mark message %d sent: %w", m.ID, err))
			}
			return outSent, false, ""
		}
		plainKey = fmt.Sprint(m.ID)
	} else {
		n = d.digest(it)
		plainKey = "digest:" + it.dest.Key
	}
	d.mu.Lock()
	n.PlainText = st.plain[plainKey]
	d.mu.Unlock()

	rcpt, err := d.Notifier.Send(ctx, n)
	if err == nil {
		d.sent(ctx, it, n, rcpt, res)
		d.mu.Lock()
		delete(st.plain, plainKey)
		d.mu.Unlock()
		return outSent, true, ""
	}
	if ctx.Err() != nil {
		// Shutting down mid-send: not the message's fault, and no answer to act on.
		return outHeld, true, ""
	}
	return d.failed(it, n, plainKey, err, res)
}

// sent records a delivered item: the thread of a new root first, so that a crash before
// MarkSent leaves a root that is recognised as posted rather than posted twice, then
// MarkSent, then the root's update for a reply.
func (d *Deliverer) sent(ctx context.Context, it *item, n *Notification, rcpt Receipt, res *cycleResult) {
	st := d.state()
	if it.msg == nil {
		for _, m := range it.digest {
			// Marked sent although never posted one by one: the digest accounted for
			// them, and "sent" is what keeps them from being counted as queued forever.
			d.markSent(m.ID, res)
		}
		return
	}
	m := it.msg
	if it.dest.Threads && n.Root() && rcpt.TS != "" {
		th := Thread{Channel: rcpt.Channel, TS: rcpt.TS}
		d.mu.Lock()
		st.threads[incidentKey(m)] = th
		d.mu.Unlock()
		if err := d.Outbox.SetThread(m.Source, m.IncidentID, th.Channel, th.TS); err != nil {
			res.errs = append(res.errs, fmt.Errorf("message %d: remember thread: %w", m.ID, err))
		}
	}
	d.markSent(m.ID, res)
	if n.Thread != nil && n.Version != nil {
		if t, ok := d.Notifier.(Threader); ok {
			edit := *n
			edit.PlainText = false
			d.editRoot(ctx, t, it.dest, &edit, res)
		}
	}
}

func (d *Deliverer) markSent(id uint64, res *cycleResult) {
	if err := d.Outbox.MarkSent(id); err != nil {
		st := d.state()
		d.mu.Lock()
		st.delivered[id] = true
		d.mu.Unlock()
		res.errs = append(res.errs, fmt.Errorf("mark message %d sent: %w", id, err))
	}
}

func (d *Deliverer) markAttempt(id uint64, errText string, park bool, res *cycleResult) {
	if err := d.Outbox.MarkAttempt(id, errText, park); err != nil {
		res.errs = append(res.errs, fmt.Errorf("message %d: record attempt: %w", id, err))
	}
}

// failed acts on a send error, by its class. This and editRoot are the only places that
// decide what an error means for delivery.
func (d *Deliverer) failed(it *item, n *Notification, plainKey string, err error, res *cycleResult) (outcome, bool, string) {
	st := d.state()
	class, retryAfter := ClassOf(err)
	now := d.clock().Now()
	ds := d.dest(it.dest.Key)
	log := d.log().With("destination", it.dest.Key, "class", class.String(), "error", err.Error())
	if it.msg != nil {
		log = log.With("message", it.msg.ID, "source", it.msg.Source)
	}
	text := err.Error()
	switch class {
	case RateLimited:
		// Slack's own wait, exactly; not counted as an attempt, since it says nothing
		// about the message.
		if retryAfter <= 0 {
			retryAfter = DefaultRateLimitWait
		}
		d.mu.Lock()
		ds.next = now.Add(retryAfter)
		d.mu.Unlock()
		log.Info("rate limited", "retry_after", retryAfter)
		return outHeld, true, ""
	case Auth:
		d.mu.Lock()
		st.paused[it.dest.Account] = text
		d.mu.Unlock()
		log.Error("delivery paused: the credential was refused; fix the config and reload")
		d.attempt(it, text, false, res)
		res.errs = append(res.errs, fmt.Errorf("delivery paused (%s): %w", it.dest.Account, err))
		return outPaused, true, ""
	case ChannelGone:
		log.Error("destination gone: parking its messages")
		d.attempt(it, text, true, res)
		res.errs = append(res.errs, fmt.Errorf("%s: %w", it.dest.Key, err))
		return outGone, true, text
	case Rejected:
		d.mu.Lock()
		again := !st.plain[plainKey]
		if again {
			st.plain[plainKey] = true
		} else {
			delete(st.plain, plainKey)
		}
		d.mu.Unlock()
		if again {
			log.Warn("message rejected: retrying as plain text")
			d.attempt(it, text, false, res)
			return outHeld, true, ""
		}
		log.Error("message rejected as plain text too: parking it")
		d.attempt(it, text, true, res)
		res.errs = append(res.errs, fmt.Errorf("%s: %w", it.dest.Key, err))
		return outParked, true, ""
	}
	d.mu.Lock()
	ds.failures++
	backoff := min(backoffBase<<min(ds.failures-1, 16), backoffMax)
	ds.next = now.Add(d.jitter(backoff))
	d.mu.Unlock()
	log.Warn("send failed: backing off", "backoff", backoff)
	d.attempt(it, text, false, res)
	res.errs = append(res.errs, fmt.Errorf("%s: %w", it.dest.Key, err))
	return outHeld, true, ""
}

// attempt records a failed try on every message of the item.
func (d *Deliverer) attempt(it *item, text string, park bool, res *cycleResult) {
	for _, m := range it.all() {
		d.markAttempt(m.ID, text, park, res)
	}
}

// park parks an item without sending it: its destination was found gone in this pass.
func (d *Deliverer) park(it *item, why string, res *cycleResult) int {
	d.attempt(it, why, true, res)
	return len(it.all())
}

// editRoot updates an incident's root after a reply. It is best effort by design: the
// reply, the durable part, is already delivered, and the next reply edits the root
// again. A transient failure or a pause keeps the edit for a later pass; a rejected edit
// is tried once as plain text; a gone channel drops it.
func (d *Deliverer) editRoot(ctx context.Context, t Threader, dest Destination, n *Notification, res *cycleResult) {
	st := d.state()
	ds := d.dest(dest.Key)
	key := incidentKey(&n.Message)
	for {
		err := t.UpdateRoot(ctx, n)
		if err == nil || ctx.Err() != nil {
			d.mu.Lock()
			delete(st.edits, key)
			d.mu.Unlock()
			return
		}
		class, retryAfter := ClassOf(err)
		log := d.log().With("destination", dest.Key, "incident", key, "class", class.String(), "error", err.Error())
		d.mu.Lock()
		switch class {
		case Rejected:
			if !n.PlainText {
				n.PlainText = true
				d.mu.Unlock()
				continue
			}
			delete(st.edits, key)
			log.Warn("root update rejected: left as it was")
		case ChannelGone:
			delete(st.edits, key)
			log.Warn("root update failed: channel gone")
		case Auth:
			st.paused[dest.Account] = err.Error()
			st.edits[key] = n
			log.Error("delivery paused: the credential was refused; fix the config and reload")
		case RateLimited:
			st.edits[key] = n
			ds.next = d.clock().Now().Add(cmp.Or(retryAfter, DefaultRateLimitWait))
			res.due(ds.next)
		default:
			st.edits[key] = n
			res.due(d.clock().Now().Add(d.jitter(backoffBase)))
			log.Warn("root update failed: will retry")
		}
		d.mu.Unlock()
		return
	}
}

// retryEdits redoes root updates that failed before, for destinations that are due.
func (d *Deliverer) retryEdits(ctx context.Context, now time.Time, res *cycleResult) {
	t, ok := d.Notifier.(Threader)
	if !ok {
		return
	}
	st := d.state()
	d.mu.Lock()
	keys := slices.Sorted(maps.Keys(st.edits))
	d.mu.Unlock()
	for _, k := range keys {
		d.mu.Lock()
		n := st.edits[k]
		d.mu.Unlock()
		dest := d.Notifier.Destination(n.Message.Source)
		if d.isPaused(dest.Account) {
			continue
		}
		if ds := d.dest(dest.Key); now.Before(ds.next) {
			res.due(ds.next)
			continue
		}
		d.editRoot(ctx, t, dest, n, res)
	}
}

// notification loads what a sink needs to render m. It returns nil, nil for a root that
// was already posted (its thread is stored).
func (d *Deliverer) notification(m *model.Message, dest Destination) (*Notification, error) {
	n := &Notification{Message: *m, SourceTitle: d.title(m.Source)}
	if m.IncidentID == "" {
		return n, nil
	}
	v, err := d.Outbox.Version(m.Source, m.IncidentID, m.Version)
	if err != nil {
		return nil, fmt.Errorf("load %s/%s version %d: %w", m.Source, m.IncidentID, m.Version, err)
	}
	n.Version = v
	if base := strings.TrimRight(d.BaseURL, "/"); base != "" {
		n.IncidentLink = fmt.Sprintf("%s/incidents/%s/%s", base, m.Source, m.IncidentID)
		n.Link = fmt.Sprintf("%s/changes/%d", n.IncidentLink, m.Version)
		if m.Event == model.EventRemoved {
			n.Link = n.IncidentLink // a removal is no version: the incident page shows it
		}
	}
	if dest.Threads {
		th, err := d.thread(m)
		if err != nil {
			return nil, err
		}
		switch {
		case th != nil && m.Event == model.EventNew:
			return nil, nil
		case th != nil:
			n.Thread = th
		}
	}
	if n.Root() && (m.CatchUp || m.Event != model.EventNew) && m.Version > 1 {
		// A root that comes late (announced late, or a thread whose root was never
		// posted) says what came before it.
		if first, err := d.Outbox.Version(m.Source, m.IncidentID, 1); err == nil {
			n.FirstSeen = first.ObservedAt
		}
	}
	return n, nil
}

// thread returns the incident's thread, nil when it has none.
func (d *Deliverer) thread(m *model.Message) (*Thread, error) {
	st := d.state()
	d.mu.Lock()
	th, ok := st.threads[incidentKey(m)]
	d.mu.Unlock()
	if ok {
		return &th, nil
	}
	ch, ts, err := d.Outbox.Thread(m.Source, m.IncidentID)
	if err != nil {
		return nil, fmt.Errorf("thread of %s/%s: %w", m.Source, m.IncidentID, err)
	}
	if ts == "" {
		return nil, nil
	}
	return &Thread{Channel: ch, TS: ts}, nil
}

// digest builds the notification standing for an item's old messages.
func (d *Deliverer) digest(it *item) *Notification {
	counts := map[string]int{}
	for _, m := range it.digest {
		counts[d.title(m.Source)]++
	}
	dg := &Digest{Count: len(it.digest), MaxAge: d.maxQueueAge(), Link: strings.TrimRight(d.BaseURL, "/")}
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		dg.Sources = append(dg.Sources, SourceCount{Source: s, Count: counts[s]})
	}
	if dg.Link != "" {
		dg.Link += "/"
	}
	return &Notification{Digest: dg}
}

func (d *Deliverer) title(source string) string {
	if d.Title != nil {
		if t := d.Title(source); t != "" {
			return t
		}
	}
	return source
}
