package archive

// Reads of a source's component set: the set now or at a time, its versions, and the
// history of its components' statuses. Each is one short read transaction around
// internal/archive/internal/components, which finds the set in force at a time without
// decompressing a set.

import (
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/components"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// ComponentsLatest returns the latest version of a source's component set, each
// component with its Since; nil when none was archived.
func (s *Store) ComponentsLatest(source string) (*model.ComponentVersion, error) {
	var v *model.ComponentVersion
	err := s.view(func(tx *bolt.Tx) (err error) {
		v, err = components.Latest(tx, source)
		return err
	})
	if err != nil {
		return nil, wrapErr("components "+source, err)
	}
	return v, nil
}

// ComponentSummary is what a dashboard shows of a source's component set: its latest
// version, when that was observed, how many components it has and how many of them are
// not operational, the worst status among them (operational for none), and the page's
// status and description.
type ComponentSummary struct {
	Version         int
	ObservedAt      time.Time
	Components      int
	NotOperational  int
	Worst           model.ComponentStatus
	PageStatus      string
	PageDescription string
}

// ComponentSummaries returns the summary of every source with a component set, by
// name, from the component metas alone: a dashboard of a thousand sources decodes no
// set.
func (s *Store) ComponentSummaries() (map[string]ComponentSummary, error) {
	out := map[string]ComponentSummary{}
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(layout.BucketSources).ForEachBucket(func(name []byte) error {
			m, err := components.Meta(tx, string(name))
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if m.Latest > 0 {
				out[string(name)] = ComponentSummary{Version: int(m.Latest), ObservedAt: m.ObservedAt,
					Components: int(m.Count), NotOperational: int(m.NotOperational), Worst: m.Worst,
					PageStatus: m.PageStatus, PageDescription: m.PageDescription}
			}
			return nil
		})
	})
	if err != nil {
		return nil, wrapErr("component summaries", err)
	}
	return out, nil
}

// ComponentsAt returns the version of a source's component set in force at t: the
// latest observed at or before t; nil when none was archived by t.
func (s *Store) ComponentsAt(source string, t time.Time) (*model.ComponentVersion, error) {
	var v *model.ComponentVersion
	err := s.view(func(tx *bolt.Tx) (err error) {
		v, err = components.At(tx, source, t)
		return err
	})
	if err != nil {
		return nil, wrapErr("components "+source, err)
	}
	return v, nil
}

// ComponentVersion returns version n of a source's component set, or ErrNotFound.
func (s *Store) ComponentVersion(source string, n int) (*model.ComponentVersion, error) {
	if n < 1 || n > 1<<32-1 {
		return nil, fmt.Errorf("archive: component version %s/%d: %w", source, n, ErrNotFound)
	}
	var v *model.ComponentVersion
	err := s.view(func(tx *bolt.Tx) (err error) {
		v, _, err = components.Load(components.Bucket(tx, source), uint32(n))
		return err
	})
	if err != nil {
		return nil, wrapErr("component version "+source, err)
	}
	return v, nil
}

// ComponentVersionInfo is a version of a component set as a list of versions shows
// it, read from its header alone.
type ComponentVersionInfo struct {
	N          int
	ObservedAt time.Time
	Changes    []model.ComponentChange
}

// ComponentVersions returns every version of a source's component set, oldest first,
// without their sets; none when it has none.
func (s *Store) ComponentVersions(source string) ([]ComponentVersionInfo, error) {
	var out []ComponentVersionInfo
	err := s.view(func(tx *bolt.Tx) error {
		return components.Headers(tx, source, func(h codec.ComponentHeader) {
			out = append(out, ComponentVersionInfo{N: h.N, ObservedAt: h.ObservedAt, Changes: h.Changes})
		})
	})
	return out, wrapErr("component versions "+source, err)
}

// ComponentEvent is one entry of a component's history: its status went From → To at
// At, in component version Version. From is "" for a component new to the page, To ""
// for one that left it.
type ComponentEvent struct {
	Key       string
	Component string // its name then
	Group     string
	From, To  model.ComponentStatus
	At        time.Time
	Version   int
}

// The bounds of ComponentHistory's limit.
const (
	DefaultHistoryLimit = 1000
	MaxHistoryLimit     = 10000
)

// ComponentHistory returns the status changes of a source's components observed in
// [from, to), oldest first: a zero from or to leaves that side open. A rename or a
// group change alone is no entry (the versions have them). At most limit entries are
// returned (DefaultHistoryLimit when limit <= 0, never more than MaxHistoryLimit); more
// reports that the range held more, so a caller pages on from the last entry's time.
// It reads version headers only, starting at from by a binary search.
func (s *Store) ComponentHistory(source string, from, to time.Time, limit int) (events []ComponentEvent, more bool, err error) {
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	limit = min(limit, MaxHistoryLimit)
	err = s.view(func(tx *bolt.Tx) error {
		return components.HeadersFrom(tx, source, from, func(h codec.ComponentHeader) bool {
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
				events = append(events, ComponentEvent{Key: ch.Key, Component: ch.Component, Group: ch.Group,
					From: ch.From, To: ch.To, At: h.ObservedAt, Version: h.N})
			}
			return true
		})
	})
	if err != nil {
		return nil, false, wrapErr("component history "+source, err)
	}
	return events, more, nil
}
