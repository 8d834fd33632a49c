package archive

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/diff"
	bolt "go.etcd.io/bbolt"
)

// TestVersionOneChangeSetDerived checks that version 1 is stored without its change set
// and read back with the one diff gives from nothing, and that later versions keep theirs.
func TestVersionOneChangeSetDerived(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(t0, inc("a", update("Investigating the API."))), all, nil)
	ts.clock.t = t0.Add(time.Minute)
	ts.record(snap(t0.Add(time.Minute), inc("a", update("Investigating the API."), update("Fixed."))), all, nil)

	var raw [][]byte
	if err := ts.db.View(func(tx *bolt.Tx) error {
		return layout.Sub(layout.Source(tx, "acme"), layout.BucketVersions).ForEach(func(_, v []byte) error {
			raw = append(raw, recordBlock(t, v))
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 2 {
		t.Fatalf("stored versions: %d, want 2", len(raw))
	}
	// A change set restates the texts it changes: version 1's body twice (its update's id
	// and body), version 2's new one more (the update's id and body, the change's after
	// and its op).
	if n := bytes.Count(raw[0], []byte("Investigating the API.")); n != 2 {
		t.Errorf("version 1 stored with its change set: its body %d times in %q", n, raw[0])
	}
	if n := bytes.Count(raw[1], []byte("Fixed.")); n < 3 {
		t.Errorf("version 2 stored without its change set: its new body %d times in %q", n, raw[1])
	}

	vs := ts.versions("a")
	want := diff.Changes(nil, &vs[0].Incident)
	if len(want) == 0 || !reflect.DeepEqual(vs[0].Changes, want) {
		t.Errorf("version 1 changes = %+v, want %+v", vs[0].Changes, want)
	}
	if vs[0].Summary != diff.Summary(want) || vs[0].Summary == "" {
		t.Errorf("version 1 summary = %q, want %q", vs[0].Summary, diff.Summary(want))
	}
	if len(vs[1].Changes) != 1 || vs[1].Changes[0].After == nil || *vs[1].Changes[0].After != "Fixed." {
		t.Errorf("version 2 changes = %+v", vs[1].Changes)
	}
}

// recordBlock is the version inside a stored record, uncompressed.
func recordBlock(t *testing.T, rec []byte) []byte {
	t.Helper()
	// A record: its form's byte (0x02 binary, 0x01 JSON before), the uvarint length of
	// a header, the header, an S2 block (codec).
	n, w := binary.Uvarint(rec[min(1, len(rec)):])
	if len(rec) == 0 || rec[0] != 0x02 || w <= 0 || n > uint64(len(rec)-1-w) {
		t.Fatalf("not a version record: %q", rec)
	}
	data, err := s2.Decode(nil, rec[1+w+int(n):])
	if err != nil {
		t.Fatal(err)
	}
	return data
}
