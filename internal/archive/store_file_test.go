package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// storeFileCases: opening, the layout version, read-only use, reopening, healing, pruning,
// backups and bad input.
var storeFileCases = []storeCase{
	{"second open of a held file fails naming it", func(t *testing.T, ts *testStore) {
		for _, ro := range []bool{false, true} {
			start := time.Now()
			_, err := Open(ts.path, Options{Timeout: 100 * time.Millisecond, ReadOnly: ro})
			if !errors.Is(err, ErrLocked) {
				t.Fatalf("second Open (read-only %v): got %v, want ErrLocked", ro, err)
			}
			if msg := err.Error(); !strings.Contains(msg, ts.path) || !strings.Contains(msg, "another watcher holds it") {
				t.Errorf("error: got %q, want the path and who holds it", msg)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("lock wait: got %v, want about the timeout", d)
			}
		}
	}},

	{"MustExist and ReadOnly never create", func(t *testing.T, ts *testStore) {
		missing := filepath.Join(t.TempDir(), "missing.db")
		for _, o := range []Options{{MustExist: true}, {ReadOnly: true}} {
			_, err := Open(missing, o)
			if !errors.Is(err, ErrNotExist) || err.Error() != "no archive at "+missing {
				t.Errorf("Open(%+v): got %v, want %q", o, err, "no archive at "+missing)
			}
		}
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("missing archive was created: %v", err)
		}
	}},

	{"layout version", func(t *testing.T, ts *testStore) {
		var stored []byte
		ts.db.View(func(tx *bolt.Tx) error {
			stored = bytes.Clone(tx.Bucket(layout.BucketMeta).Get(layout.KeyLayout))
			return nil
		})
		if got := binary.BigEndian.Uint32(stored); got != Layout {
			t.Errorf("layout: got %d, want %d", got, Layout)
		}
		// Opening an archive at the current layout writes nothing.
		checkAndClose(t, ts.Store)
		data, _ := os.ReadFile(ts.path)
		ts.Store = mustOpenPath(t, ts.path, Options{NoSync: true})
		if again, _ := os.ReadFile(ts.path); !bytes.Equal(data, again) {
			t.Errorf("reopening rewrote the file")
		}

		dir := t.TempDir()
		newer := filepath.Join(dir, "newer.db")
		s := mustOpenPath(t, newer, Options{NoSync: true})
		s.db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(layout.BucketMeta).Put(layout.KeyLayout, binary.BigEndian.AppendUint32(nil, Layout+1))
		})
		checkAndClose(t, s)
		if _, err := Open(newer, Options{}); !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), "newer") {
			t.Errorf("newer layout: got %v, want ErrLayout saying newer", err)
		}

		foreign := filepath.Join(dir, "foreign.db")
		db, _ := bolt.Open(foreign, 0o600, nil)
		db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("etcd")); return err })
		db.Close()
		if _, err := Open(foreign, Options{}); !errors.Is(err, ErrLayout) {
			t.Errorf("foreign bbolt file: got %v, want ErrLayout", err)
		}

		junk := filepath.Join(dir, "junk.db")
		os.WriteFile(junk, bytes.Repeat([]byte("not a database "), 1000), 0o600)
		if _, err := Open(junk, Options{}); !errors.Is(err, ErrLayout) {
			t.Errorf("junk file: got %v, want ErrLayout", err)
		}

		// A bare bbolt file is layout 0: migrated, read-write only.
		bare := filepath.Join(dir, "bare.db")
		db, _ = bolt.Open(bare, 0o600, nil)
		db.Close()
		if _, err := Open(bare, Options{ReadOnly: true}); !errors.Is(err, ErrLayout) {
			t.Errorf("read-only open of layout 0: got %v, want ErrLayout", err)
		}
		mustOpenPath(t, bare, Options{NoSync: true})
	}},

	{"read-only open reads and refuses writes", func(t *testing.T, ts *testStore) {
		ts.record(snap(at(1), inc("a1")), all, nil)
		checkAndClose(t, ts.Store)
		ro := mustOpenPath(t, ts.path, Options{ReadOnly: true})
		if vs, err := ro.Versions("acme", "a1"); err != nil || len(vs) != 1 {
			t.Errorf("Versions read-only: got %d, %v", len(vs), err)
		}
		if _, err := ro.RecordFailure("acme", "x", 1); err == nil {
			t.Errorf("RecordFailure read-only: got nil error")
		}
	}},

	{"reopen persists everything", func(t *testing.T, ts *testStore) {
		st := model.FetchState{"incidents": {ETag: `"e"`, Hash: "h"}}
		ts.record(snap(at(1), inc("a1"), inc("b1")), all, st, body("incidents", []byte("raw")))
		raw := body("incidents", []byte("raw"))
		raw.Data = nil                                                    // unchanged since poll 1
		ts.record(snap(at(2), inc("a1", update("fixing"))), all, st, raw) // b1: first miss
		ts.SetThread("acme", "a1", "C9", "1.2")
		ts.RecordFailure("acme", "HTTP 500", 1)
		ms := ts.messages()
		ts.MarkSent(ms[0].ID)
		wantInc, _ := ts.Incidents("")
		wantVs := ts.versions("a1")

		ts.reopen()

		if got, _ := ts.Incidents(""); !reflect.DeepEqual(got, wantInc) {
			t.Errorf("Incidents after reopen: got %+v, want %+v", got, wantInc)
		}
		if got := ts.versions("a1"); !reflect.DeepEqual(got, wantVs) {
			t.Errorf("Versions after reopen: got %+v, want %+v", got, wantVs)
		}
		if got, _ := ts.FetchState("acme"); !reflect.DeepEqual(got, st) {
			t.Errorf("FetchState after reopen: got %v", got)
		}
		if ch, thr, _ := ts.Thread("acme", "a1"); ch != "C9" || thr != "1.2" {
			t.Errorf("Thread after reopen: got %q %q", ch, thr)
		}
		if got := ts.messages(); len(got) != len(ms) || got[0].State != model.MessageSent {
			t.Errorf("Messages after reopen: got %+v", got)
		}
		if srcs, _ := ts.Sources(); len(srcs) != 1 || srcs[0].Failures != 1 || srcs[0].Incidents != 2 || !srcs[0].Down {
			t.Errorf("Sources after reopen: got %+v", srcs)
		}
		if _, bodies, _ := ts.SnapshotAt("acme", at(2)); len(bodies) != 1 || string(bodies[0].Data) != "raw" {
			t.Errorf("SnapshotAt after reopen: got %+v", bodies)
		}
		// The pending miss survived: the next miss removes b1.
		if res := ts.record(snap(at(3), inc("a1", update("fixing"))), all, st); res.Removed != 1 {
			t.Errorf("second miss after reopen: got %+v, want 1 removed", res)
		}
		// Not a first poll any more.
		ts.record(snap(at(4), inc("a1", update("fixing")), inc("c1")), Policy{FirstPoll: FirstPollNone}, st)
		if ms := ts.messages(model.MessagePending); ms[len(ms)-1].IncidentID != "c1" {
			t.Errorf("new incident after reopen: got %+v", ms[len(ms)-1])
		}
	}},

	{"a stored fingerprint that drifted heals in one write", func(t *testing.T, ts *testStore) {
		// As after a diff upgrade that hashes differently: the fingerprints differ,
		// diff finds no change, so no version, and the next poll is the fast path.
		ts.record(snap(at(1), inc("a1")), all, nil)
		ts.take()
		ts.db.Update(func(tx *bolt.Tx) error {
			b := layout.Source(tx, "acme").Bucket(layout.BucketIncidents)
			m, _, _ := incident.LoadMeta(b, "a1")
			m.Fingerprint = [32]byte{}
			return b.Put([]byte("a1"), m.Marshal())
		})
		before := ts.fileState()
		if res := ts.record(snap(at(2), inc("a1")), all, nil); res != (Result{}) {
			t.Errorf("Result: got %+v, want zero", res)
		}
		ts.assertWrites(before, 1)
		wantEvents(t, "drift", ts.take())
		if n := len(ts.versions("a1")); n != 1 {
			t.Errorf("versions: got %d, want 1", n)
		}
		before = ts.fileState()
		ts.record(snap(at(3), inc("a1")), all, nil)
		ts.assertNoWrite(before)
	}},

	{"prune raw snapshots, keep versions", func(t *testing.T, ts *testStore) {
		bodies := []model.Body{body("incidents", []byte("A")), body("incidents", []byte("B")), body("incidents", []byte("C"))}
		for n, b := range []model.Body{bodies[0], bodies[1], bodies[2], bodies[2]} {
			ts.record(snap(at(n+1), inc("a1", update(string(rune('a'+n))))), all, nil, b)
		}
		snaps, gone, err := ts.PruneSnapshots(at(3))
		if err != nil || snaps != 1 || gone != 1 {
			t.Errorf("PruneSnapshots: got %d snapshots, %d bodies, %v; want 1, 1", snaps, gone, err)
		}
		if _, _, err := ts.SnapshotAt("acme", at(1)); !errors.Is(err, ErrNotFound) {
			t.Errorf("SnapshotAt(pruned): got %v, want ErrNotFound", err)
		}
		if _, got, err := ts.SnapshotAt("acme", at(3).Add(-time.Second)); err != nil || string(got[0].Data) != "B" {
			t.Errorf("SnapshotAt(in force at cutoff): got %+v, %v; want B", got, err)
		}
		if n := len(ts.versions("a1")); n != 4 {
			t.Errorf("versions after prune: got %d, want 4", n)
		}
		before := ts.fileState()
		if snaps, gone, err := ts.PruneSnapshots(at(3)); snaps+gone != 0 || err != nil {
			t.Errorf("PruneSnapshots again: got %d, %d, %v; want nothing", snaps, gone, err)
		}
		ts.assertNoWrite(before)
	}},

	{"backup is a working archive", func(t *testing.T, ts *testStore) {
		ts.record(snap(at(1), inc("a1")), all, nil, body("incidents", []byte("raw")))
		var buf bytes.Buffer
		if n, err := ts.WriteTo(&buf); err != nil || n != int64(buf.Len()) {
			t.Fatalf("WriteTo: got %d, %v", n, err)
		}
		path := filepath.Join(t.TempDir(), "backup.db")
		os.WriteFile(path, buf.Bytes(), 0o600)
		b := mustOpenPath(t, path, Options{ReadOnly: true})
		if vs, err := b.Versions("acme", "a1"); err != nil || len(vs) != 1 {
			t.Errorf("backup Versions: got %d, %v", len(vs), err)
		}
	}},

	{"bad input", func(t *testing.T, ts *testStore) {
		for name, call := range map[string]func() error{
			"empty source":   func() error { _, err := ts.Record("", snap(at(1)), nil, nil, all); return err },
			"nil snapshot":   func() error { _, err := ts.Record("acme", nil, nil, nil, all); return err },
			"other source":   func() error { _, err := ts.Record("beta", snap(at(1)), nil, nil, all); return err },
			"incident no id": func() error { _, err := ts.Record("acme", snap(at(1), inc("")), nil, nil, all); return err },
		} {
			if err := call(); err == nil {
				t.Errorf("%s: got nil error", name)
			}
		}
		// A listing that repeats an incident archives it once.
		res := ts.record(snap(at(1), inc("a1"), inc("a1", status(model.StatusResolved))), all, nil)
		if res.Changed != 1 || len(ts.versions("a1")) != 1 {
			t.Errorf("duplicate incident: got %+v", res)
		}
	}},
}
