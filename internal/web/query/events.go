package query

import (
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/correlate"
)

// EventKey is an event's place in the list of events, newest first: its start, then its
// id, both descending.
type EventKey struct {
	Start time.Time
	ID    string
}

// Events returns at most limit events of res under way at some time between from and to
// (a zero bound is no bound; an open event is under way until now), newest first, after
// the key after when it is set.
func Events(res *correlate.Result, from, to time.Time, after *EventKey, limit int) []*correlate.Event {
	var out []*correlate.Event
	for _, ev := range res.Events() {
		if len(out) == limit {
			break
		}
		if after != nil && (ev.Start.After(after.Start) || ev.Start.Equal(after.Start) && strings.Compare(ev.ID, after.ID) >= 0) {
			continue
		}
		if !to.IsZero() && ev.Start.After(to) || !from.IsZero() && !ev.End.IsZero() && ev.End.Before(from) {
			continue
		}
		out = append(out, ev)
	}
	return out
}
