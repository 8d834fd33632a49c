package daemon

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/config"
)

func TestJitterSpreadsSources(t *testing.T) {
	for _, spec := range []string{"*/2 * * * *", "@every 2m"} {
		t.Run(spec, func(t *testing.T) { testJitterSpreads(t, spec) })
	}
}

func testJitterSpreads(t *testing.T, spec string) {
	s, err := config.ParseSchedule(spec)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)
	iv := interval(s, now)
	if iv != 2*time.Minute {
		t.Fatalf("interval of %s: got %s, want 2m", spec, iv)
	}
	perSecond := map[int64]int{}
	for i := range 1000 {
		j := jitter(s, fmt.Sprintf("source-%d", i), iv)
		next := j.Next(now)
		if !next.After(now) {
			t.Fatalf("source-%d: next %s is not after %s", i, next, now)
		}
		if gap := j.Next(next).Sub(next); gap != iv {
			t.Fatalf("source-%d: runs %s apart, want %s", i, gap, iv)
		}
		if again := jitter(s, fmt.Sprintf("source-%d", i), iv).Next(now); !again.Equal(next) {
			t.Fatalf("source-%d: offset not fixed: %s then %s", i, next, again)
		}
		if next.Nanosecond() != 0 {
			// Whole seconds: the sources sharing a second fire in one scheduler wake.
			t.Fatalf("source-%d: next run %s is not on a whole second", i, next)
		}
		perSecond[next.Unix()]++
	}
	busiest := 0
	for _, n := range perSecond {
		busiest = max(busiest, n)
	}
	// 1,000 sources over a 60 s spread average ~17 a second; a hash puts a few more in
	// some seconds, never most of them.
	if busiest > 50 || len(perSecond) < 55 {
		t.Errorf("1,000 sources fire in %d distinct seconds, at most %d in one; want them spread over ~60", len(perSecond), busiest)
	}
}

func TestJitterShortIntervals(t *testing.T) {
	s, _ := config.ParseSchedule("@every 1s")
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	j := jitter(s, "fast", interval(s, now))
	if next := j.Next(now); next.Sub(now) > time.Second {
		t.Errorf("@every 1s: next run %s after now, want ≤ 1s (no jitter on second schedules)", next.Sub(now))
	}
}

// BenchmarkHeapPerSource reports the heap a daemon holds per source once built (its
// config, state and schedule entry; not yet its metrics or poll state, which come with
// the first poll): at 10,000 sources every byte here is 10 KB for the GC to mark.
func BenchmarkHeapPerSource(b *testing.B) {
	const n = 10000
	cfg := manySources("listen: \"\"\n", n, "statuspage", "@every 1m")
	clk := &clock{t: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)}
	var perSource float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, _ := newDaemonWith(b, cfg, clk)
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(d.cron.Entries()) != n {
			b.Fatalf("%d cron entries, want %d", len(d.cron.Entries()), n)
		}
		perSource = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		runtime.KeepAlive(d)
	}
	b.ReportMetric(perSource, "B/source")
}
