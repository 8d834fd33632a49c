package web

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestBigIncidentMemory: an incident of 140 versions whose first update is a 1 MB body
// (each version adds a short update) is viewed by ten concurrent viewers, each reading
// the versions list, the compare page and the incident page. What each answer allocates
// stays within a small budget whatever the history's length: the list reads no
// incident, the pages decode only the versions they show (before, each decoded every
// version: 1.5 GB for the list alone).
func TestBigIncidentMemory(t *testing.T) {
	const versions, viewers = 140, 10
	e := newEnv(t)
	inc := incA(1)
	inc.Updates[0].Body = strings.Repeat("We are investigating elevated error rates in one region. ", 1<<20/57)
	for i := range versions {
		if i > 0 {
			inc.Updates = append(inc.Updates, model.Update{ID: fmt.Sprintf("u%d", i), Status: model.StatusInvestigating,
				Body: fmt.Sprintf("Still investigating (%d).", i), Format: model.FormatText, PostedAt: t0.Add(time.Duration(i) * time.Minute)})
		}
		e.record("acme", t0.Add(time.Duration(i)*time.Minute), []model.Incident{inc})
	}
	paths := []struct {
		path   string
		budget uint64 // bytes allocated by one answer
	}{
		{"/api/v1/incidents/acme/inc-a/versions?limit=200", 8 << 20},
		{"/incidents/acme/inc-a/diff", 48 << 20},
		{"/incidents/acme/inc-a", 48 << 20},
	}
	for _, p := range paths {
		e.get(p.path, 200) // warm up: templates, the decoder's tables
	}
	for _, p := range paths {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e.get(p.path, 200)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %.1f MB allocated", p.path, float64(alloc)/(1<<20))
		if alloc > p.budget {
			t.Errorf("%s: allocated %d bytes, want at most %d", p.path, alloc, p.budget)
		}
	}

	// The concurrent viewers, with the peak heap sampled: a figure, not a test.
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	var peak uint64
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}()
	var wg sync.WaitGroup
	for range viewers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range paths {
				e.get(p.path, 200)
			}
		}()
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	t.Logf("%d concurrent viewers: heap in use %.0f MB before, peak %.0f MB", viewers,
		float64(base.HeapInuse)/(1<<20), float64(peak)/(1<<20))
}
