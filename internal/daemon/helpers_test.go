package daemon

import (
	"net/http"
	"sync/atomic"
)

// http429 answers every request 429 with the given Retry-After, counting them.
func http429(calls *atomic.Int32, retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", retryAfter)
		http.Error(w, "slow down", http.StatusTooManyRequests)
	}
}
