package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
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

// TestStore is the archive's contract, one named scenario per subtest, each on a fresh
// archive.
func TestStore(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, ts *testStore)
	}{
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

		{"resolved and postmortem events", func(t *testing.T, ts *testStore) {
			a := inc("a1")
			m := inc("m1", maintenance, status(model.StatusInProgress))
			s := func(n int, incs ...model.Incident) *model.Snapshot {
				x := snap(at(n), incs...)
				x.Listings = append(x.Listings, model.Listing{Kind: model.KindMaintenance})
				return x
			}
			ts.record(s(1, a, m), all, nil)
			ts.take()
			a = inc("a1", status(model.StatusResolved), update("Resolved."))
			m = inc("m1", maintenance, status(model.StatusCompleted))
			ts.record(s(2, a, m), all, nil)
			wantEvents(t, "resolution", ts.take(), "resolved a1", "resolved m1")

			pm := a
			pm.Postmortem = &model.Postmortem{Body: "A config push.", Format: model.FormatText, PublishedAt: at(3)}
			if !slices.ContainsFunc(diff.Changes(&a, &pm), func(c model.Change) bool { return c.Field == "postmortem.body" }) {
				t.Skip("this diff does not report postmortem fields yet")
			}
			ts.record(s(3, pm, m), all, nil)
			wantEvents(t, "postmortem", ts.take(), "postmortem a1")

			ed := pm
			ed.Updates = slices.Clone(pm.Updates)
			ed.Updates[0].Body = "We are investigating elevated errors."
			ts.record(s(4, ed, m), all, nil)
			wantEvents(t, "edit", ts.take(), "changed a1")

			reopened := inc("a1", update("Resolved."), update("Errors are back."))
			reopened.Postmortem = pm.Postmortem
			ts.record(s(5, reopened, m), all, nil)
			wantEvents(t, "reopened", ts.take(), "changed a1")
		}},

		{"removal after two misses", func(t *testing.T, ts *testStore) {
			a, b := inc("a1"), inc("b1", started(t0.Add(time.Minute)))
			ts.record(snap(at(1), a, b), all, nil)
			ts.take()

			before := ts.fileState()
			res := ts.record(snap(at(2), b), all, nil)
			ts.assertWrites(before, 1) // the first miss is remembered
			if res.Removed != 0 || ts.incident("a1").Removed {
				t.Errorf("after one miss: got removed (%+v)", res)
			}
			wantEvents(t, "one miss", ts.take())

			res = ts.record(snap(at(3), b), all, nil)
			if want := (Result{Removed: 1, Messages: 1}); res != want {
				t.Errorf("Result: got %+v, want %+v", res, want)
			}
			info := ts.incident("a1")
			if !info.Removed || !info.RemovedAt.Equal(at(3)) || info.Versions != 1 {
				t.Errorf("after two misses: got %+v, want removed at %v", info, at(3))
			}
			ms := ts.messages(model.MessagePending)
			wantEvents(t, "two misses", ts.take(), "removed a1")
			if len(ms) == 1 && ms[0].Version != 1 {
				t.Errorf("removal message version: got %d, want 1", ms[0].Version)
			}
			if fetched, _, err := ts.SnapshotAt("acme", at(3)); err != nil || !fetched.Equal(at(3)) {
				t.Errorf("removal evidence: got snapshot %v, %v; want %v", fetched, err, at(3))
			}

			before = ts.fileState()
			ts.record(snap(at(4), b), all, nil)
			ts.assertNoWrite(before)

			ts.record(snap(at(5), a, b), all, nil)
			if info := ts.incident("a1"); info.Removed || info.Versions != 1 {
				t.Errorf("seen again: got %+v, want not removed", info)
			}
		}},

		{"no removal when a miss is followed by a sighting", func(t *testing.T, ts *testStore) {
			a, b := inc("a1"), inc("b1")
			ts.record(snap(at(1), a, b), all, nil)
			ts.record(snap(at(2), b), all, nil)
			ts.record(snap(at(3), a, b), all, nil)
			before := ts.fileState()
			res := ts.record(snap(at(4), b), all, nil)
			ts.assertWrites(before, 1)
			if res.Removed != 0 || ts.incident("a1").Removed {
				t.Errorf("miss, sighting, miss: got removed")
			}
		}},

		{"no removal outside the listing window or of an unlisted kind", func(t *testing.T, ts *testStore) {
			a, b := inc("a1", started(t0.Add(-24*time.Hour))), inc("b1", started(t0))
			m := inc("m1", maintenance)
			s1 := snap(at(1), a, b, m)
			s1.Listings = append(s1.Listings, model.Listing{Kind: model.KindMaintenance})
			ts.record(s1, all, nil)

			// The 50 newest no longer reach back to a1, and maintenance was not fetched.
			before := ts.fileState()
			for n := 2; n <= 4; n++ {
				s := snap(at(n), b)
				s.Listings = []model.Listing{{Kind: model.KindIncident, Since: t0.Add(-time.Hour)}}
				ts.record(s, all, nil)
			}
			ts.assertNoWrite(before)
			for _, id := range []string{"a1", "m1"} {
				if ts.incident(id).Removed {
					t.Errorf("%s: got removed", id)
				}
			}
		}},

		{"vanished listing is a failure and writes nothing", func(t *testing.T, ts *testStore) {
			ts.record(snap(at(1), inc("a1"), inc("b1")), all, nil)
			before := ts.fileState()
			_, err := ts.Record("acme", snap(at(2)), model.FetchState{"incidents": {Hash: "new"}}, nil, all)
			if !errors.Is(err, ErrVanished) {
				t.Fatalf("empty listing: got %v, want ErrVanished", err)
			}
			ts.assertNoWrite(before)

			// Not suspicious: a window that starts after them, a kind that was not
			// listed, a listing that still has incidents of that kind.
			late := snap(at(3))
			late.Listings[0].Since = t0.Add(time.Hour)
			maintOnly := snap(at(4))
			maintOnly.Listings = []model.Listing{{Kind: model.KindMaintenance}}
			for name, s := range map[string]*model.Snapshot{"late window": late, "maintenance only": maintOnly} {
				if _, err := ts.Record("acme", s, nil, nil, all); err != nil {
					t.Errorf("%s: got %v, want nil", name, err)
				}
			}
			if _, err := ts.Record("acme", snap(at(5), inc("c1")), nil, nil, all); err != nil {
				t.Errorf("new incident only: got %v, want nil", err)
			}
		}},

		{"open-only provider: absence twice is an inferred resolution", func(t *testing.T, ts *testStore) {
			oo := func(n int, incs ...model.Incident) *model.Snapshot {
				s := snap(at(n), incs...)
				s.OpenOnly = true
				s.Listings = append(s.Listings, model.Listing{Kind: model.KindMaintenance})
				return s
			}
			a := inc("a1")
			a.StatusRaw = "INVESTIGATING"
			m := inc("m1", maintenance, status(model.StatusInProgress))
			ts.record(oo(1, a, m), all, nil)
			ts.take()

			res := ts.record(oo(2), all, nil) // empty: a healthy page, not ErrVanished
			if res != (Result{}) {
				t.Errorf("first miss: got %+v, want zero", res)
			}
			res = ts.record(oo(3), all, nil)
			if want := (Result{Changed: 2, Resolved: 2, Messages: 2}); res != want {
				t.Errorf("second miss: got %+v, want %+v", res, want)
			}
			wantEvents(t, "inferred", ts.take(), "resolved a1", "resolved m1")
			for id, want := range map[string]model.Status{"a1": model.StatusResolved, "m1": model.StatusCompleted} {
				got, err := ts.Latest("acme", id)
				if err != nil || got.Status != want || !got.ResolvedAt.Equal(at(2)) || !got.ResolvedInferred || got.StatusRaw != "" {
					t.Errorf("%s: got %+v, %v; want %s at %v, inferred", id, got, err, want, at(2))
				}
			}
			before := ts.fileState()
			ts.record(oo(4), all, nil)
			ts.assertNoWrite(before)

			// Listed again: it is open again.
			ts.record(oo(5, a), all, nil)
			if got, _ := ts.Latest("acme", "a1"); got.Status != model.StatusInvestigating || got.ResolvedInferred {
				t.Errorf("back: got %+v", got)
			}
			wantEvents(t, "back", ts.take(), "changed a1")
		}},

		{"failure and recovery messages at the threshold, once", func(t *testing.T, ts *testStore) {
			for n := 1; n <= 5; n++ {
				got, err := ts.RecordFailure("acme", "HTTP 503", 3)
				if err != nil || got != n {
					t.Fatalf("RecordFailure #%d: got %d, %v", n, got, err)
				}
			}
			ms := ts.messages(model.MessagePending)
			if len(ms) != 1 || ms[0].Event != model.EventSourceDown || ms[0].Text != "HTTP 503" || ms[0].Source != "acme" {
				t.Fatalf("down messages: got %+v, want one source_down", ms)
			}
			srcs, _ := ts.Sources()
			if len(srcs) != 1 || srcs[0].Failures != 5 || srcs[0].LastError != "HTTP 503" || !srcs[0].Down {
				t.Errorf("Sources: got %+v", srcs)
			}
			ts.take()
			if err := ts.RecordSuccess("acme"); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, "recovery", ts.take(), "source_up ")
			before := ts.fileState()
			if err := ts.RecordSuccess("acme"); err != nil {
				t.Fatal(err)
			}
			ts.assertNoWrite(before)

			// Below the threshold: no message either way.
			ts.RecordFailure("acme", "timeout", 3)
			ts.RecordFailure("acme", "timeout", 3)
			ts.RecordSuccess("acme")
			wantEvents(t, "below threshold", ts.take())
			if srcs, _ := ts.Sources(); srcs[0].Failures != 0 || srcs[0].LastError != "" {
				t.Errorf("after success: got %+v", srcs[0])
			}
			if err := ts.RecordSuccess("never-failed"); err != nil {
				t.Errorf("RecordSuccess(unknown): %v", err)
			}
		}},

		{"outbox ordering, sent, park, retry, drop", func(t *testing.T, ts *testStore) {
			for _, src := range []string{"s1", "s2", "s3", "s4"} {
				ts.RecordFailure(src, "down "+src, 1)
			}
			ms := ts.messages()
			var ids []uint64
			for _, m := range ms {
				ids = append(ids, m.ID)
			}
			if !slices.IsSorted(ids) || len(ids) != 4 || ms[0].Source != "s1" || ms[3].Source != "s4" {
				t.Fatalf("Messages: got %+v, want s1..s4 oldest first", ms)
			}
			if ms[0].State != model.MessagePending || !ms[0].CreatedAt.Equal(ts.clock.Now()) {
				t.Errorf("new message: got %+v", ms[0])
			}
			if err := ts.MarkSent(ids[0]); err != nil {
				t.Fatal(err)
			}
			if err := ts.MarkSent(ids[0]); err != nil {
				t.Errorf("MarkSent twice: %v", err)
			}
			if err := ts.MarkAttempt(ids[1], "rate limited", false); err != nil {
				t.Fatal(err)
			}
			if err := ts.MarkAttempt(ids[2], "channel_not_found", true); err != nil {
				t.Fatal(err)
			}
			if err := ts.Drop(ids[3]); err != nil {
				t.Fatal(err)
			}
			check := func(step string, states []model.MessageState, want ...uint64) {
				t.Helper()
				var got []uint64
				for _, m := range ts.messages(states...) {
					got = append(got, m.ID)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: Messages(%v): got %v, want %v", step, states, got, want)
				}
			}
			check("after marks", []model.MessageState{model.MessagePending}, ids[1])
			check("after marks", []model.MessageState{model.MessageParked}, ids[2])
			check("after marks", []model.MessageState{model.MessageSent}, ids[0])
			check("after marks", nil, ids[0], ids[1], ids[2])
			check("after marks", []model.MessageState{model.MessagePending, model.MessageParked}, ids[1], ids[2])

			m, err := ts.Message(ids[2])
			if err != nil || m.State != model.MessageParked || m.Attempts != 1 || m.LastError != "channel_not_found" {
				t.Errorf("parked: got %+v, %v", m, err)
			}
			if m, _ := ts.Message(ids[0]); m.State != model.MessageSent {
				t.Errorf("sent: got %+v", m)
			}
			if err := ts.Retry(ids[2]); err != nil {
				t.Fatal(err)
			}
			if m, _ := ts.Message(ids[2]); m.State != model.MessagePending || m.Attempts != 0 || m.LastError != "channel_not_found" {
				t.Errorf("retried: got %+v", m)
			}
			check("after retry", []model.MessageState{model.MessagePending}, ids[1], ids[2])

			for name, err := range map[string]error{
				"Message(dropped)":  func() error { _, err := ts.Message(ids[3]); return err }(),
				"Drop(sent)":        ts.Drop(ids[0]),
				"MarkAttempt(sent)": ts.MarkAttempt(ids[0], "x", true),
				"Retry(unknown)":    ts.Retry(999),
				"MarkSent(unknown)": ts.MarkSent(999),
			} {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("%s: got %v, want ErrNotFound", name, err)
				}
			}
			// The sequence keeps growing after a drop: ids are never reused.
			ts.RecordFailure("s5", "x", 1)
			if ms := ts.messages(model.MessagePending); ms[len(ms)-1].ID <= ids[3] {
				t.Errorf("new id after drop: got %d, want > %d", ms[len(ms)-1].ID, ids[3])
			}
		}},

		{"threads", func(t *testing.T, ts *testStore) {
			feedID := "tag:status.example.com,2005:Incident/42"
			ts.record(snap(at(1), inc(feedID)), all, nil)
			urlID := model.URLID(feedID)
			if ch, thr, err := ts.Thread("acme", urlID); ch != "" || thr != "" || err != nil {
				t.Errorf("Thread before set: got %q, %q, %v", ch, thr, err)
			}
			if err := ts.SetThread("acme", urlID, "C123", "1751371200.000100"); err != nil {
				t.Fatal(err)
			}
			// The provider id works too.
			if ch, thr, err := ts.Thread("acme", feedID); ch != "C123" || thr != "1751371200.000100" || err != nil {
				t.Errorf("Thread: got %q, %q, %v", ch, thr, err)
			}
			if _, _, err := ts.Thread("acme", "nope"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Thread(unknown): got %v, want ErrNotFound", err)
			}
			if err := ts.SetThread("other", urlID, "C1", "1"); !errors.Is(err, ErrNotFound) {
				t.Errorf("SetThread(unknown source): got %v, want ErrNotFound", err)
			}
			if ms := ts.messages(); len(ms) != 1 || ms[0].IncidentID != urlID {
				t.Errorf("message incident id: got %+v, want %s", ms, urlID)
			}
		}},

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
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, MustOpen(t))
		})
	}
}
