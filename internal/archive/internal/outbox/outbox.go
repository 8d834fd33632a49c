// Package outbox is the archive's queue of notifications, inside a bbolt transaction the
// caller holds: the rows still to deliver (pending and parked) and those delivered, each
// incident's Slack thread, and the root updates still owed to threads. A message is put
// in the transaction that writes what it announces (internal/archive's Record), so a
// crash never leaves one without the other.
//
// Undelivered messages are kept apart from delivered ones (bucket "sent", same sequence
// numbers): the notifier scans the outbox on every round, and that scan must stay as
// short as the queue, not grow with every message ever sent.
package outbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Put appends msg to the outbox as pending, numbered by the bucket's sequence so the
// outbox reads oldest first; the sequence rolls back with a failed transaction.
func Put(tx *bolt.Tx, msg model.Message) (uint64, error) {
	outbox := tx.Bucket(layout.BucketOutbox)
	seq, err := outbox.NextSequence()
	if err != nil {
		return 0, err
	}
	msg.ID, msg.State = seq, model.MessagePending
	return seq, layout.PutJSON(outbox, layout.SeqKey(seq), &msg)
}

// PutRouted writes msg once per receiver route gives n (nil route: once, for the
// default sink, Receiver ""), and returns how many rows it wrote. A notification no
// route takes writes none: what it announces is archived all the same.
func PutRouted(tx *bolt.Tx, route func(*model.Notice) []string, msg model.Message, n *model.Notice) (int, error) {
	receivers := []string{""}
	if route != nil {
		receivers = route(n)
	}
	for i, r := range receivers {
		msg.Receiver = r
		if _, err := Put(tx, msg); err != nil {
			return i, err
		}
	}
	return len(receivers), nil
}

// List returns the messages whose state want accepts, by bucket: the undelivered ones
// when want accepts pending or parked, then the delivered ones when it accepts sent.
func List(tx *bolt.Tx, want func(model.MessageState) bool) ([]model.Message, error) {
	var out []model.Message
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
			return nil, err
		}
	}
	return out, nil
}

// Counts counts the undelivered messages by state, decoding only each row's state.
func Counts(tx *bolt.Tx) (map[model.MessageState]int, error) {
	counts := map[model.MessageState]int{}
	err := tx.Bucket(layout.BucketOutbox).ForEach(func(k, v []byte) error {
		var m struct {
			State model.MessageState `json:"state"`
		}
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("message %x: %w", k, err)
		}
		counts[m.State]++
		return nil
	})
	return counts, err
}

// Get returns one message, delivered or not, or layout.ErrNotFound.
func Get(tx *bolt.Tx, id uint64) (model.Message, error) {
	var m model.Message
	v := tx.Bucket(layout.BucketOutbox).Get(layout.SeqKey(id))
	if v == nil {
		v = tx.Bucket(layout.BucketSent).Get(layout.SeqKey(id))
	}
	if v == nil {
		return m, layout.ErrNotFound
	}
	err := json.Unmarshal(v, &m)
	return m, err
}

// MarkSent moves message id to the delivered ones; one delivered already is left as it
// is. For a reply (in an incident's thread, or the component thread: MessageThread) the
// root update it calls for is recorded as owed, in the same transaction (EditThread).
func MarkSent(tx *bolt.Tx, id uint64, reply bool) error {
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
	thread := MessageThread(&m)
	if !reply || thread == "" {
		return nil
	}
	return EditThread(tx, m.Source, thread, func(th *Thread) bool {
		if th.Edit >= id {
			return false
		}
		th.Edit = id
		return true
	})
}

// MarkSentAll is MarkSent for many messages; those no longer undelivered are skipped.
func MarkSentAll(tx *bolt.Tx, ids []uint64) error {
	outbox, sent := tx.Bucket(layout.BucketOutbox), tx.Bucket(layout.BucketSent)
	return eachUndelivered(outbox, ids, func(_ uint64, m model.Message) error { return moveToSent(outbox, sent, m) })
}

// moveToSent moves an undelivered message m to the bucket of delivered ones.
func moveToSent(outbox, sent *bolt.Bucket, m model.Message) error {
	m.State = model.MessageSent
	if err := layout.PutJSON(sent, layout.SeqKey(m.ID), &m); err != nil {
		return err
	}
	return outbox.Delete(layout.SeqKey(m.ID))
}

// Attempted counts one more failed try of m: its error, whether it is parked, and (when
// not zero) the time before which its destination must not be tried again.
func Attempted(m *model.Message, errText string, park bool, notBefore time.Time) {
	m.Attempts++
	m.LastError = errText
	if park {
		m.State = model.MessageParked
	}
	if !notBefore.IsZero() {
		m.NotBefore = notBefore.UTC()
	}
}

// MarkAttempts counts a failed try of every message in ids (Attempted); those no
// longer undelivered are skipped.
func MarkAttempts(tx *bolt.Tx, ids []uint64, errText string, park bool, notBefore time.Time) error {
	outbox := tx.Bucket(layout.BucketOutbox)
	return eachUndelivered(outbox, ids, func(id uint64, m model.Message) error {
		Attempted(&m, errText, park, notBefore)
		return layout.PutJSON(outbox, layout.SeqKey(id), &m)
	})
}

// eachUndelivered calls fn with each message of ids still undelivered, in the order of
// ids, skipping the others (sent or dropped meanwhile).
func eachUndelivered(outbox *bolt.Bucket, ids []uint64, fn func(id uint64, m model.Message) error) error {
	for _, id := range ids {
		m, err := undelivered(outbox, id)
		if errors.Is(err, layout.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(id, m); err != nil {
			return err
		}
	}
	return nil
}

// Update changes an undelivered message with change.
func Update(tx *bolt.Tx, id uint64, change func(*model.Message)) error {
	outbox := tx.Bucket(layout.BucketOutbox)
	m, err := undelivered(outbox, id)
	if err != nil {
		return err
	}
	change(&m)
	return layout.PutJSON(outbox, layout.SeqKey(id), &m)
}

// Drop deletes an undelivered message; a delivered one is layout.ErrNotFound.
func Drop(tx *bolt.Tx, id uint64) error {
	outbox := tx.Bucket(layout.BucketOutbox)
	if _, err := undelivered(outbox, id); err != nil {
		return err
	}
	return outbox.Delete(layout.SeqKey(id))
}

// undelivered reads a message of the outbox; layout.ErrNotFound if it is not there
// (unknown or already delivered).
func undelivered(outbox *bolt.Bucket, id uint64) (model.Message, error) {
	var m model.Message
	v := outbox.Get(layout.SeqKey(id))
	if v == nil {
		return m, fmt.Errorf("no undelivered message %d: %w", id, layout.ErrNotFound)
	}
	err := json.Unmarshal(v, &m)
	return m, err
}
