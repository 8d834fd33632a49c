package daemon

import (
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The cache gives back what it was given, once; it keeps no failing source's state.
func TestStateCacheTakesOnce(t *testing.T) {
	var c stateCache
	st := model.FetchState{"summary": {ETag: `"1"`, Hash: strings.Repeat("ab", 32)}}
	c.keep("a", archive.PollState{Fetch: st, Kind: "statuspage", PendingMisses: true})
	c.keep("b", archive.PollState{Fetch: st, Failures: 1})
	c.keep("c", archive.PollState{Fetch: st, Unreadable: 1})
	ps, ok := c.take("a")
	if !ok || !ps.Fetch.Equal(st) || ps.Kind != "statuspage" || !ps.PendingMisses {
		t.Fatalf("take a: %+v, %v", ps, ok)
	}
	for _, name := range []string{"a", "b", "c"} {
		if c.has(name) {
			t.Errorf("%s still cached", name)
		}
	}
}
