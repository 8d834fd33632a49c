package outbox

// Each incident's Slack thread, the source's component thread (model.ComponentThread),
// and the root update still owed to each.

import (
	"encoding/json"
	"fmt"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Thread is where an incident's Slack thread lives, and the root update still owed to it.
type Thread struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
	// Edit is the delivered reply whose state the root must be updated to show, until
	// that update is done (MarkSent of a reply); 0 when the root is up to date.
	Edit uint64 `json:"edit,omitempty"`
	// Version is, for the component thread, the component version whose message is its
	// root (model.ComponentVersion.Thread); 0 for an incident's thread.
	Version int `json:"version,omitempty"`
}

// threadKey is the key of a thread: model.ComponentThread as it is, an incident's
// URL id.
func threadKey(id string) []byte {
	if id == model.ComponentThread {
		return []byte(id)
	}
	return []byte(model.URLID(id))
}

// MessageThread is the thread a message replies in, by what ReadThread takes: its
// incident, the component thread for a component message of no incident, "" for none
// (a source's own events).
func MessageThread(m *model.Message) string {
	switch {
	case m.IncidentID != "":
		return m.IncidentID
	case m.Event == model.EventComponentDegraded || m.Event == model.EventComponentRecovered:
		return model.ComponentThread
	}
	return ""
}

// ReadThread reads an incident's stored thread, or with id model.ComponentThread the
// source's component thread; ok is false when it has none.
func ReadThread(tx *bolt.Tx, source, id string) (th Thread, ok bool, err error) {
	v := layout.Get(layout.Sub(layout.Source(tx, source), layout.BucketThreads), threadKey(id))
	if v == nil {
		return th, false, nil
	}
	return th, true, json.Unmarshal(v, &th)
}

// SetThread stores where an incident's root message was posted; layout.ErrNotFound for
// an unknown incident.
func SetThread(tx *bolt.Tx, source, id, channel, ts string) error {
	src := layout.Source(tx, source)
	if layout.Get(layout.Sub(src, layout.BucketIncidents), []byte(id)) == nil {
		return layout.ErrNotFound
	}
	return layout.PutJSON(src.Bucket(layout.BucketThreads), []byte(id), Thread{Channel: channel, TS: ts})
}

// SetComponentThread stores where the root of a source's component thread was posted:
// the message of component version version. It replaces the thread before, which had
// closed; layout.ErrNotFound for a source without that version.
func SetComponentThread(tx *bolt.Tx, source string, version int, channel, ts string) error {
	src := layout.Source(tx, source)
	if version < 1 || version > 1<<32-1 || layout.Get(layout.Sub(src, layout.BucketComponents), layout.ComponentKey(uint32(version))) == nil {
		return layout.ErrNotFound
	}
	return layout.PutJSON(src.Bucket(layout.BucketThreads), []byte(model.ComponentThread),
		Thread{Channel: channel, TS: ts, Version: version})
}

// EditThread changes an incident's stored thread with f, writing only when f says so. An
// incident without a stored thread (a webhook destination, or a root whose SetThread
// failed) is left alone.
func EditThread(tx *bolt.Tx, source, id string, f func(*Thread) bool) error {
	th, ok, err := ReadThread(tx, source, id)
	if err != nil || !ok || !f(&th) {
		return err
	}
	return layout.PutJSON(layout.Source(tx, source).Bucket(layout.BucketThreads), threadKey(id), th)
}

// RootEdits returns the delivered replies whose root updates are still owed, reading
// every stored thread.
func RootEdits(tx *bolt.Tx) ([]model.Message, error) {
	var out []model.Message
	sent := tx.Bucket(layout.BucketSent)
	err := tx.Bucket(layout.BucketSources).ForEachBucket(func(name []byte) error {
		threads := layout.Sub(layout.Source(tx, string(name)), layout.BucketThreads)
		if threads == nil {
			return nil
		}
		return threads.ForEach(func(k, v []byte) error {
			var th Thread
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
	return out, err
}
