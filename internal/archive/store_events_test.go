package archive

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// storeEventCases: resolved and postmortem events, removals, failure messages, the outbox
// and threads.
var storeEventCases = []storeCase{
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
}
