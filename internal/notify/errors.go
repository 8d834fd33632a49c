package notify

import (
	"errors"
	"fmt"
	"time"
)

// Class says what a failed send calls for. It is Alertmanager's "retryable" answer
// widened: Slack needs five different reactions, not two, and the delivery loop owns all
// of them (docs/design.md §7 Delivery), so a sink only names the class and never waits or retries
// itself.
type Class int

// The classes of a failed send, from the least to the most drastic.
const (
	// Transient: a 5xx, a network error, a timeout. The destination backs off with jitter
	// and the message is tried again. Every error a sink does not classify is transient,
	// so an unknown failure delays a message but never loses it.
	Transient Class = iota
	// RateLimited: Slack answered 429. The destination waits Error.RetryAfter.
	RateLimited
	// Rejected: the message itself was refused (invalid_blocks, msg_too_long, a webhook's
	// 400). It is tried once more as plain text, then parked.
	Rejected
	// ChannelGone: the destination cannot take messages (channel_not_found,
	// not_in_channel, is_archived, a webhook's 404 or 410). Its messages are parked; the
	// others go on.
	ChannelGone
	// Auth: the credential was refused (invalid_auth, token_revoked, a webhook's 403).
	// Everything sent with it is paused, nothing is dropped, until Resume (config reload)
	// or a restart.
	Auth
)

// String names the class for logs, errors and the UI.
func (c Class) String() string {
	switch c {
	case Transient:
		return "transient"
	case RateLimited:
		return "rate_limited"
	case Rejected:
		return "rejected"
	case ChannelGone:
		return "channel"
	case Auth:
		return "auth"
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Error is a classified send failure. Sinks return it (wrapped or not); the delivery loop
// reads it with ClassOf.
type Error struct {
	Class Class
	// RetryAfter is how long Slack asked us to wait (RateLimited only).
	RetryAfter time.Duration
	// Final marks a Rejected message that has no other form to try (a receiver whose
	// payload has no plain-text variant): it is parked at once, not retried as plain
	// text.
	Final bool
	Err   error
}

// Error returns the underlying error's text. Sinks build it free of secrets: it is
// logged, stored with the message and shown in the UI.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Class.String()
	}
	return e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Classify wraps err with class c; nil stays nil.
func Classify(c Class, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Class: c, Err: err}
}

// Park wraps err as a Rejected error with no plain-text retry: the message is parked at
// once. nil stays nil.
func Park(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Class: Rejected, Final: true, Err: err}
}

// final reports whether err is a Rejected error with nothing else to try (Park).
func final(err error) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && e.Final
}

// ClassOf returns the class of a send error and, for RateLimited, how long to wait.
// An error without an *Error in its chain is Transient.
func ClassOf(err error) (Class, time.Duration) {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Class, e.RetryAfter
	}
	return Transient, 0
}
