package components

// The reads of component sets that list them: the summaries of every source's set from
// the metas alone, a set's versions from their headers, and its components' history.

import (
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Summary is what a dashboard shows of a source's component set: its latest version,
// when that was observed, how many components it has and how many of them are not
// operational, the worst status among them (operational for none), and the page's
// status and description.
type Summary struct {
	Version         int
	ObservedAt      time.Time
	Components      int
	NotOperational  int
	Worst           model.ComponentStatus
	PageStatus      string
	PageDescription string
}

// Summaries returns the summary of every source with a component set, by name, from
// the component metas alone.
func Summaries(tx *bolt.Tx) (map[string]Summary, error) {
	out := map[string]Summary{}
	err := tx.Bucket(layout.BucketSources).ForEachBucket(func(name []byte) error {
		m, err := Meta(tx, string(name))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if m.Latest > 0 {
			out[string(name)] = Summary{Version: int(m.Latest), ObservedAt: m.ObservedAt,
				Components: int(m.Count), NotOperational: int(m.NotOperational), Worst: m.Worst,
				PageStatus: m.PageStatus, PageDescription: m.PageDescription}
		}
		return nil
	})
	return out, err
}

// VersionInfo is a version of a component set as a list of versions shows it, read
// from its header alone.
type VersionInfo struct {
	N          int
	ObservedAt time.Time
	Changes    []model.ComponentChange
}

// Versions returns every version of a source's component set, oldest first, from their
// headers; none when it has none.
func Versions(tx *bolt.Tx, source string) ([]VersionInfo, error) {
	var out []VersionInfo
	err := Headers(tx, source, func(h codec.ComponentHeader) {
		out = append(out, VersionInfo{N: h.N, ObservedAt: h.ObservedAt, Changes: h.Changes})
	})
	return out, err
}

// Event is one entry of a component's history: its status went From → To at At, in
// component version Version. From is "" for a component new to the page, To "" for one
// that left it.
type Event struct {
	Key       string
	Component string // its name then
	Group     string
	From, To  model.ComponentStatus
	At        time.Time
	Version   int
}

// History returns the status changes of a source's components observed in [from, to),
// oldest first, at most limit of them: a zero from or to leaves that side open, and a
// rename or a group change alone is no entry. more reports that the range held more.
// It reads version headers only, starting at from by a binary search.
func History(tx *bolt.Tx, source string, from, to time.Time, limit int) (events []Event, more bool, err error) {
	err = HeadersFrom(tx, source, from, func(h codec.ComponentHeader) bool {
		if !to.IsZero() && !h.ObservedAt.Before(to) {
			return false
		}
		for _, ch := range h.Changes {
			if ch.From == ch.To {
				continue
			}
			if len(events) == limit {
				more = true
				return false
			}
			events = append(events, Event{Key: ch.Key, Component: ch.Component, Group: ch.Group,
				From: ch.From, To: ch.To, At: h.ObservedAt, Version: h.N})
		}
		return true
	})
	if err != nil {
		return nil, false, err
	}
	return events, more, nil
}
