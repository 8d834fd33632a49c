package outbox

// Each incident's Slack thread, and the root update still owed to it.

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
}

// ReadThread reads an incident's stored thread; ok is false when it has none.
func ReadThread(tx *bolt.Tx, source, id string) (th Thread, ok bool, err error) {
	v := layout.Get(layout.Sub(layout.Source(tx, source), layout.BucketThreads), []byte(model.URLID(id)))
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

// EditThread changes an incident's stored thread with f, writing only when f says so. An
// incident without a stored thread (a webhook destination, or a root whose SetThread
// failed) is left alone.
func EditThread(tx *bolt.Tx, source, id string, f func(*Thread) bool) error {
	th, ok, err := ReadThread(tx, source, id)
	if err != nil || !ok || !f(&th) {
		return err
	}
	return layout.PutJSON(layout.Source(tx, source).Bucket(layout.BucketThreads), []byte(model.URLID(id)), th)
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
