package notify

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter bounds the wait a receiver's Retry-After can ask for: past it, the
// message is tried again anyway (and answered again).
const maxRetryAfter = time.Hour

// ParseRetryAfter reads an HTTP Retry-After value, delay-seconds or an HTTP date, for a
// receiver's RateLimited error: capped at an hour, and zero (no usable hint: the
// Deliverer's DefaultRateLimitWait) for anything unreadable or past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return min(time.Duration(min(n, int64(maxRetryAfter/time.Second)))*time.Second, maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return 0
}

// NewHTTPClient returns the client a receiver sends with by default: bounded at every
// stage (dial, TLS, headers, the whole exchange), so a receiver that stops answering
// delays its own queue instead of hanging it.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = 20 * time.Second
	t.IdleConnTimeout = 90 * time.Second
	t.MaxConnsPerHost = 4
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}
