package archive

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
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
		return sub(sourceBucket(tx, "acme"), bucketVersions).ForEach(func(_, v []byte) error {
			raw = append(raw, recordJSON(t, v))
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 2 {
		t.Fatalf("stored versions: %d, want 2", len(raw))
	}
	if bytes.Contains(raw[0], []byte(`"op"`)) || !bytes.Contains(raw[0], []byte(`"changes":null`)) {
		t.Errorf("version 1 stored with its change set: %s", raw[0])
	}
	if !bytes.Contains(raw[1], []byte(`"op"`)) {
		t.Errorf("version 2 stored without its change set: %s", raw[1])
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

// TestDecodeVersionWrittenByEncodingJSON reads versions as archives before the codec
// stored them: encoding/json, version 1 with its change set.
func TestDecodeVersionWrittenByEncodingJSON(t *testing.T) {
	in := model.Incident{ID: "a", Title: "API <down> & \"slow\"", Status: model.StatusInvestigating,
		Updates: []model.Update{{ID: "u1", Body: "Looking."}}, ResolvedInferred: true}
	stored := diff.Changes(nil, &in)[:1] // not what diff derives: must be kept as stored
	v := model.Version{N: 1, ObservedAt: t0, Incident: in, Changes: stored, Summary: "kept"}
	data, err := json.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeVersion(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, v) {
		t.Errorf("decoded\n%+v\nwant\n%+v", *got, v)
	}
	// And what the codec writes, encoding/json reads back the same.
	enc, err := encodeVersion(&model.Version{N: 2, ObservedAt: t0, Incident: in, Changes: stored, Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	var back model.Version
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if want := (model.Version{N: 2, ObservedAt: t0, Incident: in, Changes: stored, Summary: "s"}); !reflect.DeepEqual(back, want) {
		t.Errorf("encoding/json read\n%+v\nwant\n%+v", back, want)
	}
}

// TestBodyCodec checks that bodies are stored as S2, zstd frames written before still
// read, and a damaged record is an error.
func TestBodyCodec(t *testing.T) {
	ts := MustOpen(t)
	data := bytes.Repeat([]byte(`{"incidents":[{"id":"x","name":"API down"}]}`), 500)
	stored := ts.compressBody(data)
	if bytes.HasPrefix(stored, zstdMagic) || len(stored) >= len(data)/4 {
		t.Fatalf("stored body: %d bytes, zstd %v", len(stored), bytes.HasPrefix(stored, zstdMagic))
	}
	for name, in := range map[string][]byte{"s2": stored, "zstd": zstdFrame(t, data)} {
		got, err := ts.decompressBody(in)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: got %d bytes, %v; want the %d bytes back", name, len(got), err, len(data))
		}
	}
	for name, in := range map[string][]byte{
		"truncated":  stored[:len(stored)/2],
		"huge claim": {0xff, 0xff, 0xff, 0xff, 0x7f, 0x00},
		"empty":      {},
	} {
		if _, err := ts.decompressBody(in); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// recordJSON is the version JSON inside a stored record.
func recordJSON(t *testing.T, rec []byte) []byte {
	t.Helper()
	_, block, ok, err := splitRecord(rec)
	if !ok || err != nil {
		t.Fatalf("not a version record (%v): %q", err, rec)
	}
	data, err := s2.Decode(nil, block)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func zstdFrame(t *testing.T, data []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}
