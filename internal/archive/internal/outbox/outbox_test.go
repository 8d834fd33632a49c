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

func TestMessageThread(t *testing.T) {
	for _, tt := range []struct {
		m    model.Message
		want string
	}{
		{model.Message{IncidentID: "a", Event: model.EventChanged}, "a"},
		{model.Message{IncidentID: "a", Event: model.EventComponentDegraded}, "a"},
		{model.Message{Event: model.EventComponentRecovered}, model.ComponentThread},
		{model.Message{Event: model.EventComponentDegraded}, model.ComponentThread},
		{model.Message{Event: model.EventSourceDown}, ""},
	} {
		if got := MessageThread(&tt.m); got != tt.want {
			t.Errorf("MessageThread(%s %q): got %q, want %q", tt.m.Event, tt.m.IncidentID, got, tt.want)
		}
	}
}

// A reply in the component thread owes its root an update, as one in an incident's
// thread does; a source event owes none.
func TestComponentThreadRootEdit(t *testing.T) {
	db := newDB(t)
	var reply, down uint64
	update(t, db, func(tx *bolt.Tx) error {
		src := layout.Source(tx, "acme")
		b, err := src.CreateBucket(layout.BucketComponents)
		if err != nil {
			return err
		}
		if err := b.Put(layout.ComponentKey(1), []byte{1}); err != nil {
			return err
		}
		if err := SetComponentThread(tx, "acme", 2, "C", "1"); !errors.Is(err, layout.ErrNotFound) {
			t.Errorf("SetComponentThread(2): got %v, want ErrNotFound", err)
		}
		if err := SetComponentThread(tx, "acme", 1, "C", "1"); err != nil {
			return err
		}
		if reply, err = Put(tx, model.Message{Source: "acme", Version: 1, Event: model.EventComponentRecovered}); err != nil {
			return err
		}
		down, err = Put(tx, model.Message{Source: "acme", Event: model.EventSourceDown})
		return err
	})
	update(t, db, func(tx *bolt.Tx) error {
		if err := MarkSent(tx, down, true); err != nil {
			return err
		}
		if err := MarkSent(tx, reply, true); err != nil {
			return err
		}
		th, ok, err := ReadThread(tx, "acme", model.ComponentThread)
		if err != nil || !ok || th.Edit != reply || th.Version != 1 || th.TS != "1" {
			t.Errorf("component thread: got %+v, %v, %v", th, ok, err)
		}
		owed, err := RootEdits(tx)
		if err != nil || len(owed) != 1 || owed[0].ID != reply {
			t.Errorf("RootEdits: got %+v, %v", owed, err)
		}
		return nil
	})
}
