package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// health is a source's failure state. It is kept in the archive, not in memory, so a
// restart neither re-announces a source that is down nor forgets to announce its
// recovery.
type health struct {
	Failures  int       `json:"failures"`             // consecutive failed polls
	LastError string    `json:"last_error,omitempty"` // of the latest failure
	Since     time.Time `json:"since,omitzero"`       // first failure of the run
	Down      bool      `json:"down,omitempty"`       // the EventSourceDown message was written
	// Unreadable counts the failures in a row whose answer could not be read at all
	// (malformed, or the endpoint gone): a kind: auto source is detected again after a few.
	Unreadable int `json:"unreadable,omitempty"`
}

func loadHealth(src *bolt.Bucket) (health, error) {
	var h health
	data := layout.Get(layout.Sub(src, layout.BucketState), layout.KeyHealth)
	if data == nil {
		return h, nil
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("health: %w", err)
	}
	return h, nil
}

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
	threshold = max(threshold, 1)
	err = s.update(func(tx *bolt.Tx) error {
		src, err := layout.CreateSource(tx, source)
		if err != nil {
			return err
		}
		h, err := loadHealth(src)
		if err != nil {
			return err
		}
		now := s.clock()
		if h.Failures == 0 {
			h.Since = now
		}
		h.Failures++
		h.LastError = errText
		if unreadable {
			h.Unreadable++
		} else {
			h.Unreadable = 0
		}
		if h.Failures == threshold && !h.Down {
			if _, err := outbox.PutRouted(tx, s.router(), model.Message{
				Source: source, Event: model.EventSourceDown, Text: errText, CreatedAt: now,
			}, &model.Notice{Source: source, Event: model.EventSourceDown}); err != nil {
				return err
			}
			h.Down = true
		}
		failures = h.Failures
		return layout.PutJSON(src.Bucket(layout.BucketState), layout.KeyHealth, &h)
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
		h, err := loadHealth(layout.Source(tx, source))
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
		h, err := loadHealth(src)
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
		return layout.PutJSON(src.Bucket(layout.BucketState), layout.KeyHealth, &health{})
	})
	return wrapErr("record success "+source, err)
}

// wrapErr prefixes err with the operation, and keeps nil nil.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("archive: %s: %w", op, err)
}
