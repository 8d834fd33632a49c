package searchindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

func openDB(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "index.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		}); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	if err := db.Update(Create); err != nil {
		t.Fatal(err)
	}
	return db
}

func incident(title string, updates ...string) *model.Incident {
	inc := &model.Incident{Title: title, Components: []string{"API"}}
	for _, u := range updates {
		inc.Updates = append(inc.Updates, model.Update{Body: u})
	}
	return inc
}

// versions indexes each incident as the next version of source/id.
func versions(t *testing.T, db *bolt.DB, source, id string, incs ...*model.Incident) {
	t.Helper()
	err := db.Update(func(tx *bolt.Tx) error {
		var prev *model.Incident
		for i, inc := range incs {
			if err := Index(tx, source, id, uint32(i+1), t0.Add(time.Duration(i)*time.Minute), prev, inc); err != nil {
				return err
			}
			prev = inc
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// search runs a search; its hits' listing times are checked by TestListedAt, and zeroed.
func search(t *testing.T, db *bolt.DB, q, source string) Result {
	t.Helper()
	var res Result
	err := db.View(func(tx *bolt.Tx) (err error) {
		res, err = Search(tx, q, source)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Hits {
		res.Hits[i].ListedAt = time.Time{}
	}
	return res
}

// TestListedAt: a hit is placed by its start, else its scheduled start, else when it was
// first seen, as the latest version has them.
func TestListedAt(t *testing.T) {
	db := openDB(t)
	started, scheduled := incident("alpha"), incident("alpha")
	started.StartedAt, scheduled.ScheduledFor = t0.Add(-time.Hour), t0.Add(48*time.Hour)
	versions(t, db, "acme", "none", incident("alpha"), incident("alpha"))
	versions(t, db, "acme", "started", incident("alpha"), started)
	versions(t, db, "acme", "scheduled", scheduled)
	versions(t, db, "acme", "unstarted", started, incident("alpha"))
	var res Result
	err := db.View(func(tx *bolt.Tx) (err error) {
		res, err = Search(tx, "alpha", "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Time{"none": t0, "started": t0.Add(-time.Hour), "scheduled": t0.Add(48 * time.Hour), "unstarted": t0}
	for _, h := range res.Hits {
		if !h.ListedAt.Equal(want[h.ID]) {
			t.Errorf("%s: listed at %v, want %v", h.ID, h.ListedAt, want[h.ID])
		}
	}
	if len(res.Hits) != len(want) {
		t.Errorf("%d hits, want %d", len(res.Hits), len(want))
	}
}

func TestSearch(t *testing.T) {
	db := openDB(t)
	versions(t, db, "acme", "inc-1",
		incident("Elevated errors", "We are investigating errors caused by a bad deploy."),
		incident("Elevated errors", "We are investigating errors."),
		incident("Elevated errors", "We are investigating errors.", "Resolved."))
	versions(t, db, "acme", "inc-2", incident("Payments down", "결제 서비스장애 복구 중"))
	versions(t, db, "other", "inc-1", incident("Deploy rolled back", "A bad deploy was rolled back."))
	versions(t, db, "jp", "m-1",
		incident("決済サービスで障害が発生"),
		incident("決済サービスの遅延"))

	tests := []struct {
		q, source string
		want      []Hit
	}{
		{"errors", "", []Hit{{Source: "acme", ID: "inc-1", Latest: true, Field: FieldTitle}}},
		{"ERRORS investigating", "", []Hit{{Source: "acme", ID: "inc-1", Latest: true, Field: FieldTitle}}},
		// "deploy" left inc-1 in version 2; "other" still has it.
		{"deploy", "", []Hit{
			{Source: "acme", ID: "inc-1", Version: 1, Field: FieldUpdates},
			{Source: "other", ID: "inc-1", Latest: true, Field: FieldTitle}}},
		{"deploy", "acme", []Hit{{Source: "acme", ID: "inc-1", Version: 1, Field: FieldUpdates}}},
		{"bad errors", "", []Hit{{Source: "acme", ID: "inc-1", Version: 1, Field: FieldUpdates}}},
		// Every term in some version, but in different ones: the last of the one that went.
		{"resolved deploy", "", []Hit{{Source: "acme", ID: "inc-1", Version: 1, Field: FieldUpdates}}},
		{"resolved elevated", "", []Hit{{Source: "acme", ID: "inc-1", Latest: true, Field: FieldUpdates}}},
		{"장애", "", []Hit{{Source: "acme", ID: "inc-2", Latest: true, Field: FieldUpdates}}},
		{"서비스", "", []Hit{{Source: "acme", ID: "inc-2", Latest: true, Field: FieldUpdates}}},
		{"障害", "", []Hit{{Source: "jp", ID: "m-1", Version: 1, Field: FieldTitle}}},
		{"決済", "", []Hit{{Source: "jp", ID: "m-1", Latest: true, Field: FieldTitle}}},
		{"api", "", []Hit{
			{Source: "acme", ID: "inc-1", Latest: true, Field: FieldComponents},
			{Source: "acme", ID: "inc-2", Latest: true, Field: FieldComponents},
			{Source: "other", ID: "inc-1", Latest: true, Field: FieldComponents},
			{Source: "jp", ID: "m-1", Latest: true, Field: FieldComponents}}},
		// A query term of three or more letters is a prefix; a shorter one is exact.
		{"invest", "", []Hit{{Source: "acme", ID: "inc-1", Latest: true, Field: FieldUpdates}}},
		{"er", "", nil},
		{"errors nowhere", "", nil},
		{"", "", nil},
		{"!!!", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.q+"/"+tt.source, func(t *testing.T) {
			got := search(t, db, tt.q, tt.source)
			if !slices.Equal(got.Hits, tt.want) || got.Partial {
				t.Errorf("Search(%q, %q) = %+v, want %+v", tt.q, tt.source, got, tt.want)
			}
		})
	}
}

func TestSearchTermsInDifferentVersions(t *testing.T) {
	db := openDB(t)
	versions(t, db, "acme", "inc-1",
		incident("Outage", "alpha"),
		incident("Outage", "beta"),
		incident("Outage", "gamma"))
	got := search(t, db, "alpha beta", "").Hits
	// alpha went in version 2 and beta in version 3: the one that went first was last in 1.
	want := []Hit{{Source: "acme", ID: "inc-1", Version: 1, Field: FieldUpdates}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestIndexWordBack(t *testing.T) {
	db := openDB(t)
	versions(t, db, "acme", "inc-1",
		incident("Outage", "caused by dns"),
		incident("Outage", "cause unknown"),
		incident("Outage", "caused by dns again"),
		incident("Outage", "fixed"))
	got := search(t, db, "dns", "").Hits
	want := []Hit{{Source: "acme", ID: "inc-1", Version: 3, Field: FieldUpdates}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	err := db.View(func(tx *bolt.Tx) error {
		doc := tx.Bucket(Bucket).Bucket(bucketIDs).Get(docName("acme", "inc-1"))
		spans := postingsOf(tx)[string(termKey("dns", doc))]
		if want := []Span{{FieldUpdates, 1, 2}, {FieldUpdates, 3, 4}}; !slices.Equal(spans, want) {
			t.Errorf("spans of dns = %+v, want %+v", spans, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIndexUnchangedFieldsWriteNothing checks that a version whose texts are those of
// the one before (a status change) leaves the index as it was.
func TestIndexUnchangedFieldsWriteNothing(t *testing.T) {
	db := openDB(t)
	versions(t, db, "acme", "inc-1", incident("Outage", "investigating"))
	err := db.Update(func(tx *bolt.Tx) error {
		before := tx.Stats().Write
		a, b := incident("Outage", "investigating"), incident("Outage", "investigating")
		b.Status = model.StatusResolved
		if err := Index(tx, "acme", "inc-1", 2, t0.Add(time.Hour), a, b); err != nil {
			return err
		}
		if got := tx.Stats().Write; got != before {
			t.Errorf("writes: %d, want %d", got, before)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSearchNoIndex(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "x.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		_, err := Search(tx, "dns", "")
		return err
	})
	if err != ErrNoIndex {
		t.Errorf("err = %v, want ErrNoIndex", err)
	}
}

func TestSpansDamaged(t *testing.T) {
	b := appendEncoded(nil, []Span{{FieldTitle, 1, 0}, {FieldUpdates, 2, 5}})
	if got := appendSpans(nil, b[:len(b)-1]); !slices.Equal(got, []Span{{FieldTitle, 1, 0}}) {
		t.Errorf("damaged: %+v", got)
	}
}

// TestBatchAsIndex: a batch of several versions of several incidents, given in version
// order, leaves the index as Index called version by version does.
func TestBatchAsIndex(t *testing.T) {
	incs := [][]*model.Incident{
		{incident("Outage", "caused by dns"), incident("Outage", "cause unknown"), incident("Outage dns", "caused by dns again")},
		{incident("결제 장애", "복구 중"), incident("결제 지연", "복구 완료")},
	}
	dump := func(db *bolt.DB) (out map[string][]Span) {
		db.View(func(tx *bolt.Tx) error {
			out = postingsOf(tx)
			return nil
		})
		return out
	}
	one := openDB(t)
	for i, vs := range incs {
		versions(t, one, "acme", fmt.Sprint(i), vs...)
	}
	// flushAt is the version after which the batch is flushed too (0: only at the end),
	// so that the versions after it are of an incident numbered before the batch.
	for _, flushAt := range []int{0, 1, 2} {
		batched := openDB(t)
		err := batched.Update(func(tx *bolt.Tx) error {
			var b Batch
			for i, vs := range incs {
				var prev *model.Incident
				for n, inc := range vs {
					if err := b.Index(tx, "acme", fmt.Sprint(i), uint32(n+1), t0.Add(time.Duration(n)*time.Minute), prev, inc); err != nil {
						return err
					}
					if n+1 == flushAt {
						if err := b.Flush(tx); err != nil {
							return err
						}
					}
					prev = inc
				}
			}
			return b.Flush(tx)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := dump(batched), dump(one); !reflect.DeepEqual(got, want) || len(want) == 0 {
			t.Errorf("flushed after version %d: batched index differs:\n%v\nwant\n%v", flushAt, got, want)
		}
	}
}

// FuzzSearch checks that no query, however hostile, makes a search fail or name a version
// the incident never had.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{"dns", "deploy bad", "장애", "決済 障害", "a", "\xff", "ab abc abcd", "e e e e e e e e e e e e e e e e e e e"} {
		f.Add(q)
	}
	db, err := bolt.Open(filepath.Join(f.TempDir(), "index.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		if err := Create(tx); err != nil {
			return err
		}
		vs := []*model.Incident{incident("Outage", "caused by a bad dns deploy"), incident("Outage", "cause unknown"),
			incident("決済サービスで障害", "결제 서비스장애 복구")}
		var prev *model.Incident
		for n, inc := range vs {
			if err := Index(tx, "acme", "inc-1", uint32(n+1), t0, prev, inc); err != nil {
				return err
			}
			prev = inc
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		err := db.View(func(tx *bolt.Tx) error {
			res, err := Search(tx, q, "")
			for _, h := range res.Hits {
				if h.ID != "inc-1" || h.Latest != (h.Version == 0) || h.Version > 3 || h.Field < FieldTitle || h.Field > FieldComponents {
					t.Errorf("Search(%q): bad hit %+v", q, h)
				}
			}
			if err != nil {
				return err
			}
			pg, err := First(tx, q, "", nil, nil, 1)
			if err != nil || pg.Total != len(res.Hits) || pg.More || !slices.Equal(pg.Hits, res.Hits) || pg.Partial != res.Partial {
				t.Errorf("First(%q) = %+v, %v; Search gave %+v", q, pg, err, res)
			}
			return err
		})
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
	})
}

// postingsOf is every posting of tx's index, by term key (term \x00 BE doc), whatever
// blocks hold them.
func postingsOf(tx *bolt.Tx) map[string][]Span {
	out := map[string][]Span{}
	tx.Bucket(Bucket).Bucket(bucketPostings).ForEach(func(k, v []byte) error {
		prefix := k[:len(k)-4]
		eachEntry(blockDoc(k), v, func(doc uint32, spans []byte) bool {
			out[string(binary.BigEndian.AppendUint32(bytes.Clone(prefix), doc))] = appendSpans(nil, spans)
			return true
		})
		return nil
	})
	return out
}

func termKey(term string, doc []byte) []byte {
	return append(append([]byte(term), 0), doc...)
}
