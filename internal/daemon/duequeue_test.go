package daemon

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// blockingPage is a test platform whose polls wait until released, counting them by source.
type blockingPage struct {
	mu      sync.Mutex
	release chan struct{}
	polls   map[string]int
}

var testBlocking = &blockingPage{release: make(chan struct{}), polls: map[string]int{}}

func init() {
	fetch.Register(fetch.Platform{Kind: "blockingtest", Poll: testBlocking.poll})
}

func (p *blockingPage) poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	select {
	case <-p.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	p.polls[pl.Req.Source.Name]++
	p.mu.Unlock()
	return &model.Snapshot{Source: pl.Req.Source.Name, FetchedAt: pl.Req.Now}, nil
}

// Ticks that come while every poll slot is taken do not each keep a goroutine waiting:
// the sources wait in a queue that a few runners (twice the slots) poll in order, and
// every one of them is polled once.
func TestDueSourcesWaitInAQueue(t *testing.T) {
	const n = 40
	clk := &clock{t: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)}
	d, _ := newDaemonWith(t, manySources("listen: \"\"\nhttp:\n  concurrency: 1\n", n, "blockingtest", "@every 1h"), clk)
	before := runtime.NumGoroutine()
	var jobs sync.WaitGroup
	for i := range n {
		jobs.Go(d.job(fmt.Sprintf("s%d", i))) // as cron would: each tick its own goroutine
	}
	// Two runners admitted (each waiting in its poll); the other 38 ticks return at once.
	deadline := time.Now().Add(5 * time.Second)
	for {
		d.due.mu.Lock()
		waiting, running := len(d.due.waiting), d.due.running
		d.due.mu.Unlock()
		if waiting == n-2 || time.Now().After(deadline) {
			if waiting != n-2 || running != 2 {
				t.Fatalf("%d sources waiting, %d runners; want %d and 2", waiting, running, n-2)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if g := runtime.NumGoroutine() - before; g > 10 {
		t.Errorf("%d goroutines more than before the ticks, want a few (two runners)", g)
	}
	d.job("s39")() // a source already waiting is not queued twice
	d.due.mu.Lock()
	if len(d.due.waiting) != n-2 {
		t.Errorf("%d waiting after a second tick of a waiting source, want %d", len(d.due.waiting), n-2)
	}
	d.due.mu.Unlock()
	close(testBlocking.release)
	jobs.Wait()
	d.due.runners.Wait()
	testBlocking.mu.Lock()
	defer testBlocking.mu.Unlock()
	for i := range n {
		if got := testBlocking.polls[fmt.Sprintf("s%d", i)]; got != 1 {
			t.Errorf("s%d polled %d times, want 1", i, got)
		}
	}
	if d.due.running != 0 || len(d.due.queued) != 0 {
		t.Errorf("after the queue: %d runners, %d queued; want none", d.due.running, len(d.due.queued))
	}
}
