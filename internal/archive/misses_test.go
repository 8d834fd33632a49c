package archive

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// An unchanged poll after a first miss is the second well-formed poll without the
// incident: ConfirmMisses removes (history) or resolves (open-only) it.
func TestConfirmMisses(t *testing.T) {
	t.Run("history provider removes", func(t *testing.T) {
		ts := MustOpen(t)
		ts.record(snap(at(0), inc("a"), inc("b")), Policy{FirstPoll: FirstPollAll}, nil)
		ts.record(snap(at(1), inc("b")), Policy{}, nil) // first miss of a
		if ps, _ := ts.PollState("acme"); !ps.PendingMisses {
			t.Fatalf("PollState: no pending miss after a first miss")
		}
		res, err := ts.ConfirmMisses("acme", at(2), nil, Policy{})
		if err != nil || res.Removed != 1 {
			t.Fatalf("ConfirmMisses: %+v, %v; want 1 removed", res, err)
		}
		if !ts.incident("a").Removed || ts.incident("b").Removed {
			t.Errorf("after ConfirmMisses: a removed %v, b removed %v; want true, false", ts.incident("a").Removed, ts.incident("b").Removed)
		}
		if ps, _ := ts.PollState("acme"); ps.PendingMisses {
			t.Errorf("PollState: miss still pending after ConfirmMisses")
		}
		before := ts.fileState()
		if res, err := ts.ConfirmMisses("acme", at(3), nil, Policy{}); err != nil || res.Removed != 0 {
			t.Errorf("second ConfirmMisses: %+v, %v", res, err)
		}
		ts.assertNoWrite(before)
	})
	t.Run("open-only provider resolves", func(t *testing.T) {
		ts := MustOpen(t)
		open := func(n int, incs ...model.Incident) *model.Snapshot {
			s := snap(at(n), incs...)
			s.OpenOnly = true
			return s
		}
		ts.record(open(0, inc("a")), Policy{FirstPoll: FirstPollAll}, nil)
		ts.record(open(1), Policy{}, nil)
		res, err := ts.ConfirmMisses("acme", at(2), nil, Policy{})
		if err != nil || res.Resolved != 1 {
			t.Fatalf("ConfirmMisses: %+v, %v; want 1 resolved", res, err)
		}
		got := ts.incident("a").Latest
		if got.Status != model.StatusResolved || !got.ResolvedInferred || !got.ResolvedAt.Equal(at(1)) {
			t.Errorf("a: status %s, inferred %v, resolved_at %s; want resolved, inferred, %s", got.Status, got.ResolvedInferred, got.ResolvedAt, at(1))
		}
	})
	t.Run("a miss then seen again leaves nothing to confirm", func(t *testing.T) {
		ts := MustOpen(t)
		ts.record(snap(at(0), inc("a"), inc("b")), Policy{FirstPoll: FirstPollAll}, nil)
		ts.record(snap(at(1), inc("b")), Policy{}, nil)
		ts.record(snap(at(2), inc("a"), inc("b")), Policy{}, nil)
		if res, err := ts.ConfirmMisses("acme", at(3), nil, Policy{}); err != nil || res.Removed != 0 {
			t.Errorf("ConfirmMisses: %+v, %v; want nothing removed", res, err)
		}
	})
}

func TestMigrateFreezesTheOldPlatform(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(at(0), inc("a"), inc("b")), Policy{FirstPoll: FirstPollAll}, model.FetchState{"incidents": {ETag: `"x"`}})
	if err := ts.SetKind("acme", "statuspage"); err != nil {
		t.Fatal(err)
	}
	n, err := ts.Migrate("acme", "incidentio", at(1))
	if err != nil || n != 2 {
		t.Fatalf("Migrate: froze %d, %v; want 2", n, err)
	}
	ps, _ := ts.PollState("acme")
	if ps.Kind != "incidentio" || len(ps.Fetch) != 0 {
		t.Errorf("after Migrate: kind %q, fetch state %v; want incidentio and none", ps.Kind, ps.Fetch)
	}
	if !ts.incident("a").Migrated {
		t.Errorf("a is not marked migrated")
	}
	msgs := len(ts.messages(model.MessagePending))
	// The new platform's first poll: taken in as a new source, and the frozen incidents
	// are neither removed nor announced.
	res := ts.record(snap(at(2), inc("01HNEWULID0000000000000000")), Policy{FirstPoll: FirstPollOpen}, nil)
	if res.Removed != 0 {
		t.Errorf("first poll after migration removed %d", res.Removed)
	}
	ts.record(snap(at(3), inc("01HNEWULID0000000000000000")), Policy{}, nil)
	if ts.incident("a").Removed || ts.incident("b").Removed {
		t.Errorf("migrated incidents were removed by the new platform's polls")
	}
	if got := len(ts.messages(model.MessagePending)) - msgs; got != 1 {
		t.Errorf("%d messages after migration, want 1 (the new platform's open incident)", got)
	}
}

func TestOpenCounts(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(at(0), inc("a", impact(model.ImpactMajor)), inc("b"), inc("c", status(model.StatusResolved))), Policy{FirstPoll: FirstPollAll}, nil)
	got, err := ts.OpenCounts("acme")
	if err != nil || got[model.ImpactMajor] != 1 || got[model.ImpactMinor] != 1 || len(got) != 2 {
		t.Errorf("OpenCounts: %v, %v; want 1 major and 1 minor open", got, err)
	}
	ts.record(snap(at(1), inc("a", impact(model.ImpactCritical)), inc("b"), inc("c", status(model.StatusResolved))), Policy{}, nil)
	if got, _ := ts.OpenCounts("acme"); got[model.ImpactCritical] != 1 || got[model.ImpactMajor] != 0 {
		t.Errorf("after an impact change: %v, want a critical and no major", got)
	}
}
