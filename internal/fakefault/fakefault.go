// Package fakefault is the queue of injected faults the fake receivers share
// (internal/fakepagerduty, internal/faketeams, internal/fakesmtp): each fault answers a
// number of calls, in the order the faults were added.
package fakefault

import "sync"

// Queue holds faults of type F. The zero Queue is empty and ready; it is safe for
// concurrent use.
type Queue[F any] struct {
	mu    sync.Mutex
	items []item[F]
}

type item[F any] struct {
	f    F
	left int
}

// Add makes f answer the next n calls it matches; n <= 0 adds nothing.
func (q *Queue[F]) Add(n int, f F) {
	if n <= 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, item[F]{f, n})
}

// Take returns the first fault that match accepts (nil accepts any) and counts one
// call against it.
func (q *Queue[F]) Take(match func(F) bool) (F, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.items {
		it := &q.items[i]
		if match != nil && !match(it.f) {
			continue
		}
		f := it.f
		if it.left--; it.left <= 0 {
			q.items = append(q.items[:i], q.items[i+1:]...)
		}
		return f, true
	}
	var zero F
	return zero, false
}

// Reset drops every pending fault.
func (q *Queue[F]) Reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = nil
}
