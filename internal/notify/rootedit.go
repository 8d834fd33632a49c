package notify

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Root edits: after a reply in an incident's thread, the thread's root message is updated
// to show the incident's latest state. The edit is best effort and kept in memory (and in
// the archive, for the next run) until it lands, is refused, or its channel is gone.

// loadEdits takes in, once, the root updates a previous run of the notifier owed
// (Outbox.RootEdits), unless this run already has a newer one for the incident.
func (d *Deliverer) loadEdits(res *cycleResult) {
	st := d.state()
	d.mu.Lock()
	loaded := st.editsLoaded
	d.mu.Unlock()
	if _, ok := d.Notifier.(Threader); loaded || !ok {
		return
	}
	msgs, err := d.Outbox.RootEdits()
	msgs = slices.DeleteFunc(msgs, func(m model.Message) bool { return m.Receiver != d.Receiver })
	if err != nil {
		res.errs = append(res.errs, fmt.Errorf("read owed root updates: %w", err))
		return // tried again next cycle
	}
	for i := range msgs {
		m := &msgs[i]
		dest := d.Notifier.Destination(m.Source)
		n, err := d.notification(m, dest)
		if err != nil {
			res.errs = append(res.errs, fmt.Errorf("message %d: owed root update: %w", m.ID, err))
			continue
		}
		if n == nil || n.Thread == nil || !n.editsRoot() {
			continue
		}
		key := editKey(n)
		d.mu.Lock()
		if cur, ok := st.edits[key]; !ok || cur.Message.ID < m.ID {
			st.edits[key] = n
		}
		d.mu.Unlock()
	}
	d.mu.Lock()
	st.editsLoaded = true
	d.mu.Unlock()
}

// editRoot updates an incident's root after a reply. It is best effort by design: the
// reply, the durable part, is already delivered, and the next reply edits the root
// again. A transient failure or a pause keeps the edit for a later pass; a rejected edit
// is tried once as plain text; a gone channel drops it.
func (d *Deliverer) editRoot(ctx context.Context, t Threader, dest Destination, n *Notification, res *cycleResult) {
	st := d.state()
	ds := d.dest(dest.Key)
	key := editKey(n)
	done := func(res *cycleResult) {
		m := &n.Message
		if err := d.Outbox.ClearRootEdit(m.Source, m.IncidentID, m.ID); err != nil {
			res.errs = append(res.errs, fmt.Errorf("message %d: forget root update: %w", m.ID, err))
		}
	}
	for {
		err := t.UpdateRoot(ctx, n)
		if ctx.Err() != nil {
			return // shutting down: still owed, in the archive, for the next run
		}
		if err == nil {
			// Whatever older update was still owed, the root now shows n.
			d.mu.Lock()
			delete(st.edits, key)
			d.mu.Unlock()
			done(res)
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
			log.Warn("root update rejected: left as it was")
		case ChannelGone:
			log.Warn("root update failed: channel gone")
		case Auth:
			st.paused[dest.Account] = err.Error()
			log.Error("delivery paused: the credential was refused; fix the config and reload")
		case RateLimited:
			ds.next = d.clock().Now().Add(cmp.Or(retryAfter, DefaultRateLimitWait))
			res.due(ds.next)
		default:
			// Slack is failing: the destination backs off, its messages and this edit
			// alike.
			d.backOff(ds)
			res.due(ds.next)
			log.Warn("root update failed: will retry")
		}
		// Refused for good (rejected even as plain text, or the channel is gone), the
		// edit is dropped; any other failure keeps it for a later pass.
		refused := class == Rejected || class == ChannelGone
		if refused {
			delete(st.edits, key)
		} else {
			st.edits[key] = n
		}
		d.mu.Unlock()
		if refused {
			done(res)
		}
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

// editsRoot reports whether n, a reply, calls for its root's update: a change set of an
// incident, or a component message in the component thread, whose root shows the
// components alerted there. A component message in an incident's thread changes
// nothing its root shows, nor does a maintenance's reminder.
func (n *Notification) editsRoot() bool {
	if n.Components != nil {
		return n.Message.IncidentID == ""
	}
	return n.Version != nil && !IsReminder(&n.Message)
}

// editKey names the root update n owes: by its thread, and for the component thread by
// its root too, since a source's component threads follow one another and the root of
// one that closed must still be brought to its end when the next one opens.
func editKey(n *Notification) string {
	k := incidentKey(&n.Message)
	if n.Components != nil && n.Message.IncidentID == "" && n.Thread != nil {
		k += "@" + n.Thread.TS
	}
	return k
}
