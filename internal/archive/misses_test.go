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
		if _, pending, _ := ts.PollState("acme"); !pending {
			t.Fatalf("PollState: no pending miss after a first miss")
		}
		res, err := ts.ConfirmMisses("acme", at(2), nil, Policy{})
		if err != nil || res.Removed != 1 {
			t.Fatalf("ConfirmMisses: %+v, %v; want 1 removed", res, err)
		}
		if !ts.incident("a").Removed || ts.incident("b").Removed {
			t.Errorf("after ConfirmMisses: a removed %v, b removed %v; want true, false", ts.incident("a").Removed, ts.incident("b").Removed)
		}
		if _, pending, _ := ts.PollState("acme"); pending {
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
