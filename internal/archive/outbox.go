package archive

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// The outbox keeps undelivered messages (pending and parked) apart from delivered ones
// (bucket "sent", same sequence numbers): the notifier scans the outbox on every round,
// and that scan must stay as short as the queue, not grow with every message ever sent.

// Messages returns the messages in the given states (every state when none is given),
// oldest first.
func (s *Store) Messages(states ...model.MessageState) ([]model.Message, error) {
	want := func(st model.MessageState) bool { return len(states) == 0 || slices.Contains(states, st) }
	var out []model.Message
	err := s.view(func(tx *bolt.Tx) error {
		buckets := []*bolt.Bucket{}
		if want(model.MessagePending) || want(model.MessageParked) {
			buckets = append(buckets, tx.Bucket(layout.BucketOutbox))
		}
		if want(model.MessageSent) {
			buckets = append(buckets, tx.Bucket(layout.BucketSent))
		}
		for _, b := range buckets {
			err := b.ForEach(func(k, v []byte) error {
				var m model.Message
				if err := json.Unmarshal(v, &m); err != nil {
					return fmt.Errorf("message %x: %w", k, err)
				}
				if want(m.State) {
					out = append(out, m)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrapErr("messages", err)
	}
	slices.SortFunc(out, func(a, b model.Message) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// OutboxCounts counts the undelivered messages by state (pending, parked), in one short
// read transaction, decoding only each row's state.
func (s *Store) OutboxCounts() (map[model.MessageState]int, error) {
	counts := map[model.MessageState]int{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(layout.BucketOutbox).ForEach(func(k, v []byte) error {
			var m struct {
				State model.MessageState `json:"state"`
			}
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("message %x: %w", k, err)
			}
			counts[m.State]++
			return nil
		})
	})
	if err != nil {
		return nil, wrapErr("count outbox", err)
	}
	return counts, nil
}

// Message returns one message, delivered or not, or ErrNotFound.
func (s *Store) Message(id uint64) (model.Message, error) {
	var m model.Message
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(layout.BucketOutbox).Get(layout.SeqKey(id))
		if v == nil {
			v = tx.Bucket(layout.BucketSent).Get(layout.SeqKey(id))
		}
		if v == nil {
			return ErrNotFound
		}
		return json.Unmarshal(v, &m)
	})
	return m, wrapErr(fmt.Sprintf("message %d", id), err)
}

// MarkSent records that message id was delivered, in one short transaction, right after
// Slack's answer: only a crash in that instant can repeat a message. Marking a
// delivered message again is a no-op, so a retried call is harmless.
func (s *Store) MarkSent(id uint64) error {
	return wrapErr(fmt.Sprintf("mark sent %d", id), s.markSent(id, false))
}

// MarkReplySent is MarkSent for a reply in an incident's thread, after which the root must
// be updated to show it: the update is recorded as owed in the same transaction
// (RootEdits), so that a crash, or a restart while Slack refuses updates, cannot leave
// the root showing an older status. ClearRootEdit settles it.
func (s *Store) MarkReplySent(id uint64) error {
	return wrapErr(fmt.Sprintf("mark reply sent %d", id), s.markSent(id, true))
}

func (s *Store) markSent(id uint64, reply bool) error {
	return s.update(func(tx *bolt.Tx) error {
		outbox, sent := tx.Bucket(layout.BucketOutbox), tx.Bucket(layout.BucketSent)
		m, err := undelivered(outbox, id)
		if err != nil {
			if sent.Get(layout.SeqKey(id)) != nil {
				return nil
			}
			return err
		}
		if err := moveToSent(outbox, sent, m); err != nil {
			return err
		}
		if !reply {
			return nil
		}
		return editThread(tx, m.Source, m.IncidentID, func(th *thread) bool {
			if th.Edit >= id {
				return false
			}
			th.Edit = id
			return true
		})
	})
}

// MarkAttempt records a failed delivery of message id: one more attempt and its error.
// With park the message is parked: the notifier skips it until Retry, so one bad message
// or channel never blocks the others.
func (s *Store) MarkAttempt(id uint64, errText string, park bool) error {
	return s.updateMessage(id, "mark attempt", func(m *model.Message) { attempted(m, errText, park, time.Time{}) })
}

// attempted counts one more failed try of m: its error, whether it is parked, and (when
// not zero) the time before which its destination must not be tried again.
func attempted(m *model.Message, errText string, park bool, notBefore time.Time) {
	m.Attempts++
	m.LastError = errText
	if park {
		m.State = model.MessageParked
	}
	if !notBefore.IsZero() {
		m.NotBefore = notBefore.UTC()
	}
}

// MarkAttempts records a failed delivery of every message in ids, in one transaction
// (a digest stands for many): one more attempt each and its error; with park they are
// parked; a non-zero notBefore is the time before which their destination must not be
// tried again (Slack's Retry-After), kept with the rows so that a restart, or the next
// `watcher poll`, still honours it. Messages no longer undelivered (dropped meanwhile)
// are skipped.
func (s *Store) MarkAttempts(ids []uint64, errText string, park bool, notBefore time.Time) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		outbox := tx.Bucket(layout.BucketOutbox)
		for _, id := range ids {
			m, err := undelivered(outbox, id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			attempted(&m, errText, park, notBefore)
			if err := layout.PutJSON(outbox, layout.SeqKey(id), &m); err != nil {
				return err
			}
		}
		return nil
	})
	return wrapErr(fmt.Sprintf("mark %d attempts", len(ids)), err)
}

// MarkSentAll is MarkSent for many messages in one transaction: those a digest stood for.
// Messages no longer undelivered (sent or dropped meanwhile) are skipped.
func (s *Store) MarkSentAll(ids []uint64) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		outbox, sent := tx.Bucket(layout.BucketOutbox), tx.Bucket(layout.BucketSent)
		for _, id := range ids {
			m, err := undelivered(outbox, id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := moveToSent(outbox, sent, m); err != nil {
				return err
			}
		}
		return nil
	})
	return wrapErr(fmt.Sprintf("mark %d sent", len(ids)), err)
}

// moveToSent moves an undelivered message m to the bucket of delivered ones.
func moveToSent(outbox, sent *bolt.Bucket, m model.Message) error {
	m.State = model.MessageSent
	if err := layout.PutJSON(sent, layout.SeqKey(m.ID), &m); err != nil {
		return err
	}
	return outbox.Delete(layout.SeqKey(m.ID))
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
	err := s.update(func(tx *bolt.Tx) error {
		outbox := tx.Bucket(layout.BucketOutbox)
		if _, err := undelivered(outbox, id); err != nil {
			return err
		}
		return outbox.Delete(layout.SeqKey(id))
	})
	return wrapErr(fmt.Sprintf("drop %d", id), err)
}

// updateMessage changes an undelivered message in one transaction.
func (s *Store) updateMessage(id uint64, op string, change func(*model.Message)) error {
	err := s.update(func(tx *bolt.Tx) error {
		outbox := tx.Bucket(layout.BucketOutbox)
		m, err := undelivered(outbox, id)
		if err != nil {
			return err
		}
		change(&m)
		return layout.PutJSON(outbox, layout.SeqKey(id), &m)
	})
	return wrapErr(fmt.Sprintf("%s %d", op, id), err)
}

// undelivered reads a message of the outbox; ErrNotFound if it is not there (unknown or
// already delivered).
func undelivered(outbox *bolt.Bucket, id uint64) (model.Message, error) {
	var m model.Message
	v := outbox.Get(layout.SeqKey(id))
	if v == nil {
		return m, fmt.Errorf("no undelivered message %d: %w", id, ErrNotFound)
	}
	err := json.Unmarshal(v, &m)
	return m, err
}

// thread is where an incident's Slack thread lives, and the root update still owed to it.
type thread struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
	// Edit is the delivered reply whose state the root must be updated to show, until
	// that update is done (MarkReplySent); 0 when the root is up to date.
	Edit uint64 `json:"edit,omitempty"`
}

// Thread returns the Slack channel and timestamp of an incident's root message, empty when
// none was posted yet; ErrNotFound for an unknown incident.
func (s *Store) Thread(source, id string) (channel, ts string, err error) {
	id = model.URLID(id)
	err = s.view(func(tx *bolt.Tx) error {
		src := layout.Source(tx, source)
		if layout.Get(layout.Sub(src, layout.BucketIncidents), []byte(id)) == nil {
			return ErrNotFound
		}
		th, _, err := readThread(tx, source, id)
		channel, ts = th.Channel, th.TS
		return err
	})
	return channel, ts, wrapErr("thread "+source+"/"+id, err)
}

// SetThread remembers where an incident's root message was posted, so every later change
// set replies in that thread, across restarts. ErrNotFound for an unknown incident.
func (s *Store) SetThread(source, id, channel, ts string) error {
	id = model.URLID(id)
	err := s.update(func(tx *bolt.Tx) error {
		src := layout.Source(tx, source)
		if layout.Get(layout.Sub(src, layout.BucketIncidents), []byte(id)) == nil {
			return ErrNotFound
		}
		return layout.PutJSON(src.Bucket(layout.BucketThreads), []byte(id), thread{Channel: channel, TS: ts})
	})
	return wrapErr("set thread "+source+"/"+id, err)
}

// ClearRootEdit forgets the root update owed for message msg (MarkReplySent), once it
// is done or given up: one owed for a newer reply since stays.
func (s *Store) ClearRootEdit(source, id string, msg uint64) error {
	settle := func(th *thread) bool {
		if th.Edit != msg {
			return false
		}
		th.Edit = 0
		return true
	}
	// Read first: when a newer reply owes the update now, nothing is written.
	var owed bool
	if err := s.view(func(tx *bolt.Tx) error {
		th, ok, err := readThread(tx, source, id)
		owed = ok && settle(&th)
		return err
	}); err != nil || !owed {
		return wrapErr("clear root edit "+source+"/"+id, err)
	}
	return wrapErr("clear root edit "+source+"/"+id, s.update(func(tx *bolt.Tx) error {
		return editThread(tx, source, id, settle)
	}))
}

// readThread reads an incident's stored thread; ok is false when it has none.
func readThread(tx *bolt.Tx, source, id string) (th thread, ok bool, err error) {
	v := layout.Get(layout.Sub(layout.Source(tx, source), layout.BucketThreads), []byte(model.URLID(id)))
	if v == nil {
		return th, false, nil
	}
	return th, true, json.Unmarshal(v, &th)
}

// editThread changes an incident's stored thread with f, writing only when f says so. An
// incident without a stored thread (a webhook destination, or a root whose SetThread
// failed) is left alone.
func editThread(tx *bolt.Tx, source, id string, f func(*thread) bool) error {
	th, ok, err := readThread(tx, source, id)
	if err != nil || !ok || !f(&th) {
		return err
	}
	return layout.PutJSON(layout.Source(tx, source).Bucket(layout.BucketThreads), []byte(model.URLID(id)), th)
}

// RootEdits returns the delivered replies whose root updates are still owed
// (MarkReplySent), oldest first, for a notifier starting up to redo them. It reads every
// stored thread: one scan, at start.
func (s *Store) RootEdits() ([]model.Message, error) {
	var out []model.Message
	err := s.view(func(tx *bolt.Tx) error {
		sent := tx.Bucket(layout.BucketSent)
		return tx.Bucket(layout.BucketSources).ForEachBucket(func(name []byte) error {
			threads := layout.Sub(layout.Source(tx, string(name)), layout.BucketThreads)
			if threads == nil {
				return nil
			}
			return threads.ForEach(func(k, v []byte) error {
				var th thread
				if err := json.Unmarshal(v, &th); err != nil {
					return fmt.Errorf("%s/%s: %w", name, k, err)
				}
				if th.Edit == 0 {
					return nil
				}
				data := sent.Get(layout.SeqKey(th.Edit))
				if data == nil {
					return nil // pruned or never marked sent: nothing to redo
				}
				var m model.Message
				if err := json.Unmarshal(data, &m); err != nil {
					return fmt.Errorf("message %d: %w", th.Edit, err)
				}
				out = append(out, m)
				return nil
			})
		})
	})
	slices.SortFunc(out, func(a, b model.Message) int { return cmp.Compare(a.ID, b.ID) })
	return out, wrapErr("root edits", err)
}

// putMessage appends msg to the outbox as pending, numbered by the bucket's sequence so
// the outbox reads oldest first; the sequence rolls back with a failed transaction.
func putMessage(outbox *bolt.Bucket, msg model.Message) (uint64, error) {
	seq, err := outbox.NextSequence()
	if err != nil {
		return 0, err
	}
	msg.ID, msg.State = seq, model.MessagePending
	return seq, layout.PutJSON(outbox, layout.SeqKey(seq), &msg)
}
