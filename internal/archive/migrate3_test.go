package archive

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// legacyState is a fetch state as layout 2 stored it: AWS's episodes as a list in the
// Hash of their entries (codec.UpgradeEpisodes), beside an endpoint's validators.
const legacyState = `{"currentevents":{"etag":"\"c1\"","hash":"ab"},"episodes/ec2":{"hash":"10-20+e,30-40+m50,60-70i80"}}`

// legacyWant is legacyState as it reads today.
var legacyWant = model.FetchState{
	"currentevents": {ETag: `"c1"`, Hash: "ab"},
	"episodes/ec2": {Episodes: []model.Episode{{Start: 10, Last: 20, Open: true, Listed: true}, {Start: 30, Last: 40, Open: true, Missed: 50},
		{Start: 60, Last: 70, Inferred: 80}}},
}

// TestMigrateTo3: an archive of layout 2 whose fetch states hold AWS's episodes in the old
// form reads them in the new one while it is opened read-only, and has them rewritten in
// the new one when opened read-write; a state without such an entry is left as it was.
func TestMigrateTo3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "watcher.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	other := model.FetchState{"incidents": {ETag: `W/"1"`, Hash: "h"}}
	if _, err := s.Record("acme", snap(at(1), inc("a")), other, nil, Policy{}); err != nil {
		t.Fatal(err)
	}
	aws := snap(at(1))
	aws.Source = ""
	if _, err := s.Record("aws", aws, model.FetchState{"rss": {Hash: "r"}}, nil, Policy{}); err != nil {
		t.Fatal(err)
	}
	checkAndClose(t, s)
	// Back to layout 2, with the state as layout 2 wrote it.
	var acmeBefore []byte
	rewrite(t, path, func(tx *bolt.Tx) error {
		acmeBefore = bytes.Clone(layout.Source(tx, "acme").Bucket(layout.BucketState).Get(layout.KeyFetch))
		if err := layout.Source(tx, "aws").Bucket(layout.BucketState).Put(layout.KeyFetch, []byte(legacyState)); err != nil {
			return err
		}
		return tx.Bucket(layout.BucketMeta).Put(layout.KeyLayout, binary.BigEndian.AppendUint32(nil, 2))
	})

	ro := mustOpenPath(t, path, Options{ReadOnly: true})
	if st, err := ro.FetchState("aws"); err != nil || !reflect.DeepEqual(st, legacyWant) {
		t.Errorf("read-only FetchState of layout 2: got %+v, %v", st, err)
	}
	if ps, err := ro.PollState("aws"); err != nil || !reflect.DeepEqual(ps.Fetch, legacyWant) {
		t.Errorf("read-only PollState of layout 2: got %+v, %v", ps.Fetch, err)
	}
	checkAndClose(t, ro)

	rw := mustOpenPath(t, path, Options{NoSync: true})
	if st, err := rw.FetchState("aws"); err != nil || !reflect.DeepEqual(st, legacyWant) {
		t.Errorf("FetchState after the migration: got %+v, %v", st, err)
	}
	// An unchanged state after the migration writes nothing.
	aws = snap(at(2))
	aws.Source = ""
	if res, err := rw.Record("aws", aws, legacyWant, nil, Policy{}); err != nil || res != (Result{}) {
		t.Errorf("Record of the migrated state: %+v, %v", res, err)
	}
	checkAndClose(t, rw)
	view(t, path, func(tx *bolt.Tx) error {
		if got := binary.BigEndian.Uint32(tx.Bucket(layout.BucketMeta).Get(layout.KeyLayout)); got != layout.Current {
			t.Errorf("layout %d, want %d", got, layout.Current)
		}
		raw := layout.Source(tx, "aws").Bucket(layout.BucketState).Get(layout.KeyFetch)
		if want, _ := json.Marshal(legacyWant); !bytes.Equal(raw, want) {
			t.Errorf("stored state:\n%s\nwant\n%s", raw, want)
		}
		if raw := layout.Source(tx, "acme").Bucket(layout.BucketState).Get(layout.KeyFetch); !bytes.Equal(raw, acmeBefore) {
			t.Errorf("a state without episodes was rewritten: %s, was %s", raw, acmeBefore)
		}
		return nil
	})
}

// rewrite and view run fn on the closed archive at path, bypassing the store.
func rewrite(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func view(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}
