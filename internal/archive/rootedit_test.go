package archive

import (
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestRootEdits checks the root updates owed across restarts: recorded by a reply's
// mark-sent, replaced only by a newer one, cleared only by the one done, and nothing for
// an incident without a stored thread.
func TestRootEdits(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(t0, inc("a1"), inc("a2")), all, nil)
	ts.clock.t = t0.Add(time.Minute)
	ts.record(snap(t0.Add(time.Minute), inc("a1", update("Fixed.")), inc("a2", update("Fixed."))), all, nil)
	msgs := ts.messages(model.MessagePending)
	if len(msgs) != 4 {
		t.Fatalf("messages: %d, want 4", len(msgs))
	}
	owed := func() []uint64 {
		t.Helper()
		ms, err := ts.RootEdits()
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint64
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		return ids
	}
	byInc := map[string][]uint64{}
	for _, m := range msgs {
		byInc[m.IncidentID] = append(byInc[m.IncidentID], m.ID)
	}
	a1, a2 := byInc["a1"], byInc["a2"] // root, reply
	for _, id := range []uint64{a1[0], a2[0]} {
		if err := ts.MarkSent(id); err != nil {
			t.Fatal(err)
		}
	}

	// No thread stored for a1: its reply owes nothing.
	if err := ts.SetThread("acme", "a2", "C1", "1.2"); err != nil {
		t.Fatal(err)
	}
	if err := ts.MarkReplySent(a1[1]); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 0 {
		t.Fatalf("owed without a thread: %v", got)
	}
	if err := ts.MarkReplySent(a2[1]); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 1 || got[0] != a2[1] {
		t.Fatalf("owed: %v, want [%d]", got, a2[1])
	}
	if m := ts.messages(model.MessageSent); len(m) != 4 {
		t.Errorf("sent: %d messages, want 4", len(m))
	}
	// Marking again is a no-op; clearing another id keeps it; the thread is kept.
	if err := ts.MarkReplySent(a2[1]); err != nil {
		t.Fatal(err)
	}
	if err := ts.ClearRootEdit("acme", "a2", a2[0]); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 1 {
		t.Fatalf("owed after clearing another id: %v", got)
	}
	if ch, th, err := ts.Thread("acme", "a2"); err != nil || ch != "C1" || th != "1.2" {
		t.Errorf("thread kept: %s %s %v", ch, th, err)
	}
	ts.reopen()
	if got := owed(); len(got) != 1 || got[0] != a2[1] {
		t.Fatalf("owed after a reopen: %v, want [%d]", got, a2[1])
	}
	if err := ts.ClearRootEdit("acme", "a2", a2[1]); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 0 {
		t.Fatalf("owed after clearing: %v", got)
	}
}
