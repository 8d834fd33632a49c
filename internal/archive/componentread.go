package archive

// Reads of a source's component set: the set now or at a time, its versions, and the
// history of its components' statuses. Each is one short read transaction around
// internal/archive/internal/components, which finds the set in force at a time without
// decompressing a set.

import (
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/components"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// ComponentsLatest returns the latest version of a source's component set, each
// component with its Since; nil when none was archived.
func (s *Store) ComponentsLatest(source string) (*model.ComponentVersion, error) {
	return read(s, "components "+source, func(tx *bolt.Tx) (*model.ComponentVersion, error) {
		return components.Latest(tx, source)
	})
}

// ComponentsLatestVersion returns the number of the latest version of a source's
// component set, 0 when none was archived, from its meta alone: no set is decoded, so a
// caller that keeps what it made of a version (the daemon's gauges, after every poll
// that wrote) asks this first.
func (s *Store) ComponentsLatestVersion(source string) (int, error) {
	n, err := read(s, "components "+source, func(tx *bolt.Tx) (int, error) {
		m, err := components.Meta(tx, source)
		return int(m.Latest), err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ComponentSummary is what a dashboard shows of a source's component set
// (components.Summary).
type ComponentSummary = components.Summary

// ComponentSummaries returns the summary of every source with a component set, by
// name, from the component metas alone: a dashboard of a thousand sources decodes no
// set.
func (s *Store) ComponentSummaries() (map[string]ComponentSummary, error) {
	out, err := read(s, "component summaries", components.Summaries)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ComponentsAt returns the version of a source's component set in force at t: the
// latest observed at or before t; nil when none was archived by t.
func (s *Store) ComponentsAt(source string, t time.Time) (*model.ComponentVersion, error) {
	return read(s, "components "+source, func(tx *bolt.Tx) (*model.ComponentVersion, error) {
		return components.At(tx, source, t)
	})
}

// ComponentVersion returns version n of a source's component set, or ErrNotFound.
func (s *Store) ComponentVersion(source string, n int) (*model.ComponentVersion, error) {
	if n < 1 || n > 1<<32-1 {
		return nil, fmt.Errorf("archive: component version %s/%d: %w", source, n, ErrNotFound)
	}
	return read(s, "component version "+source, func(tx *bolt.Tx) (*model.ComponentVersion, error) {
		v, _, err := components.Load(components.Bucket(tx, source), uint32(n))
		return v, err
	})
}

// ComponentVersionInfo is a version of a component set as a list of versions shows
// it, read from its header alone (components.VersionInfo).
type ComponentVersionInfo = components.VersionInfo

// ComponentVersions returns every version of a source's component set, oldest first,
// without their sets; none when it has none.
func (s *Store) ComponentVersions(source string) ([]ComponentVersionInfo, error) {
	return read(s, "component versions "+source, func(tx *bolt.Tx) ([]ComponentVersionInfo, error) {
		return components.Versions(tx, source)
	})
}

// ComponentEvent is one entry of a component's history (components.Event).
type ComponentEvent = components.Event

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
	err = s.view(func(tx *bolt.Tx) (err error) {
		events, more, err = components.History(tx, source, from, to, limit)
		return err
	})
	if err != nil {
		return nil, false, wrapErr("component history "+source, err)
	}
	return events, more, nil
}
