package daemon

import (
	"sync"
	"unique"

	"github.com/statuswatch/statuswatch/internal/archive"
)

// stateCache holds the poll state of sources whose last poll wrote nothing (see
// Poller.states), each packed into one byte slice (archive.PackFetchState). A decoded
// model.FetchState is a map of a few endpoints, each with its validators and a hex body
// hash: about 1.5 KB a source once the map's slots and strings are counted, 15 MB of the
// daemon's live heap at 10,000 sources, every byte of it held between polls for
// nothing. Packed it is a few hundred bytes; a poll unpacks its source's state once,
// which costs about what the copy of it every poll makes anyway (fetch.NewPoll).
type stateCache struct {
	mu sync.Mutex
	m  map[string]packedState
}

// packedState is an archive.PollState without its failure counts, which are zero for
// every state kept (keep).
type packedState struct {
	fetch   []byte // archive.PackFetchState
	kind    unique.Handle[string]
	pending bool
}

// take takes a source's state out of the cache.
func (c *stateCache) take(source string) (archive.PollState, bool) {
	c.mu.Lock()
	p, ok := c.m[source]
	delete(c.m, source)
	c.mu.Unlock()
	if !ok {
		return archive.PollState{}, false
	}
	st, err := archive.UnpackFetchState(p.fetch)
	if err != nil {
		return archive.PollState{}, false // cannot happen; the archive has it anyway
	}
	return archive.PollState{Fetch: st, Kind: p.kind.Value(), PendingMisses: p.pending}, true
}

// keep remembers ps for source. A failing source's is not kept: its success is about
// to be written, and its counts are not packed.
func (c *stateCache) keep(source string, ps archive.PollState) {
	if ps.Failures > 0 || ps.Unreadable > 0 {
		return
	}
	p := packedState{fetch: archive.PackFetchState(ps.Fetch), kind: unique.Make(ps.Kind), pending: ps.PendingMisses}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]packedState{}
	}
	c.m[source] = p
}

// has reports whether source's state is cached.
func (c *stateCache) has(source string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[source]
	return ok
}
