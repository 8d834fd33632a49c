//go:build unix

package cputime

import "testing"

func TestProcessAdvances(t *testing.T) {
	start := Process()
	if start <= 0 {
		t.Fatalf("Process() = %v at start: getrusage gave nothing", start)
	}
	// Work until the figure moves, not a fixed amount: its resolution differs between
	// kernels. The bound stops a figure that never moves from hanging the test.
	x := 0
	for range 100_000 {
		if Process() != start {
			break
		}
		for i := range 1 << 16 {
			x += i
		}
	}
	if now := Process(); now <= start {
		t.Fatalf("Process() stayed at %v through the work (%d)", now, x)
	}
}
