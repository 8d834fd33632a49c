package notify

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// A pass (cycle) walks the outbox once, in order, and sends what is due. Everything that
// decides what happens to one message lives here: the order rules (an incident's messages
// in turn, a reply behind its root), the destination clocks, the digest of old messages
// and the handling of each class of error.

// item is one thing to send in a pass: a message, or a digest of old messages, or a
// flood (the messages of one poll of a source, too many to send one by one).
type item struct {
	msg    *model.Message
	digest []model.Message
	flood  bool // digest holds a flood's messages
	dest   Destination
}

func (it *item) first() uint64 {
	if it.msg != nil {
		return it.msg.ID
	}
	return it.digest[0].ID
}

// incidents are the thread keys (incidentKey) the item stands for, for per-thread
// ordering.
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

// incidentKey names the thread a message goes to, for ordering and root edits: its
// incident's, or the source's component thread (model.ComponentThread, which no URL id
// can be) for a component message of no incident; "" for none.
func incidentKey(m *model.Message) string {
	switch {
	case m.IncidentID != "":
		return m.Source + "/" + m.IncidentID
	case IsComponentMessage(m):
		return m.Source + "/" + model.ComponentThread
	}
	return ""
}

// cycleResult is what one pass did.
type cycleResult struct {
	sent int
	// next is the earliest time a destination with work waiting is due again; zero when
	// nothing waits on a clock (all sent, or held by a pause or a parked root).
	next time.Time
	// errs are the archive's failures: Run logs them, Drain returns them.
	errs []error
	// failed are the send failures by message, logged where they were handled; Drain
	// reports those of messages it leaves undelivered.
	failed map[uint64]error
	fatal  bool // the outbox could not be read
}

// fail records a send failure for every message of it.
func (r *cycleResult) fail(it *item, err error) {
	if r.failed == nil {
		r.failed = map[uint64]error{}
	}
	for _, m := range it.all() {
		r.failed[m.ID] = err
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (r *cycleResult) due(t time.Time) {
	if r.next.IsZero() || t.Before(r.next) {
		r.next = t
	}
}

// outcome is what became of one send.
type outcome int

const (
	outSent   outcome = iota // the sink took it (or it had been taken before a crash)
	outHeld                  // not sent, still pending; the destination's clock says when
	outParked                // parked: it waits for `watcher outbox retry`
	outGone                  // parked because its destination is gone
	outPaused                // not sent: its credential is paused
)

// cycle sends everything that is due now, at most one message per paced destination,
// and says when to come back.
func (d *Deliverer) cycle(ctx context.Context) cycleResult {
	var res cycleResult
	msgs, err := d.messages()
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

	d.loadEdits(&res)
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
			waiting = waiting || held[k] || (it.msg != nil && parkedRoots[k] && !d.Standalone)
		}
		if waiting {
			hold(it)
			continue
		}
		key := it.dest.Key
		if why, ok := gone[key]; ok {
			d.park(it, why, &res)
			if it.msg != nil && it.msg.Event == model.EventNew {
				parkedRoots[incidentKey(it.msg)] = true
			}
			continue
		}
		if d.isPaused(it.dest.Account) {
			hold(it)
			continue
		}
		ds := d.dest(key)
		if nb := it.notBefore(); nb.After(now) {
			// A Retry-After kept with the row, from before a restart or by another
			// process: the destination waits it out.
			d.mu.Lock()
			ds.next = maxTime(ds.next, nb)
			d.mu.Unlock()
		}
		if blocked[key] || now.Before(ds.next) {
			// Due again when the destination's clock says; a destination with nothing
			// more to send sets no wake-up, so Drain does not wait for nothing.
			blocked[key] = true
			res.due(maxTime(ds.next, now))
			hold(it)
			continue
		}
		out, called, why := d.deliver(ctx, it, &res)
		now = d.clock().Now()
		d.mu.Lock()
		switch out {
		case outSent:
			ds.failures = 0
		case outGone:
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
		if out == outHeld || out == outPaused {
			// Still to go: the incident's later messages wait for it. A parked message
			// holds nothing back (a parked root does, through parkedRoots).
			hold(it)
		}
		if next.After(now) || out == outHeld {
			// The destination is done for this pass: paced, backing off, or retrying
			// this item (as plain text, after a 429…), which its later messages must not
			// overtake.
			blocked[key] = true
		}
		if out == outHeld {
			res.due(maxTime(next, now))
		}
	}
	return res
}

// notBefore is the latest Message.NotBefore of the item's messages.
func (it *item) notBefore() time.Time {
	var t time.Time
	for _, m := range it.all() {
		t = maxTime(t, m.NotBefore)
	}
	return t
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
	var fresh []item            // the messages young enough to go one by one
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
		fresh = append(fresh, item{msg: m, dest: dest})
	}
	out = append(out, d.floods(fresh)...)
	slices.SortStableFunc(out, func(a, b item) int { return cmp.Compare(a.first(), b.first()) })
	return out
}

// pollKey names the poll that wrote a message: the archive gives every message of one
// recorded snapshot the same source and creation time.
type pollKey struct {
	source string
	at     int64 // CreatedAt in Unix nanoseconds
}

// floods collapses the incident messages of any one poll of a source that wrote more
// than MaxPerPoll of them into one flood item, placed where the first of them was; the
// others stay as they are, component messages among them (one per thread and poll, and
// short by themselves). A flood's incidents get no thread of their own: a later
// message of one of them starts its thread, with the catch-up line of a late root.
func (d *Deliverer) floods(items []item) []item {
	limit := cmp.Or(d.MaxPerPoll, DefaultMaxPerPoll)
	if limit < 0 {
		return items
	}
	key := func(m *model.Message) pollKey { return pollKey{m.Source, m.CreatedAt.UnixNano()} }
	counts := map[pollKey]int{}
	flooding := func(m *model.Message) bool { return m.IncidentID != "" && !IsComponentMessage(m) }
	for i := range items {
		if m := items[i].msg; flooding(m) {
			counts[key(m)]++
		}
	}
	out := make([]item, 0, len(items))
	floods := map[pollKey]int{} // → index in out
	for _, it := range items {
		k := key(it.msg)
		if !flooding(it.msg) || counts[k] <= limit {
			out = append(out, it)
			continue
		}
		if j, ok := floods[k]; ok {
			out[j].digest = append(out[j].digest, *it.msg)
			continue
		}
		floods[k] = len(out)
		out = append(out, item{digest: []model.Message{*it.msg}, flood: true, dest: it.dest})
	}
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
			d.log().Error("cannot render a message: parking it", "message", m.ID, "source", m.Source, "error", err)
			res.fail(it, err)
			d.attempts(it.all(), err.Error(), true, time.Time{}, res)
			return outParked, false, ""
		}
		if n == nil {
			// A root whose thread is already stored: it was posted and the process died
			// before MarkSent. Marking it now is all that is left to do.
			d.markSent(m.ID, false, res)
			return outSent, false, ""
		}
		plainKey = fmt.Sprint(m.ID)
	} else if it.flood {
		n = d.flood(it)
		plainKey = fmt.Sprintf("flood:%d", it.first())
	} else {
		n = d.digest(it)
		plainKey = "digest:" + it.dest.Key
	}
	d.mu.Lock()
	n.PlainText = st.plain[plainKey]
	d.mu.Unlock()

	rcpt, err := d.Notifier.Send(ctx, n)
	d.report(ctx, err)
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
	return d.failed(it, plainKey, err, res)
}

// report hands a send's result to OnResult. A send cut short by shutdown is no answer
// of the sink's, and is not counted.
func (d *Deliverer) report(ctx context.Context, err error) {
	switch {
	case d.OnResult == nil:
	case err == nil:
		d.OnResult("sent")
	case ctx.Err() == nil:
		c, _ := ClassOf(err)
		d.OnResult(c.String())
	}
}

// sent records a delivered item: the thread of a new root first, so that a crash before
// MarkSent leaves a root that is recognised as posted rather than posted twice, then
// MarkSent, then the root's update for a reply.
func (d *Deliverer) sent(ctx context.Context, it *item, n *Notification, rcpt Receipt, res *cycleResult) {
	st := d.state()
	if it.msg == nil {
		// Marked sent although never posted one by one: the digest accounted for them,
		// and "sent" is what keeps them from being counted as queued forever.
		ids := make([]uint64, len(it.digest))
		for i := range it.digest {
			ids[i] = it.digest[i].ID
		}
		if err := d.Outbox.MarkSentAll(ids); err != nil {
			d.mu.Lock()
			for _, id := range ids {
				st.delivered[id] = true
			}
			d.mu.Unlock()
			res.errs = append(res.errs, fmt.Errorf("mark %d digested messages sent: %w", len(ids), err))
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
	if it.dest.Threads && n.ComponentOpens(true) && rcpt.TS != "" {
		d.rememberComponentThread(n, rcpt, res)
	}
	t, threaded := d.Notifier.(Threader)
	editRoot := threaded && n.Thread != nil && n.editsRoot()
	// A reply's root update is owed from its mark-sent on, whatever happens to this
	// process: a crash, or a restart while Slack refuses it, must not leave the root
	// showing an older status.
	d.markSent(m.ID, editRoot, res)
	if editRoot {
		edit := *n
		edit.PlainText = false
		d.editRoot(ctx, t, it.dest, &edit, res)
	}
}

func (d *Deliverer) markSent(id uint64, reply bool, res *cycleResult) {
	mark := d.Outbox.MarkSent
	if reply {
		mark = d.Outbox.MarkReplySent
	}
	if err := mark(id); err != nil {
		st := d.state()
		d.mu.Lock()
		st.delivered[id] = true
		d.mu.Unlock()
		res.errs = append(res.errs, fmt.Errorf("mark message %d sent: %w", id, err))
	}
}

// attempts records a failed try on msgs, in one transaction.
func (d *Deliverer) attempts(msgs []model.Message, errText string, park bool, notBefore time.Time, res *cycleResult) {
	ids := make([]uint64, len(msgs))
	for i := range msgs {
		ids[i] = msgs[i].ID
	}
	if err := d.Outbox.MarkAttempts(ids, errText, park, notBefore); err != nil {
		res.errs = append(res.errs, fmt.Errorf("message %d: record attempt: %w", ids[0], err))
	}
}

// failed acts on a send error, by its class. This and editRoot are the only places that
// decide what an error means for delivery.
func (d *Deliverer) failed(it *item, plainKey string, err error, res *cycleResult) (outcome, bool, string) {
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
		// Slack's own wait, exactly. It is an attempt like any other, and the wait is
		// kept with the rows: a restart or the next `watcher poll` honours it too.
		if retryAfter <= 0 {
			retryAfter = DefaultRateLimitWait
		}
		d.mu.Lock()
		ds.next = now.Add(retryAfter)
		next := ds.next
		d.mu.Unlock()
		log.Info("rate limited", "retry_after", retryAfter)
		d.attempts(it.all(), text, false, next, res)
		res.fail(it, destErr(it, err))
		return outHeld, true, ""
	case Auth:
		d.mu.Lock()
		st.paused[it.dest.Account] = text
		d.mu.Unlock()
		log.Error("delivery paused: the credential was refused; fix the config and reload")
		d.attempt(it, text, false, res)
		res.fail(it, fmt.Errorf("delivery paused (%s): %w", it.dest.Account, err))
		return outPaused, true, ""
	case ChannelGone:
		log.Error("destination gone: parking its messages")
		d.attempt(it, text, true, res)
		res.fail(it, destErr(it, err))
		return outGone, true, text
	case Rejected:
		d.mu.Lock()
		again := !st.plain[plainKey] && !final(err)
		if again {
			st.plain[plainKey] = true
		} else {
			delete(st.plain, plainKey)
		}
		d.mu.Unlock()
		if again {
			log.Warn("message rejected: retrying as plain text")
			d.attempt(it, text, false, res)
			res.fail(it, destErr(it, err))
			return outHeld, true, ""
		}
		if final(err) {
			log.Error("message rejected: parking it")
		} else {
			log.Error("message rejected as plain text too: parking it")
		}
		d.attempt(it, text, true, res)
		res.fail(it, destErr(it, err))
		return outParked, true, ""
	}
	d.mu.Lock()
	backoff := d.backOff(ds)
	d.mu.Unlock()
	log.Warn("send failed: backing off", "backoff", backoff)
	d.attempt(it, text, false, res)
	res.fail(it, destErr(it, err))
	return outHeld, true, ""
}

// backOff counts one more transient failure of a destination and moves its clock:
// 2 s, 4 s, 8 s, … up to 5 min, jittered so that many destinations failing together do
// not retry together. The caller holds d.mu.
func (d *Deliverer) backOff(ds *destState) time.Duration {
	ds.failures++
	b := min(backoffBase<<min(ds.failures-1, 16), backoffMax)
	ds.next = d.clock().Now().Add(d.jitter(b))
	return b
}

// destErr names the destination in a send error, unless the sink's error does already.
func destErr(it *item, err error) error {
	if strings.Contains(err.Error(), it.dest.Key) {
		return err
	}
	return fmt.Errorf("%s: %w", it.dest.Key, err)
}

// attempt records a failed try on every message of the item.
func (d *Deliverer) attempt(it *item, text string, park bool, res *cycleResult) {
	d.attempts(it.all(), text, park, time.Time{}, res)
}

// park parks an item without sending it: its destination was found gone in this pass.
func (d *Deliverer) park(it *item, why string, res *cycleResult) {
	d.attempt(it, why, true, res)
	res.fail(it, fmt.Errorf("%s: %s", it.dest.Key, why))
}
