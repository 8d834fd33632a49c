package archive

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// take returns the pending messages as "event id[ catch-up]" and marks them sent, as the
// notifier would, so each step of a test sees only the messages it caused.
func (ts *testStore) take() []string {
	ts.tb.Helper()
	ms := ts.messages(model.MessagePending)
	for _, m := range ms {
		if err := ts.MarkSent(m.ID); err != nil {
			ts.tb.Fatalf("MarkSent(%d): %v", m.ID, err)
		}
	}
	return events(ms)
}

func wantEvents(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: messages: got %q, want %q", step, got, want)
	}
}

var all = Policy{FirstPoll: FirstPollAll}

// storeCase is one named scenario of TestStore, run on a fresh archive.
type storeCase struct {
	name string
	run  func(t *testing.T, ts *testStore)
}

// TestStore is the archive's contract, one named scenario per subtest, each on a fresh
// archive: recording and versions here, events and the outbox in store_events_test.go, the
// file itself in store_file_test.go.
func TestStore(t *testing.T) {
	tests := slices.Concat(storeRecordCases, storeEventCases, storeFileCases)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, MustOpen(t))
		})
	}
}

// storeRecordCases: versions, raw bodies, validators, first-poll policies, filters.
var storeRecordCases = []storeCase{
	{"first record creates version 1 with 0->1 changes", func(t *testing.T, ts *testStore) {
		a := inc("a1")
		res := ts.record(snap(at(1), a), Policy{}, nil)
		if want := (Result{Changed: 1, Messages: 1}); res != want {
			t.Errorf("Result: got %+v, want %+v", res, want)
		}
		vs := ts.versions("a1")
		if len(vs) != 1 {
			t.Fatalf("versions: got %d, want 1", len(vs))
		}
		v := vs[0]
		if v.N != 1 || !v.ObservedAt.Equal(at(1)) || v.Snapshot != layout.SnapshotName(at(1)) {
			t.Errorf("version: got N=%d observed %v snapshot %q, want 1, %v, %q", v.N, v.ObservedAt, v.Snapshot, at(1), layout.SnapshotName(at(1)))
		}
		want := diff.Changes(nil, &a)
		if !reflect.DeepEqual(v.Changes, want) {
			t.Errorf("changes: got %+v, want %+v", v.Changes, want)
		}
		for _, c := range v.Changes {
			if c.Before != nil {
				t.Errorf("change %s: got before %q, want not present", c.Field, *c.Before)
			}
		}
		if v.Summary != diff.Summary(want) {
			t.Errorf("summary: got %q, want %q", v.Summary, diff.Summary(want))
		}
		latest, err := ts.Latest("acme", "a1")
		if err != nil || latest == nil || latest.Title != a.Title || latest.Status != a.Status {
			t.Errorf("Latest: got %+v, %v; want %q", latest, err, a.Title)
		}
		if none, err := ts.Latest("acme", "nope"); none != nil || err != nil {
			t.Errorf("Latest(unknown): got %v, %v; want nil, nil", none, err)
		}
		info := ts.incident("a1")
		if info.Versions != 1 || !info.FirstSeen.Equal(at(1)) || !info.LastChanged.Equal(at(1)) || !info.Announced || info.Removed {
			t.Errorf("IncidentInfo: got %+v", info)
		}
	}},

	{"unchanged record writes nothing", func(t *testing.T, ts *testStore) {
		st := model.FetchState{"incidents": {ETag: `W/"1"`, Hash: "aa"}}
		incs := []model.Incident{inc("a1"), inc("a2", maintenance), inc("a3", status(model.StatusResolved))}
		s1 := snap(at(1), incs...)
		s1.Listings = append(s1.Listings, model.Listing{Kind: model.KindMaintenance})
		ts.record(s1, all, st, body("incidents", []byte("payload")))
		before := ts.fileState()
		// A later poll whose body changed bytes but not meaning: same incidents, same
		// validators, a new fetch time. Incidents listed in another order.
		s2 := snap(at(2), incs[2], incs[0], incs[1])
		s2.Listings = s1.Listings
		res := ts.record(s2, all, st.Clone(), body("incidents", []byte("payload, reordered")))
		if res != (Result{}) {
			t.Errorf("Result: got %+v, want zero", res)
		}
		ts.assertNoWrite(before)
		// nil state means "keep": no write either.
		ts.record(s2, all, nil)
		ts.assertNoWrite(before)
	}},

	{"new version on change", func(t *testing.T, ts *testStore) {
		a1 := inc("a1")
		ts.record(snap(at(1), a1), all, nil)
		a2 := inc("a1", status(model.StatusIdentified), update("We found the cause."))
		res := ts.record(snap(at(2), a2), all, nil)
		if want := (Result{Changed: 1, Messages: 1}); res != want {
			t.Errorf("Result: got %+v, want %+v", res, want)
		}
		vs := ts.versions("a1")
		if len(vs) != 2 {
			t.Fatalf("versions: got %d, want 2", len(vs))
		}
		v := vs[1]
		want := diff.Changes(&a1, &a2)
		if v.N != 2 || !v.ObservedAt.Equal(at(2)) || !reflect.DeepEqual(v.Changes, want) || v.Summary != diff.Summary(want) {
			t.Errorf("version 2: got N=%d at %v changes %+v summary %q; want 2, %v, %+v, %q",
				v.N, v.ObservedAt, v.Changes, v.Summary, at(2), want, diff.Summary(want))
		}
		i := slices.IndexFunc(v.Changes, func(c model.Change) bool { return c.Field == "status" })
		if i < 0 || *v.Changes[i].Before != "investigating" || *v.Changes[i].After != "identified" {
			t.Errorf("status change: got %+v, want investigating → identified", v.Changes)
		}
		got, err := ts.Version("acme", "a1", 2)
		if err != nil || !reflect.DeepEqual(*got, v) {
			t.Errorf("Version(2): got %+v, %v; want %+v", got, err, v)
		}
		for _, c := range []struct {
			source, id string
			n          int
		}{{"acme", "a1", 3}, {"acme", "a1", 0}, {"acme", "zz", 1}, {"other", "a1", 1}} {
			if _, err := ts.Version(c.source, c.id, c.n); !errors.Is(err, ErrNotFound) {
				t.Errorf("Version(%s, %s, %d): got %v, want ErrNotFound", c.source, c.id, c.n, err)
			}
		}
		if _, err := ts.Versions("acme", "zz"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Versions(unknown): got %v, want ErrNotFound", err)
		}
		if info := ts.incident("a1"); info.Versions != 2 || !info.FirstSeen.Equal(at(1)) || !info.LastChanged.Equal(at(2)) {
			t.Errorf("IncidentInfo: got %+v", info)
		}
		wantEvents(t, "messages", ts.take(), "new a1", "changed a1")
	}},

	{"raw body stored once for versions that share it", func(t *testing.T, ts *testStore) {
		real, err := os.ReadFile("testdata/openai-statuspage-compat-summary-2026-07-22.json")
		if err != nil {
			t.Fatal(err)
		}
		inc1, maint := body("incidents", real), body("maintenance", []byte(`{"scheduled_maintenances":[]}`))
		ts.record(snap(at(1), inc("a1")), all, nil, inc1, maint)

		// Bytes changed but not meaning: nothing is stored, not even the new body.
		noise := body("incidents", append(bytes.Clone(real), ' '))
		before := ts.fileState()
		ts.record(snap(at(2), inc("a1")), all, nil, noise, model.Body{Endpoint: "maintenance", Hash: maint.Hash})
		ts.assertNoWrite(before)

		// A change: the unchanged maintenance body is referenced, not stored again,
		// also when the caller hands its bytes over anyway.
		inc3 := body("incidents", append(bytes.Clone(real), '\n'))
		ts.record(snap(at(3), inc("a1", update("fixed"))), all, nil, inc3, model.Body{Endpoint: "maintenance", Hash: maint.Hash})
		ts.record(snap(at(4), inc("a1", update("fixed"), update("done"))), all, nil, inc3, maint)

		var n int
		var stored []byte
		ts.db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(layout.BucketBodies)
			n = b.Stats().KeyN
			stored = bytes.Clone(b.Get([]byte(inc1.Hash)))
			return nil
		})
		if n != 3 {
			t.Errorf("stored bodies: got %d, want 3 (incidents v1, incidents v3, maintenance once)", n)
		}
		if len(stored) == 0 || len(stored) >= len(real) {
			t.Errorf("compressed body: got %d bytes, want fewer than the %d raw", len(stored), len(real))
		}

		for _, c := range []struct {
			t       time.Time
			fetched time.Time
			want    []model.Body
		}{
			{at(1), at(1), []model.Body{inc1, maint}},
			{at(2), at(1), []model.Body{inc1, maint}}, // the noise poll left no snapshot
			{at(3).Add(-time.Nanosecond), at(1), []model.Body{inc1, maint}},
			{at(3), at(3), []model.Body{inc3, maint}},
			{at(9), at(4), []model.Body{inc3, maint}},
		} {
			fetched, bodies, err := ts.SnapshotAt("acme", c.t)
			if err != nil || !fetched.Equal(c.fetched) || !reflect.DeepEqual(bodies, c.want) {
				t.Errorf("SnapshotAt(%v): got %v, %d bodies, %v; want %v, %d bodies", c.t, fetched, len(bodies), err, c.fetched, len(c.want))
			}
		}
		v1, _ := ts.Version("acme", "a1", 1)
		vt, _ := time.Parse(time.RFC3339Nano, v1.Snapshot)
		if fetched, _, err := ts.SnapshotAt("acme", vt); err != nil || !fetched.Equal(at(1)) {
			t.Errorf("SnapshotAt(version 1's snapshot): got %v, %v; want %v", fetched, err, at(1))
		}
		if _, _, err := ts.SnapshotAt("acme", at(0)); !errors.Is(err, ErrNotFound) {
			t.Errorf("SnapshotAt(before any): got %v, want ErrNotFound", err)
		}
		if _, _, err := ts.SnapshotAt("other", at(9)); !errors.Is(err, ErrNotFound) {
			t.Errorf("SnapshotAt(unknown source): got %v, want ErrNotFound", err)
		}

		// A body whose hash does not match its bytes is refused, and nothing written.
		bad := body("incidents", []byte("x"))
		bad.Data = []byte("y")
		before = ts.fileState()
		if _, err := ts.Record("acme", snap(at(5), inc("a1", status(model.StatusResolved))), nil, []model.Body{bad}, all); err == nil {
			t.Errorf("Record with a wrong hash: got nil error")
		}
		ts.assertFileUnchanged(before)
	}},

	{"validators saved only when they differ, in the same transaction", func(t *testing.T, ts *testStore) {
		s1 := model.FetchState{"incidents": {ETag: `"1"`, Hash: "h1"}}
		before := ts.fileState()
		ts.record(snap(at(1), inc("a1")), all, s1)
		ts.assertWrites(before, 1) // version, message, bodies and state: one transaction
		if got, _ := ts.FetchState("acme"); !reflect.DeepEqual(got, s1) {
			t.Errorf("FetchState: got %v, want %v", got, s1)
		}

		before = ts.fileState()
		ts.record(snap(at(2), inc("a1")), all, s1.Clone())
		ts.assertNoWrite(before)

		s2 := model.FetchState{"incidents": {ETag: `"2"`, Hash: "h2"}}
		before = ts.fileState()
		res := ts.record(snap(at(3), inc("a1")), all, s2)
		ts.assertWrites(before, 1)
		if res != (Result{}) {
			t.Errorf("Result of a state-only change: got %+v, want zero", res)
		}
		if got, _ := ts.FetchState("acme"); !reflect.DeepEqual(got, s2) {
			t.Errorf("FetchState: got %v, want %v", got, s2)
		}
		if fetched, _, _ := ts.SnapshotAt("acme", at(3)); !fetched.Equal(at(1)) {
			t.Errorf("a state-only change stored a snapshot at %v", fetched)
		}

		s3 := model.FetchState{"incidents": {LastModified: "Wed, 01 Jul 2026 12:06:00 GMT", Hash: "h3"}}
		before = ts.fileState()
		ts.record(snap(at(4), inc("a1", update("more"))), all, s3)
		ts.assertWrites(before, 1)
		if got, _ := ts.FetchState("acme"); !reflect.DeepEqual(got, s3) {
			t.Errorf("FetchState: got %v, want %v", got, s3)
		}
		ts.record(snap(at(5), inc("a1", update("more"))), all, nil)
		if got, _ := ts.FetchState("acme"); !reflect.DeepEqual(got, s3) {
			t.Errorf("FetchState after nil: got %v, want %v", got, s3)
		}
		if got, _ := ts.FetchState("other"); len(got) != 0 {
			t.Errorf("FetchState(unknown): got %v, want empty", got)
		}
	}},

	{"first-poll policies", func(t *testing.T, ts *testStore) {
		incs := []model.Incident{
			inc("open", started(t0)),
			inc("resolved", started(t0.Add(-48*time.Hour)), status(model.StatusResolved)),
			inc("maint", started(t0.Add(time.Hour)), maintenance),
			inc("quiet", started(t0.Add(-time.Hour)), impact(model.ImpactNone)),
		}
		for _, c := range []struct {
			policy string
			want   []string
		}{
			{"", []string{"new quiet", "new open", "new maint"}},
			{FirstPollOpen, []string{"new quiet", "new open", "new maint"}},
			{FirstPollNone, nil},
			{FirstPollAll, []string{"new resolved", "new quiet", "new open", "new maint"}},
		} {
			source := "p-" + c.policy
			s := snap(at(1), incs...)
			s.Source = ""
			s.Listings = append(s.Listings, model.Listing{Kind: model.KindMaintenance})
			if _, err := ts.Record(source, s, nil, nil, Policy{FirstPoll: c.policy}); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, "policy "+c.policy, ts.take(), c.want...)
		}
		// Filters apply on the first poll too.
		s := snap(at(1), incs...)
		s.Source = ""
		if _, err := ts.Record("filtered", s, nil, nil, Policy{FirstPoll: FirstPollAll, Pass: minImpact(model.ImpactMinor)}); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "all, min_impact minor", ts.take(), "new resolved", "new open", "new maint")
		if _, err := ts.Record("x", s, nil, nil, Policy{FirstPoll: "some"}); err == nil {
			t.Errorf("unknown first-poll policy: got nil error")
		}
	}},

	{"first poll of an empty page still counts", func(t *testing.T, ts *testStore) {
		// A failure before the first success must not make the first success a
		// "later" poll, and an empty first poll must make the next one a later poll.
		if _, err := ts.RecordFailure("acme", "timeout", 3); err != nil {
			t.Fatal(err)
		}
		ts.RecordSuccess("acme")
		ts.record(snap(at(1)), Policy{FirstPoll: FirstPollNone}, nil)
		ts.record(snap(at(2), inc("a1")), Policy{FirstPoll: FirstPollNone}, nil)
		wantEvents(t, "after an empty first poll", ts.take(), "new a1")
	}},

	{"filters and catch-up", func(t *testing.T, ts *testStore) {
		p := Policy{Pass: minImpact(model.ImpactMinor)}
		old := inc("old", started(t0.Add(-72*time.Hour)), status(model.StatusResolved))
		open := inc("open")
		ts.record(snap(at(1), old, open), p, nil)
		wantEvents(t, "first poll", ts.take(), "new open")

		low := inc("low", started(t0.Add(time.Hour)), impact(model.ImpactNone))
		hi := inc("hi", started(t0.Add(2*time.Hour)))
		ts.record(snap(at(2), old, open, low, hi), p, nil)
		wantEvents(t, "new incidents", ts.take(), "new hi")

		low = inc("low", started(t0.Add(time.Hour)), impact(model.ImpactMajor))
		old = inc("old", started(t0.Add(-72*time.Hour)), status(model.StatusResolved), update("Postmortem soon."))
		open = inc("open", impact(model.ImpactNone), update("Downgraded."))
		ts.record(snap(at(3), old, open, low, hi), p, nil)
		wantEvents(t, "later changes", ts.take(), "new old catch-up", "changed open", "new low catch-up")

		// Announced now: later changes follow without catch-up.
		low = inc("low", started(t0.Add(time.Hour)), impact(model.ImpactNone), update("Less bad."))
		ts.record(snap(at(4), old, open, low, hi), p, nil)
		wantEvents(t, "after catch-up", ts.take(), "changed low")
	}},
}
