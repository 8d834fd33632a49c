package query

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
)

// Position is where a read of a component history stopped: the time and version of
// the last entry read, and how many entries of that version were read. A version may
// hold many entries (a poll that changed 300 components), so a page may end inside one.
type Position struct {
	At      time.Time
	Version int
	Given   int
}

// ComponentHistory reads up to limit status changes of source's components observed in
// [from, to) (a zero to leaves it open), oldest first, after the position after (nil:
// from the start), in reads of the archive's largest size. next is where to go on from
// when the range holds more, nil when it does not.
func ComponentHistory(st *archive.Store, source string, from, to time.Time, after *Position, limit int) (events []archive.ComponentEvent, next *Position, err error) {
	pos := Position{At: from}
	if after != nil {
		pos = *after
		if pos.At.Before(from) {
			pos.At = from
		}
	}
	for {
		read, more, err := st.ComponentHistory(source, pos.At, to, archive.MaxHistoryLimit)
		if err != nil {
			return nil, nil, err
		}
		start, seen, added := pos, 0, 0
		for _, e := range read {
			if e.Version < start.Version {
				continue // read before
			}
			if e.Version == start.Version {
				if seen++; seen <= start.Given {
					continue
				}
			}
			if len(events) == limit {
				return events, &pos, nil
			}
			events = append(events, e)
			added++
			if e.Version != pos.Version {
				pos.Version, pos.Given = e.Version, 0
			}
			pos.At = e.At
			pos.Given++
		}
		if !more {
			return events, nil, nil
		}
		if added == 0 {
			// One version holds more changes than a read returns: what is left of it
			// cannot be reached from its time. Say there is more, and stop.
			return events, &pos, nil
		}
	}
}
