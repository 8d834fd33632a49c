package archive

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestRootEdits checks the root updates owed across restarts: set for a delivered reply,
// replaced only by a newer one, cleared only by the one done, kept by SetThread's absence.
func TestRootEdits(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(t0, inc("a1"), inc("a2")), all, nil)
	msgs := ts.messages(model.MessagePending)
	if len(msgs) != 2 {
		t.Fatalf("messages: %d, want 2", len(msgs))
	}
	for _, m := range msgs {
		if err := ts.MarkSent(m.ID); err != nil {
			t.Fatal(err)
		}
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
	a1, a2 := msgs[0].ID, msgs[1].ID

	// No thread stored for a1 yet: nothing to remember.
	if err := ts.SetRootEdit("acme", "a1", a1); err != nil || len(owed()) != 0 {
		t.Fatalf("without a thread: %v, owed %v", err, owed())
	}
	if err := ts.SetThread("acme", "a1", "C1", "1.1"); err != nil {
		t.Fatal(err)
	}
	if err := ts.SetThread("acme", "a2", "C1", "1.2"); err != nil {
		t.Fatal(err)
	}
	if err := ts.SetRootEdit("acme", "a2", a2); err != nil {
		t.Fatal(err)
	}
	if err := ts.SetRootEdit("acme", "a1", a1); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 2 || got[0] != a1 || got[1] != a2 {
		t.Fatalf("owed: %v, want [%d %d] oldest first", got, a1, a2)
	}
	// An older message does not replace a newer one; clearing another id keeps it.
	if err := ts.SetRootEdit("acme", "a2", a1); err != nil {
		t.Fatal(err)
	}
	if err := ts.ClearRootEdit("acme", "a2", a1); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 2 || got[1] != a2 {
		t.Fatalf("owed after an older set and clear: %v", got)
	}
	if ch, th, err := ts.Thread("acme", "a2"); err != nil || ch != "C1" || th != "1.2" {
		t.Errorf("thread kept: %s %s %v", ch, th, err)
	}
	if err := ts.ClearRootEdit("acme", "a2", a2); err != nil {
		t.Fatal(err)
	}
	if got := owed(); len(got) != 1 || got[0] != a1 {
		t.Fatalf("owed after clearing a2: %v, want [%d]", got, a1)
	}
	ts.reopen()
	if got := owed(); len(got) != 1 || got[0] != a1 {
		t.Fatalf("owed after a reopen: %v, want [%d]", got, a1)
	}
}
