// Package writehealth keeps what a Store's Health reports of its writes: those in
// flight, since when, and the last storage failure, until a write commits again. It
// only counts: the Store decides what is a storage failure.
package writehealth

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Tracker is what a Store's Health reports: the writes in flight and the last storage
// failure, cleared by the next write that commits. The zero Tracker is ready to use.
type Tracker struct {
	mu       sync.Mutex
	next     uint64
	inflight map[uint64]time.Time // monotonic start of each write in flight
	failed   error
	failedAt time.Time
}

// Begin notes a write starting and returns its id for End.
func (h *Tracker) Begin() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inflight == nil {
		h.inflight = map[uint64]time.Time{}
	}
	h.next++
	h.inflight[h.next] = time.Now()
	return h.next
}

// Refused ends a write that its own function refused, which says nothing of the
// storage.
var Refused = errors.New("refused")

// End closes write id: failed is its storage failure (at at), nil for a write that
// committed, Refused for one its function refused.
func (h *Tracker) End(id uint64, failed error, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.inflight, id)
	switch failed {
	case Refused:
	case nil:
		h.failed = nil
	default:
		h.failed, h.failedAt = failed, at
	}
}

// Fail records a storage failure outside a write (a read that could not start, or met
// a damaged page): like a write's, it lasts until a write commits.
func (h *Tracker) Fail(err error, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed, h.failedAt = err, at
}

// Check is the Store's Health of the archive at path: an error when the last failure
// (End, Fail) is not followed by a committed write, or when a write has been in flight
// for longer than stall; nil otherwise.
func (h *Tracker) Check(path string, stall time.Duration) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var oldest time.Time
	for _, t := range h.inflight {
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	if !oldest.IsZero() {
		if age := time.Since(oldest); age > stall {
			return fmt.Errorf("archive %s: a write has not finished in %s", path, age.Round(time.Second))
		}
	}
	if h.failed != nil {
		return fmt.Errorf("last archive access failed at %s: %w", h.failedAt.Format(time.RFC3339), h.failed)
	}
	return nil
}
