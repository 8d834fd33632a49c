package ui

import (
	"errors"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// maxStripEvents bounds the status changes a source page reads for its strips: 300
// components flapping daily for 90 days are 27,000; past this many, no strip is drawn.
const maxStripEvents = 100_000

// components builds a source page's components section: nil for a source with no
// component set. It reads the latest set (the set in force at at, when at is not zero),
// the set in force when the strips' window opens, and the status changes since (version
// headers only), up to at.
func (s *Site) components(source string, at time.Time) (*view.Components, error) {
	var latest *model.ComponentVersion
	var err error
	now, to := s.now().UTC(), time.Time{}
	if at.IsZero() {
		latest, err = s.store.ComponentsLatest(source)
	} else {
		latest, err = s.store.ComponentsAt(source, at)
		now, to = at.UTC(), at.Add(time.Nanosecond) // the history's to is exclusive
	}
	if err != nil || latest == nil {
		return nil, err
	}
	first := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(view.TimelineDays - 1))
	start, err := s.store.ComponentsAt(source, first)
	if err != nil {
		return nil, err
	}
	observedFrom := first
	if start == nil {
		// The first set was read inside the window: the days before it were not observed.
		v1, err := s.store.ComponentVersion(source, 1)
		switch {
		case err == nil:
			observedFrom = v1.ObservedAt
		case !errors.Is(err, archive.ErrNotFound):
			return nil, err
		}
	}
	events, more, err := query.ComponentHistory(s.store, source, first, to, nil, maxStripEvents)
	if err != nil {
		return nil, err
	}
	c := view.NewComponents(latest, start, observedFrom, events, more != nil, now, s.stamp)
	return &c, nil
}
