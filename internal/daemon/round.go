package daemon

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
)

// SourceResult is the outcome of one source's poll in a round.
type SourceResult struct {
	Source string
	Outcome
	Err error

	at time.Time // when the poll ended; zero when the source was not polled
}

// Round polls every given source once, at most limit at a time, and returns the results
// in the order of sources. The HTTP client caps requests on its own; limit only bounds
// the goroutines.
//
// The poll states of all sources are read first, in one read transaction; should that
// fail, each poll reads its own and reports the error. limit workers take the sources in
// turn, rather than a goroutine per source: each worker's stack grows once to what a poll
// needs, not once per source.
func (p *Poller) Round(ctx context.Context, sources []*config.Source, limit int) []SourceResult {
	limit = max(1, min(limit, len(sources)))
	names := make([]string, len(sources))
	for i, src := range sources {
		names[i] = src.Name
	}
	if states, err := p.Store.PollStates(names); err == nil {
		for name, ps := range states {
			p.states.keep(name, ps)
		}
	}

	results := make([]SourceResult, len(sources))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(sources) {
					return
				}
				results[i].Source = sources[i].Name
				if err := ctx.Err(); err != nil {
					results[i].Err = err
					continue
				}
				results[i].Outcome, results[i].Err = p.Poll(ctx, sources[i])
				results[i].at = p.now()
			}
		})
	}
	wg.Wait()
	p.savePollTimes(results)
	return results
}

// savePollTimes saves the round's poll times when the round wrote to the archive
// anyway: a round that changed nothing still writes nothing, and the daemon shows the
// times saved (archive.PollTimes) until its own first poll.
func (p *Poller) savePollTimes(results []SourceResult) {
	wrote := false
	times := make(map[string]archive.PollTimes, len(results))
	for _, r := range results {
		wrote = wrote || r.Wrote
		if r.at.IsZero() || errors.Is(r.Err, context.Canceled) {
			continue // not polled
		}
		t := archive.PollTimes{Polled: r.at}
		if r.Err == nil {
			t.Succeeded = r.at
		}
		times[r.Source] = t
	}
	if !wrote || len(times) == 0 {
		return
	}
	if err := p.Store.SavePollTimes(times); err != nil {
		p.logger().Warn("save poll times", "err", err)
	}
}
