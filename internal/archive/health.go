package archive

import (
	"errors"
	"fmt"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/archive/internal/sourcehealth"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// RecordFailure counts a failed poll of source (errors, timeouts, malformed or empty
// bodies, ErrVanished) and returns the consecutive failures so far. The poll that reaches
// threshold exactly writes one EventSourceDown message with errText, in the same
// transaction; a threshold below 1 counts as 1, so a source can never fail unreported.
func (s *Store) RecordFailure(source, errText string, threshold int) (failures int, err error) {
	return s.RecordFailureOf(source, errText, threshold, false)
}

// RecordFailureOf is RecordFailure that also says whether the answer was unreadable
// (malformed, or its endpoint gone), counting those in a row for re-detection.
func (s *Store) RecordFailureOf(source, errText string, threshold int, unreadable bool) (failures int, err error) {
	if source == "" {
		return 0, errors.New("archive: record failure: empty source name")
	}
	err = s.update(func(tx *bolt.Tx) error {
		src, err := layout.CreateSource(tx, source)
		if err != nil {
			return err
		}
		h, err := sourcehealth.Load(src)
		if err != nil {
			return err
		}
		now := s.clock()
		if h.Failed(errText, unreadable, now, threshold) {
			if _, err := outbox.PutRouted(tx, s.router(), model.Message{
				Source: source, Event: model.EventSourceDown, Text: errText, CreatedAt: now,
			}, &model.Notice{Source: source, Event: model.EventSourceDown}); err != nil {
				return err
			}
		}
		failures = h.Failures
		return sourcehealth.Save(src, &h)
	})
	if err != nil {
		return 0, fmt.Errorf("archive: record failure %s: %w", source, err)
	}
	return failures, nil
}

// RecordSuccess ends a run of failures of source: it writes only when there was one, and
// writes an EventSourceUp message when the run had been announced down. A healthy
// source's successful polls therefore write nothing.
func (s *Store) RecordSuccess(source string) error {
	var failures int
	err := s.view(func(tx *bolt.Tx) error {
		h, err := sourcehealth.Load(layout.Source(tx, source))
		failures = h.Failures
		return err
	})
	if err != nil || failures == 0 {
		return wrapErr("record success "+source, err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		src, err := layout.CreateSource(tx, source)
		if err != nil {
			return err
		}
		h, err := sourcehealth.Load(src)
		if err != nil || h.Failures == 0 {
			return err
		}
		if h.Down {
			if _, err := outbox.PutRouted(tx, s.router(), model.Message{
				Source: source, Event: model.EventSourceUp, CreatedAt: s.clock(),
			}, &model.Notice{Source: source, Event: model.EventSourceUp}); err != nil {
				return err
			}
		}
		return sourcehealth.Save(src, &sourcehealth.State{})
	})
	return wrapErr("record success "+source, err)
}
