package daemon

import (
	"context"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/config/syntax"
)

// The daemon's soft memory limit follows its live heap: max(floor, live × 5/4 + the
// runtime's other memory), under
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

// LimitMemory keeps the runtime's soft memory limit at max(floor, live heap × 5/4 +
// stacks and metadata), at
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
	samples := []rtmetrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	t := time.NewTicker(memoryLimitEvery)
	defer t.Stop()
	for {
		rtmetrics.Read(samples)
		var v [5]int64
		for i, s := range samples {
			if s.Value.Kind() == rtmetrics.KindUint64 {
				v[i] = int64(min(s.Value.Uint64(), math.MaxInt64/4))
			}
		}
		// What the limit counts besides the heap's objects and its free pages: goroutine
		// stacks, the GC's metadata, fragmentation.
		overhead := max(v[1]-v[2]-v[3]-v[4], 0)
		debug.SetMemoryLimit(memoryLimit(v[0], overhead, floor, ceiling))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// memoryLimit is the soft limit for a live heap of live bytes and overhead bytes of the
// runtime's other memory (the limit counts it too: leaving it out, 40 MB of goroutine
// stacks in a cold round made the GC run without end).
func memoryLimit(live, overhead, floor, ceiling int64) int64 {
	return min(ceiling, max(floor, overhead+live+live/4))
}

// memoryFloor reads WATCHER_MEMORY_FLOOR, a size as the config writes one (64MiB, 0.5GB):
// -1 for "off", the default when empty; ok is false when it is neither a size nor off.
func memoryFloor(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	switch v {
	case "":
		return defaultMemoryFloor, true
	case "off":
		return -1, true
	}
	n, err := syntax.ParseSize(v)
	return n, err == nil && n >= 0
}
