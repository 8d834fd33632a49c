package archive

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// bigBody is about n bytes of status-page prose, paragraphs of words drawn at random
// (deterministically) from a small vocabulary.
func bigBody(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the api service database region latency elevated errors customers investigating " +
		"identified mitigated deploy rollback cluster node storage network monitoring we are have been will update shortly")
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteString(".\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// withBody sets the incident's first update's body.
func withBody(body string) func(*model.Incident) {
	return func(i *model.Incident) { i.Updates[0].Body = body }
}

// storedVersions returns the raw records of an incident's versions.
func (ts *testStore) storedVersions(id string) [][]byte {
	ts.tb.Helper()
	var raw [][]byte
	prefix := layout.VersionPrefix(id)
	if err := ts.db.View(func(tx *bolt.Tx) error {
		c := layout.Sub(layout.Source(tx, "acme"), layout.BucketVersions).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			raw = append(raw, bytes.Clone(v))
		}
		return nil
	}); err != nil {
		ts.tb.Fatal(err)
	}
	return raw
}

// TestBigEditStoredSize: one edit in the middle of a 1 MB body stores a version record
// smaller than the body itself (it was 6.4 times the body: the incident, the change's
// before and after, and a word diff restating both), and reads back whole, the change
// keeping its before and after.
func TestBigEditStoredSize(t *testing.T) {
	ts := MustOpen(t)
	big := bigBody(1 << 20)
	edited := big[:len(big)/2] + " A sentence added in the middle. " + big[len(big)/2:]
	ts.record(snap(at(1), inc("a", withBody(big))), all, nil)
	ts.record(snap(at(2), inc("a", withBody(edited))), all, nil)

	raw := ts.storedVersions("a")
	if len(raw) != 2 {
		t.Fatalf("stored versions: got %d, want 2", len(raw))
	}
	v := ts.versions("a")[1]
	legacy, err := codec.EncodeVersion(&model.Version{N: 2, ObservedAt: v.ObservedAt, Incident: v.Incident,
		Changes: diff.Changes(&ts.versions("a")[0].Incident, &v.Incident), Summary: v.Summary, Snapshot: v.Snapshot})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one edit of a %d-byte body: stored %d bytes (uncompressed with every op: %d)", len(big), len(raw[1]), len(legacy))
	if len(raw[1]) > len(big) {
		t.Errorf("stored version 2: got %d bytes, want at most the body's %d", len(raw[1]), len(big))
	}
	if v.Incident.Updates[0].Body != edited || len(v.Changes) != 1 || v.Changes[0].Before == nil ||
		*v.Changes[0].Before != big || *v.Changes[0].After != edited {
		t.Errorf("version 2 read back: %d changes, body intact %v", len(v.Changes), v.Incident.Updates[0].Body == edited)
	}
}

// TestVersionInfos: the list of versions reads numbers, times, summaries and fields
// from records and from the bare JSON written before alike, the same as decoding every
// version whole gives.
func TestVersionInfos(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(at(1), inc("a")), all, nil)
	ts.record(snap(at(2), inc("a", update("More."))), all, nil)
	ts.record(snap(at(3), inc("a", update("More."), status(model.StatusResolved))), all, nil)
	check := func(name string) {
		t.Helper()
		full := ts.versions("a")
		infos, err := ts.VersionInfos("acme", "a")
		if err != nil || len(infos) != len(full) {
			t.Fatalf("%s: VersionInfos: got %d, %v; want %d", name, len(infos), err, len(full))
		}
		for i, v := range full {
			var fields []string
			if v.N > 1 {
				for _, c := range v.Changes {
					fields = append(fields, c.Field)
				}
			}
			want := VersionInfo{N: v.N, ObservedAt: v.ObservedAt, Summary: v.Summary, Snapshot: v.Snapshot, Fields: fields}
			if !reflect.DeepEqual(infos[i], want) {
				t.Errorf("%s: version %d: got %+v, want %+v", name, v.N, infos[i], want)
			}
		}
	}
	check("records")

	// Rewrite every version as the bare JSON of before, version 1 without its change set
	// and then with it.
	for _, withV1Changes := range []bool{false, true} {
		full := ts.versions("a")
		if err := ts.db.Update(func(tx *bolt.Tx) error {
			b := layout.Sub(layout.Source(tx, "acme"), layout.BucketVersions)
			for _, v := range full {
				if v.N == 1 && !withV1Changes {
					v.Changes, v.Summary = nil, ""
				}
				data, err := codec.EncodeVersion(&v)
				if err != nil {
					return err
				}
				if v.N == 1 && withV1Changes { // codec.EncodeVersion drops them
					c := v
					data, err = jsonOf(&c)
					if err != nil {
						return err
					}
				}
				if err := b.Put(layout.VersionKey("a", uint32(v.N)), data); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if raw := ts.storedVersions("a"); raw[0][0] != '{' || raw[2][0] != '{' {
			t.Fatalf("not rewritten as JSON: %q", raw[0][:10])
		}
		check("bare JSON")
	}

	// A version recorded on top of them is a binary record, and the history reads
	// across both forms.
	ts.record(snap(at(4), inc("a", update("More."), update("Again."), status(model.StatusResolved))), all, nil)
	if raw := ts.storedVersions("a"); len(raw) != 4 || raw[0][0] != '{' || raw[3][0] != 0x02 {
		t.Fatalf("stored forms: got %d versions, the first %q, the last %q", len(raw), raw[0][:1], raw[len(raw)-1][:1])
	}
	if vs := ts.versions("a"); len(vs[3].Changes) == 0 || vs[3].Changes[0].After == nil {
		t.Errorf("version 4's change set from a version 3 of bare JSON: %+v", vs[3].Changes)
	}
	check("bare JSON and a binary record")
}

// TestVersionInfosMemory: listing 140 versions of a 1 MB body allocates a small,
// fixed amount, not the bodies: the list decodes no incident but version 1's.
func TestVersionInfosMemory(t *testing.T) {
	ts := MustOpen(t)
	big := bigBody(1 << 20)
	const n = 140
	ts.record(snap(at(1), inc("a", withBody(big))), all, nil)
	// The other versions written directly: 139 Records of a 1 MB body take a minute
	// under -race, and only what is stored matters here.
	if err := ts.db.Update(func(tx *bolt.Tx) error {
		b := layout.Sub(layout.Source(tx, "acme"), layout.BucketVersions)
		rec, err := codec.EncodeRecord(&model.Version{N: 2, ObservedAt: at(2), Incident: inc("a", withBody(big)),
			Summary: "Edited.", Changes: []model.Change{{Field: "updates[a-1].body"}}})
		if err != nil {
			return err
		}
		for i := 2; i <= n; i++ {
			if err := b.Put(layout.VersionKey("a", uint32(i)), rec); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	infos, err := ts.VersionInfos("acme", "a")
	runtime.ReadMemStats(&after)
	if err != nil || len(infos) != n {
		t.Fatalf("VersionInfos: got %d, %v; want %d", len(infos), err, n)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("VersionInfos of %d versions of a %d-byte body: %d bytes allocated", n, len(big), alloc)
	if limit := uint64(8 << 20); alloc > limit {
		t.Errorf("VersionInfos allocated %d bytes, want at most %d", alloc, limit)
	}
}

// jsonOf is a version as the bare JSON of before, change set and all.
func jsonOf(v *model.Version) ([]byte, error) {
	return json.Marshal(v)
}
