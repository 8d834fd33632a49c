package daemon

import (
	"context"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// The daemon's soft memory limit follows its live heap: max(floor, live × 5/4), under
// GOMEMLIMIT when that is set. Go's default (GOGC=100, no limit) lets the heap reach
// twice what is live before it collects, so a daemon with 80 MB live at 10,000 sources
// peaked at ~3× that in RSS during its cold round, all of it garbage. A fixed limit
// would do the same for that fleet but make the GC run without end (up to half the CPU)
// for one whose live heap is above it; following the live heap keeps a quarter of it as
// headroom, whatever the fleet. WATCHER_MEMORY_FLOOR sets the floor (a size like
// GOMEMLIMIT's: 64MiB, 1GiB, or bytes) or turns this off ("off": the runtime's own
// GOGC and GOMEMLIMIT alone).
const (
	defaultMemoryFloor = 64 << 20
	memoryLimitEvery   = time.Second
)

// LimitMemory keeps the runtime's soft memory limit at max(floor, live heap × 5/4), at
// most the GOMEMLIMIT the process started with, until ctx ends; it returns at once when
// WATCHER_MEMORY_FLOOR is "off".
func LimitMemory(ctx context.Context, log *slog.Logger) {
	floor, ok := memoryFloor(os.Getenv("WATCHER_MEMORY_FLOOR"))
	if !ok {
		log.Warn("WATCHER_MEMORY_FLOOR is not a size (like 64MiB) or off; using the default", "value", os.Getenv("WATCHER_MEMORY_FLOOR"), "default", "64MiB")
		floor = defaultMemoryFloor
	}
	if floor < 0 {
		return
	}
	ceiling := debug.SetMemoryLimit(-1) // GOMEMLIMIT's, or MaxInt64
	defer debug.SetMemoryLimit(ceiling)
	sample := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(memoryLimitEvery)
	defer t.Stop()
	for {
		rtmetrics.Read(sample)
		var live int64
		if sample[0].Value.Kind() == rtmetrics.KindUint64 {
			live = int64(min(sample[0].Value.Uint64(), math.MaxInt64/2))
		}
		debug.SetMemoryLimit(memoryLimit(live, floor, ceiling))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// memoryLimit is the soft limit for a live heap of live bytes.
func memoryLimit(live, floor, ceiling int64) int64 {
	return min(ceiling, max(floor, live+live/4))
}

// memoryFloor reads WATCHER_MEMORY_FLOOR: -1 for "off", the default when empty; ok is
// false when it is neither a size nor off.
func memoryFloor(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	switch v {
	case "":
		return defaultMemoryFloor, true
	case "off":
		return -1, true
	}
	units := []struct {
		suffix string
		scale  int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}, {"", 1}}
	for _, u := range units {
		num, found := strings.CutSuffix(v, u.suffix)
		if !found {
			continue
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64/u.scale {
			return 0, false
		}
		return n * u.scale, true
	}
	return 0, false
}
