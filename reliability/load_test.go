package reliability

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// zone serves many sources under /s<i>/ and records when each asked for incidents.json.
type zone struct {
	page *fakepage.Statuspage
	hang bool // every request hangs until the client gives up, as a dead zone does
	mu   sync.Mutex
	hits map[int][]time.Time
}

func (z *zone) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/s")
	idText, path, ok2 := strings.Cut(rest, "/")
	id, err := strconv.Atoi(idText)
	if !ok || !ok2 || err != nil {
		http.NotFound(w, r)
		return
	}
	if path == "api/v2/incidents.json" {
		z.mu.Lock()
		z.hits[id] = append(z.hits[id], time.Now())
		z.mu.Unlock()
	}
	if z.hang {
		<-r.Context().Done()
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + path
	z.page.ServeHTTP(w, r2)
}

// TestLoadWithADeadZone runs the daemon over 1,000 sources in three zones, one of which
// times out (as in the TwentyThree incident), and checks that the healthy sources keep
// their schedule and the dead zone gets no more requests than the backoff allows.
func TestLoadWithADeadZone(t *testing.T) {
	if testing.Short() {
		t.Skip("the load test runs for over a minute")
	}
	const (
		sources  = 1000
		interval = 20 * time.Second
		run      = 75 * time.Second
		timeout  = 2 * time.Second
	)
	page := &fakepage.Statuspage{Name: "Zone"}
	page.Set(nil, nil)
	zones := []*zone{{page: page, hits: map[int][]time.Time{}}, {page: page, hits: map[int][]time.Time{}}, {page: page, hang: true, hits: map[int][]time.Time{}}}
	urls := make([]string, len(zones))
	for i, z := range zones {
		srv := httptest.NewServer(z)
		defer srv.Close()
		urls[i] = srv.URL
	}
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nlisten: %s\nhttp:\n  concurrency: 128\n  per_host: 128\ndefaults:\n  schedule: \"@every %s\"\n  timeout: %s\n  maintenance: false\n  failure_threshold: 1000\nsources:\n",
		filepath.Join(t.TempDir(), "watcher.db"), testbin.FreeAddr(t), interval, timeout)
	for i := range sources {
		fmt.Fprintf(&b, "  - name: s%d\n    url: %s/s%d/\n    kind: statuspage\n", i, urls[i%3], i)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(cfg, []byte(b.String()), 0o600)

	start := time.Now()
	d := startDaemon(t, []string{"WATCHER_CONFIG=" + cfg})
	time.Sleep(run - time.Since(start))
	d.stop(t)

	// Healthy zones: each gap between two polls of a source is within 10% of the interval.
	var gaps, onTime, healthyPolls int
	for _, z := range zones[:2] {
		for _, hits := range z.hits {
			healthyPolls += len(hits)
			for i := 1; i < len(hits); i++ {
				gaps++
				if g := hits[i].Sub(hits[i-1]); g > interval*9/10 && g < interval*11/10 {
					onTime++
				}
			}
		}
	}
	if gaps == 0 || float64(onTime) < 0.95*float64(gaps) {
		t.Errorf("healthy sources: %d of %d polls within 10%% of their time, want ≥ 95%%", onTime, gaps)
	}
	for zi, z := range zones[:2] {
		for i := zi; i < sources; i += 3 {
			if n := len(z.hits[i]); n < 2 {
				t.Errorf("healthy source s%d was polled %d times in %s, want ≥ 2", i, n, run)
			}
		}
	}

	// Dead zone: after the k-th failure a source waits at least 0.8 × interval × 2^(k-1)
	// (docs/design.md §7), so the gap before its (k+1)-th request is at least that.
	var deadPolls, violations int
	var worst []string
	for id, hits := range zones[2].hits {
		deadPolls += len(hits)
		sort.Slice(hits, func(i, j int) bool { return hits[i].Before(hits[j]) })
		for k := 1; k < len(hits); k++ {
			min := time.Duration(float64(interval) * 0.8 * float64(int(1)<<(k-1)))
			if g := hits[k].Sub(hits[k-1]); g < min {
				violations++
				worst = append(worst, fmt.Sprintf("s%d: request %d came %s after the last, backoff allows ≥ %s", id, k+1, g.Round(time.Millisecond), min))
			}
		}
	}
	if violations > 0 {
		t.Errorf("dead zone: %d requests broke the backoff, e.g. %v", violations, worst[:min(3, len(worst))])
	}
	healthyRate := float64(healthyPolls) / 666
	deadRate := float64(deadPolls) / 334
	t.Logf("%d sources for %s: healthy %d polls (%.1f each), %d/%d gaps on time; dead zone %d requests (%.1f each)",
		sources, run, healthyPolls, healthyRate, onTime, gaps, deadPolls, deadRate)
	if deadRate >= healthyRate {
		t.Errorf("the dead zone got %.1f requests a source, the healthy ones %.1f: backoff is not holding it back", deadRate, healthyRate)
	}
}
