package daemon

import (
	"context"
	"sync"

	"github.com/statuswatch/statuswatch/internal/config"
)

// SourceResult is the outcome of one source's poll in a round.
type SourceResult struct {
	Source string
	Outcome
	Err error
}

// Round polls every given source once, at most limit at a time, and returns the results
// in the order of sources. The HTTP client caps requests on its own; limit only bounds
// the goroutines.
func (p *Poller) Round(ctx context.Context, sources []*config.Source, limit int) []SourceResult {
	if limit < 1 {
		limit = 1
	}
	results := make([]SourceResult, len(sources))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, src := range sources {
		results[i].Source = src.Name
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			results[i].Err = ctx.Err()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i].Outcome, results[i].Err = p.Poll(ctx, src)
		}()
	}
	wg.Wait()
	return results
}
