// Package sourcehealth is the archive's record of each source's failures, inside a bbolt
// transaction the caller holds: the failed polls in a row, the last error, since when,
// and whether the source was announced down, in the source's state bucket. It is kept
// in the archive, not in memory, so a restart neither re-announces a source that is
// down nor forgets to announce its recovery. internal/archive writes the messages.
package sourcehealth

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	bolt "go.etcd.io/bbolt"
)

// State is a source's failure state.
type State struct {
	Failures  int       `json:"failures"`             // consecutive failed polls
	LastError string    `json:"last_error,omitempty"` // of the latest failure
	Since     time.Time `json:"since,omitzero"`       // first failure of the run
	Down      bool      `json:"down,omitempty"`       // the EventSourceDown message was written
	// Unreadable counts the failures in a row whose answer could not be read at all
	// (malformed, or the endpoint gone): a kind: auto source is detected again after a few.
	Unreadable int `json:"unreadable,omitempty"`
}

// Load reads the failure state of source bucket src; the zero State when it has none.
func Load(src *bolt.Bucket) (State, error) {
	var h State
	data := layout.Get(layout.Sub(src, layout.BucketState), layout.KeyHealth)
	if data == nil {
		return h, nil
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("health: %w", err)
	}
	return h, nil
}

// Save writes h as the failure state of source bucket src.
func Save(src *bolt.Bucket, h *State) error {
	return layout.PutJSON(src.Bucket(layout.BucketState), layout.KeyHealth, h)
}

// Failed counts one more failed poll at now, with its error and whether its answer was
// unreadable, and reports whether it is the one that announces the source down: the
// one that reaches threshold (at least 1) while the run is not announced yet, which
// it then is.
func (h *State) Failed(errText string, unreadable bool, now time.Time, threshold int) (down bool) {
	if h.Failures == 0 {
		h.Since = now
	}
	h.Failures++
	h.LastError = errText
	if unreadable {
		h.Unreadable++
	} else {
		h.Unreadable = 0
	}
	if h.Failures == max(threshold, 1) && !h.Down {
		h.Down = true
		return true
	}
	return false
}
