// Package retryafter reads an HTTP Retry-After header, for the fetcher (a vendor's page
// asking us to wait) and every receiver (Slack, webhooks, PagerDuty, Teams) alike, so that
// both obey one reading and one cap.
package retryafter

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Max caps a server's Retry-After: a mistaken or hostile "wait a year" must not silence
// a source or a receiver for longer than this.
const Max = 6 * time.Hour

// Parse reads v as delay-seconds or an HTTP date (RFC 9110 §10.2.3) relative to now,
// capped at Max; 0 when absent, unreadable, negative or in the past (the caller then
// waits its own default).
func Parse(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n > int64(Max/time.Second) {
			return Max
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), Max)
}
