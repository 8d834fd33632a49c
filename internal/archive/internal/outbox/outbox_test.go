package outbox

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// newDB is a bbolt file with the archive's tree and one source, acme, holding incident a.
func newDB(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "watcher.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	update(t, db, func(tx *bolt.Tx) error {
		if err := layout.Upgrade(tx, 0, t0); err != nil {
			return err
		}
		src, err := layout.CreateSource(tx, "acme")
		if err != nil {
			return err
		}
		return src.Bucket(layout.BucketIncidents).Put([]byte("a"), []byte{0})
	})
	return db
}

func update(t *testing.T, db *bolt.DB, fn func(*bolt.Tx) error) {
	t.Helper()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func states(t *testing.T, db *bolt.DB) []string {
	t.Helper()
	var out []string
	update(t, db, func(tx *bolt.Tx) error {
		ms, err := List(tx, func(model.MessageState) bool { return true })
		for _, m := range ms {
			out = append(out, string(m.State))
		}
		return err
	})
	return out
}

// TestQueue: messages are numbered in order, move to sent once, count a failed try each,
// and only undelivered ones can be dropped.
func TestQueue(t *testing.T) {
	db := newDB(t)
	update(t, db, func(tx *bolt.Tx) error {
		for i, ev := range []model.Event{model.EventNew, model.EventChanged, model.EventResolved} {
			id, err := Put(tx, model.Message{Source: "acme", IncidentID: "a", Event: ev, CreatedAt: t0})
			if err != nil || id != uint64(i+1) {
				t.Errorf("Put %d: got id %d, %v", i, id, err)
			}
		}
		return nil
	})
	update(t, db, func(tx *bolt.Tx) error {
		if err := MarkSent(tx, 1, false); err != nil {
			t.Errorf("MarkSent: %v", err)
		}
		if err := MarkSent(tx, 1, false); err != nil {
			t.Errorf("MarkSent again: %v", err)
		}
		if err := MarkSent(tx, 9, false); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("MarkSent of an unknown message: %v", err)
		}
		return MarkAttempts(tx, []uint64{2, 1, 9}, "timeout", true, t0.Add(time.Minute))
	})
	if got, want := states(t, db), []string{"parked", "pending", "sent"}; !slices.Equal(got, want) {
		t.Errorf("states: got %v, want %v", got, want)
	}
	update(t, db, func(tx *bolt.Tx) error {
		if m, err := Get(tx, 2); err != nil || m.Attempts != 1 || m.LastError != "timeout" || !m.NotBefore.Equal(t0.Add(time.Minute)) {
			t.Errorf("Get 2: got %+v, %v", m, err)
		}
		if c, err := Counts(tx); err != nil || c[model.MessageParked] != 1 || c[model.MessagePending] != 1 || len(c) != 2 {
			t.Errorf("Counts: got %v, %v", c, err)
		}
		if err := Drop(tx, 1); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("Drop of a delivered message: %v", err)
		}
		if err := Drop(tx, 2); err != nil {
			t.Errorf("Drop: %v", err)
		}
		if _, err := Get(tx, 2); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("Get of a dropped message: %v", err)
		}
		return MarkSentAll(tx, []uint64{3, 2})
	})
	if got, want := states(t, db), []string{"sent", "sent"}; !slices.Equal(got, want) {
		t.Errorf("states: got %v, want %v", got, want)
	}
}

// TestThreads: a thread is kept only for an archived incident, and a reply marked sent
// owes its root an update until it is settled.
func TestThreads(t *testing.T) {
	db := newDB(t)
	update(t, db, func(tx *bolt.Tx) error {
		if err := SetThread(tx, "acme", "b", "C1", "1.0"); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("SetThread of an unknown incident: %v", err)
		}
		if err := SetThread(tx, "acme", "a", "C1", "1.0"); err != nil {
			t.Fatal(err)
		}
		if _, err := Put(tx, model.Message{Source: "acme", IncidentID: "a", Event: model.EventNew}); err != nil {
			t.Fatal(err)
		}
		_, err := Put(tx, model.Message{Source: "acme", IncidentID: "a", Event: model.EventChanged})
		return err
	})
	update(t, db, func(tx *bolt.Tx) error {
		if err := MarkSent(tx, 1, false); err != nil {
			return err
		}
		return MarkSent(tx, 2, true)
	})
	update(t, db, func(tx *bolt.Tx) error {
		th, ok, err := ReadThread(tx, "acme", "a")
		if err != nil || !ok || th != (Thread{Channel: "C1", TS: "1.0", Edit: 2}) {
			t.Errorf("ReadThread: got %+v, %v, %v", th, ok, err)
		}
		if ms, err := RootEdits(tx); err != nil || len(ms) != 1 || ms[0].ID != 2 {
			t.Errorf("RootEdits: got %+v, %v", ms, err)
		}
		return EditThread(tx, "acme", "a", func(th *Thread) bool { th.Edit = 0; return true })
	})
	update(t, db, func(tx *bolt.Tx) error {
		if ms, err := RootEdits(tx); err != nil || len(ms) != 0 {
			t.Errorf("RootEdits after the edit: got %+v, %v", ms, err)
		}
		return nil
	})
}
