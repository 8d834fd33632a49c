package daemon

import (
	"math"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		live, floor, ceiling, want int64
	}{
		{10 << 20, 64 << 20, math.MaxInt64, 64 << 20},  // a small heap: the floor
		{80 << 20, 64 << 20, math.MaxInt64, 100 << 20}, // a quarter of the live heap as headroom
		{800 << 20, 64 << 20, 768 << 20, 768 << 20},    // never above GOMEMLIMIT
	} {
		if got := memoryLimit(c.live, c.floor, c.ceiling); got != c.want {
			t.Errorf("memoryLimit(%d, %d, %d) = %d, want %d", c.live, c.floor, c.ceiling, got, c.want)
		}
	}
	for v, want := range map[string]int64{"": 64 << 20, "off": -1, "128MiB": 128 << 20, "1GiB": 1 << 30, "4096": 4096, "512KiB": 512 << 10} {
		if got, ok := memoryFloor(v); !ok || got != want {
			t.Errorf("memoryFloor(%q) = %d, %v; want %d", v, got, ok, want)
		}
	}
	for _, v := range []string{"lots", "-1MiB", "1.5GiB", "99999999999GiB"} {
		if _, ok := memoryFloor(v); ok {
			t.Errorf("memoryFloor(%q) is ok, want not", v)
		}
	}
}
