package daemon

import (
	"context"
	"log/slog"
	"math"
	"runtime/debug"
	"testing"
	"time"
)

func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		live, overhead, floor, ceiling, want int64
	}{
		{10 << 20, 5 << 20, 64 << 20, math.MaxInt64, 64 << 20},  // a small heap: the floor
		{80 << 20, 0, 64 << 20, math.MaxInt64, 100 << 20},       // a quarter of the live heap as headroom
		{40 << 20, 40 << 20, 64 << 20, math.MaxInt64, 90 << 20}, // stacks and metadata on top
		{800 << 20, 10 << 20, 64 << 20, 768 << 20, 768 << 20},   // never above GOMEMLIMIT
	} {
		if got := memoryLimit(c.live, c.overhead, c.floor, c.ceiling); got != c.want {
			t.Errorf("memoryLimit(%d, %d, %d, %d) = %d, want %d", c.live, c.overhead, c.floor, c.ceiling, got, c.want)
		}
	}
	for v, want := range map[string]int64{"": 64 << 20, "off": -1, "128MiB": 128 << 20, "1GiB": 1 << 30, "4096": 4096, "512KiB": 512 << 10, "1.5GiB": 3 << 29, "100MB": 100e6} {
		if got, ok := memoryFloor(v); !ok || got != want {
			t.Errorf("memoryFloor(%q) = %d, %v; want %d", v, got, ok, want)
		}
	}
	for _, v := range []string{"lots", "-1MiB", "99999999999GiB", "64 apples"} {
		if _, ok := memoryFloor(v); ok {
			t.Errorf("memoryFloor(%q) is ok, want not", v)
		}
	}
}

// LimitMemory sets a limit of at least the floor while it runs and puts back the one it
// found when its context ends.
func TestLimitMemorySetsAndRestores(t *testing.T) {
	t.Setenv("WATCHER_MEMORY_FLOOR", "3GiB")
	before := debug.SetMemoryLimit(-1)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { LimitMemory(ctx, slog.New(slog.DiscardHandler)); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) != min(before, 3<<30) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != min(before, 3<<30) {
		t.Errorf("limit while running: %d, want %d (the floor, under the ceiling)", got, min(before, 3<<30))
	}
	cancel()
	<-done
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after: %d, want %d", got, before)
	}
}
