package sourcehealth

import (
	"testing"
	"time"
)

// TestFailed: the failure that reaches the threshold announces the source down, once;
// a threshold below 1 counts as 1; unreadable answers count in a row.
func TestFailed(t *testing.T) {
	t0 := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	var h State
	for i, want := range []bool{false, false, true, false} {
		if got := h.Failed("timeout", i%2 == 1, t0.Add(time.Duration(i)*time.Minute), 3); got != want {
			t.Errorf("failure %d: down %v, want %v", i+1, got, want)
		}
	}
	if h.Failures != 4 || !h.Since.Equal(t0) || !h.Down || h.Unreadable != 1 || h.LastError != "timeout" {
		t.Errorf("after four failures: %+v", h)
	}
	var g State
	if !g.Failed("x", false, t0, 0) {
		t.Error("threshold 0: the first failure did not announce")
	}
}
