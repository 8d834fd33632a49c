package writehealth

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTracker: a storage failure lasts until a write commits; a refused write says
// nothing; a write in flight past the stall is reported.
func TestTracker(t *testing.T) {
	var h Tracker
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	if err := h.Check("a.db", time.Minute); err != nil {
		t.Fatalf("nothing written: %v", err)
	}
	disk := errors.New("disk full")
	h.End(h.Begin(), disk, at)
	if err := h.Check("a.db", time.Minute); !errors.Is(err, disk) || !strings.Contains(err.Error(), "2026-07-01T12:00:00Z") {
		t.Errorf("after a failed write: %v", err)
	}
	h.End(h.Begin(), Refused, time.Time{})
	if err := h.Check("a.db", time.Minute); !errors.Is(err, disk) {
		t.Errorf("a refused write cleared the failure: %v", err)
	}
	h.End(h.Begin(), nil, time.Time{})
	if err := h.Check("a.db", time.Minute); err != nil {
		t.Errorf("after a committed write: %v", err)
	}
	h.Fail(disk, at)
	if err := h.Check("a.db", time.Minute); !errors.Is(err, disk) {
		t.Errorf("after a failed read: %v", err)
	}
	h.End(h.Begin(), nil, time.Time{})
	id := h.Begin()
	if err := h.Check("a.db", time.Hour); err != nil {
		t.Errorf("a write in flight within the stall: %v", err)
	}
	time.Sleep(2 * time.Millisecond)
	if err := h.Check("a.db", time.Millisecond); err == nil || !strings.Contains(err.Error(), "a.db: a write has not finished") {
		t.Errorf("a write in flight past the stall: %v", err)
	}
	h.End(id, nil, time.Time{})
	if err := h.Check("a.db", time.Millisecond); err != nil {
		t.Errorf("after it ended: %v", err)
	}
}
