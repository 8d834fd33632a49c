package layout

import (
	"bytes"
	"math"
	"testing"
	"time"
)

// TestCurrent: every layout before the current one has its migration.
func TestCurrent(t *testing.T) {
	if len(migrations) != Current {
		t.Errorf("Current %d, %d migrations", Current, len(migrations))
	}
}

// TestTimeKeyOrder: snapshot keys sort as their times do, for any time at all, before
// 1970 and outside what UnixNano can represent included.
func TestTimeKeyOrder(t *testing.T) {
	times := []time.Time{
		time.Time{},
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Unix(0, math.MinInt64).Add(-time.Hour),
		time.Unix(0, math.MinInt64),
		time.Date(1926, 7, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(-1, 999_999_999),
		time.Unix(0, 0),
		time.Unix(0, 1),
		time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 7, 1, 12, 0, 0, 1, time.UTC),
		time.Unix(0, math.MaxInt64),
		time.Unix(0, math.MaxInt64).Add(time.Hour),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
	}
	for i, a := range times {
		for j, b := range times {
			got := bytes.Compare(TimeKey(a), TimeKey(b))
			if want := a.Compare(b); got != want {
				t.Errorf("TimeKey(%v) vs TimeKey(%v) [%d, %d]: got %d, want %d", a, b, i, j, got, want)
			}
		}
	}
}

// TestComponentKeyOrder: component versions sort by number.
func TestComponentKeyOrder(t *testing.T) {
	ns := []uint32{1, 2, 255, 256, 65536, math.MaxUint32}
	for i := 1; i < len(ns); i++ {
		if bytes.Compare(ComponentKey(ns[i-1]), ComponentKey(ns[i])) >= 0 {
			t.Errorf("ComponentKey(%d) sorts at or after ComponentKey(%d)", ns[i-1], ns[i])
		}
	}
}
