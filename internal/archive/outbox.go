package archive

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// The outbox's rows and threads are internal/archive/internal/outbox's; these are the
// transactions around them.

// Messages returns the messages in the given states (every state when none is given),
// oldest first.
func (s *Store) Messages(states ...model.MessageState) ([]model.Message, error) {
	want := func(st model.MessageState) bool { return len(states) == 0 || slices.Contains(states, st) }
	out, err := read(s, "messages", func(tx *bolt.Tx) ([]model.Message, error) { return outbox.List(tx, want) })
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b model.Message) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// OutboxCounts counts the undelivered messages by state (pending, parked), in one short
// read transaction, decoding only each row's state.
func (s *Store) OutboxCounts() (map[model.MessageState]int, error) {
	var counts map[model.MessageState]int
	err := s.db.View(func(tx *bolt.Tx) (err error) {
		counts, err = outbox.Counts(tx)
		return err
	})
	if err != nil {
		return nil, wrapErr("count outbox", err)
	}
	return counts, nil
}

// Message returns one message, delivered or not, or ErrNotFound.
func (s *Store) Message(id uint64) (model.Message, error) {
	return read(s, fmt.Sprintf("message %d", id), func(tx *bolt.Tx) (model.Message, error) { return outbox.Get(tx, id) })
}

// MarkSent records that message id was delivered, in one short transaction, right after
// Slack's answer: only a crash in that instant can repeat a message. Marking a
// delivered message again is a no-op, so a retried call is harmless.
func (s *Store) MarkSent(id uint64) error {
	return wrapErr(fmt.Sprintf("mark sent %d", id), s.update(func(tx *bolt.Tx) error {
		return outbox.MarkSent(tx, id, false)
	}))
}

// MarkReplySent is MarkSent for a reply in an incident's thread (or, for a component
// message of no incident, the component thread), after which the root must
// be updated to show it: the update is recorded as owed in the same transaction
// (RootEdits), so that a crash, or a restart while Slack refuses updates, cannot leave
// the root showing an older status. ClearRootEdit settles it.
func (s *Store) MarkReplySent(id uint64) error {
	return wrapErr(fmt.Sprintf("mark reply sent %d", id), s.update(func(tx *bolt.Tx) error {
		return outbox.MarkSent(tx, id, true)
	}))
}

// MarkAttempt records a failed delivery of message id: one more attempt and its error.
// With park the message is parked: the notifier skips it until Retry, so one bad message
// or channel never blocks the others.
func (s *Store) MarkAttempt(id uint64, errText string, park bool) error {
	return s.updateMessage(id, "mark attempt", func(m *model.Message) { outbox.Attempted(m, errText, park, time.Time{}) })
}

// MarkAttempts records a failed delivery of every message in ids, in one transaction
// (a digest stands for many): one more attempt each and its error; with park they are
// parked; a non-zero notBefore is the time before which their destination must not be
// tried again (Slack's Retry-After), kept with the rows so that a restart, or the next
// `watcher poll`, still honours it. Messages no longer undelivered (dropped meanwhile)
// are skipped.
func (s *Store) MarkAttempts(ids []uint64, errText string, park bool, notBefore time.Time) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		return outbox.MarkAttempts(tx, ids, errText, park, notBefore)
	})
	return wrapErr(fmt.Sprintf("mark %d attempts", len(ids)), err)
}

// MarkSentAll is MarkSent for many messages in one transaction: those a digest stood for.
// Messages no longer undelivered (sent or dropped meanwhile) are skipped.
func (s *Store) MarkSentAll(ids []uint64) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return outbox.MarkSentAll(tx, ids) })
	return wrapErr(fmt.Sprintf("mark %d sent", len(ids)), err)
}

// Retry puts a parked message back in the queue (`watcher outbox retry`), with a fresh
// attempt count since someone has fixed, or means to watch, what parked it. A pending
// message stays as it is.
func (s *Store) Retry(id uint64) error {
	return s.updateMessage(id, "retry", func(m *model.Message) {
		if m.State == model.MessageParked {
			m.State, m.Attempts = model.MessagePending, 0
		}
	})
}

// Drop deletes an undelivered message (`watcher outbox drop`). A delivered message cannot
// be dropped: ErrNotFound.
func (s *Store) Drop(id uint64) error {
	err := s.update(func(tx *bolt.Tx) error { return outbox.Drop(tx, id) })
	return wrapErr(fmt.Sprintf("drop %d", id), err)
}

// updateMessage changes an undelivered message in one transaction.
func (s *Store) updateMessage(id uint64, op string, change func(*model.Message)) error {
	err := s.update(func(tx *bolt.Tx) error { return outbox.Update(tx, id, change) })
	return wrapErr(fmt.Sprintf("%s %d", op, id), err)
}

// Thread returns the Slack channel and timestamp of an incident's root message, empty when
// none was posted yet; ErrNotFound for an unknown incident.
func (s *Store) Thread(source, id string) (channel, ts string, err error) {
	id = model.URLID(id)
	err = s.view(func(tx *bolt.Tx) error {
		if layout.Get(layout.Sub(layout.Source(tx, source), layout.BucketIncidents), []byte(id)) == nil {
			return ErrNotFound
		}
		th, _, err := outbox.ReadThread(tx, source, id)
		channel, ts = th.Channel, th.TS
		return err
	})
	return channel, ts, wrapErr("thread "+source+"/"+id, err)
}

// SetThread remembers where an incident's root message was posted, so every later change
// set replies in that thread, across restarts. ErrNotFound for an unknown incident.
func (s *Store) SetThread(source, id, channel, ts string) error {
	id = model.URLID(id)
	err := s.update(func(tx *bolt.Tx) error { return outbox.SetThread(tx, source, id, channel, ts) })
	return wrapErr("set thread "+source+"/"+id, err)
}

// ComponentThread returns the Slack channel and timestamp of the root of a source's
// component thread, and the component version whose message that root is; empty when
// none was posted. A component message replies there when its version's Thread is that
// version; otherwise its thread's root was never posted, and it is posted as the root.
func (s *Store) ComponentThread(source string) (channel, ts string, version int, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		th, _, err := outbox.ReadThread(tx, source, model.ComponentThread)
		channel, ts, version = th.Channel, th.TS, th.Version
		return err
	})
	return channel, ts, version, wrapErr("component thread "+source, err)
}

// SetComponentThread remembers where the root of a source's component thread was
// posted: the message of component version version (whose Thread is version). It
// replaces the thread before, which had closed. ErrNotFound for an unknown version.
func (s *Store) SetComponentThread(source string, version int, channel, ts string) error {
	err := s.update(func(tx *bolt.Tx) error { return outbox.SetComponentThread(tx, source, version, channel, ts) })
	return wrapErr("set component thread "+source, err)
}

// ClearRootEdit forgets the root update owed for message msg (MarkReplySent), once it
// is done or given up: one owed for a newer reply since stays. id is the message's
// IncidentID: "" for a message of the component thread.
func (s *Store) ClearRootEdit(source, id string, msg uint64) error {
	if id == "" {
		id = model.ComponentThread
	}
	settle := func(th *outbox.Thread) bool {
		if th.Edit != msg {
			return false
		}
		th.Edit = 0
		return true
	}
	// Read first: when a newer reply owes the update now, nothing is written.
	var owed bool
	if err := s.view(func(tx *bolt.Tx) error {
		th, ok, err := outbox.ReadThread(tx, source, id)
		owed = ok && settle(&th)
		return err
	}); err != nil || !owed {
		return wrapErr("clear root edit "+source+"/"+id, err)
	}
	return wrapErr("clear root edit "+source+"/"+id, s.update(func(tx *bolt.Tx) error {
		return outbox.EditThread(tx, source, id, settle)
	}))
}

// RootEdits returns the delivered replies whose root updates are still owed
// (MarkReplySent), oldest first, for a notifier starting up to redo them. It reads every
// stored thread: one scan, at start.
func (s *Store) RootEdits() ([]model.Message, error) {
	out, err := read(s, "root edits", outbox.RootEdits)
	slices.SortFunc(out, func(a, b model.Message) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}
