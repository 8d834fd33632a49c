package fetch

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// AbsentRetry is how long an optional endpoint that answered 404 or 410 is left alone
// before it is asked again: a page that starts publishing maintenance is noticed within
// hours, and a page that never will costs four requests a day instead of one a poll.
const AbsentRetry = 6 * time.Hour

// Gone reports whether err is a 404 or 410: for an endpoint that is optional for a page
// (scheduled maintenances, the summary, a per-incident page), "this page has none".
func Gone(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusGone)
}

// SkipAbsent reports whether an optional endpoint remembered as absent is to be left
// alone this poll.
func SkipAbsent(st model.EndpointState, now time.Time) bool {
	return !st.Absent.IsZero() && now.Sub(st.Absent) < AbsentRetry
}

// AbsentState is what is remembered of an optional endpoint that answered 404 or 410.
func AbsentState(now time.Time) model.EndpointState {
	return model.EndpointState{Absent: now.UTC().Truncate(time.Second)}
}

// Absent remembers that the optional endpoint name, the page's what, answered 404 or 410
// (AbsentState), so it is asked again only after AbsentRetry, and logs it.
func (pl *Poll) Absent(name, what string, err error) {
	pl.Res.State[name] = AbsentState(pl.Req.Now)
	pl.Req.Logger().Info("page has no "+what+"; asking again later", "endpoint", name, "err", err)
}

// GoesOnWithout logs that the optional endpoint name, the page's what, could not be read
// or decoded and that the poll goes on without it.
func (pl *Poll) GoesOnWithout(name, what string, err error) {
	pl.Req.Logger().Warn(what+" unreadable; the poll goes on without it", "endpoint", name, "err", err)
}

// logger is the poll's logger, narrowed to its source; it discards when none was given.
func (r Request) Logger() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}
