package archive

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/archive/internal/remind"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Remind writes the maintenance_soon message (docs/design.md §10) of each of the source's
// announced maintenances still scheduled (not called off) whose window starts within lead of now and has
// not started yet, once per start time: the start it was reminded for is recorded with
// the message, in the same transaction, so a restart or a crash never sends it twice,
// and a window moved to another start is reminded again. pass is the source's
// notification gate (nil passes everything). It returns the outbox rows written, and
// when the next reminder of what the archive holds now comes due (zero: none), which
// stays true until the source's next Record; a source with nothing due writes nothing.
func (s *Store) Remind(source string, lead time.Duration, now time.Time, pass func(*model.Incident) bool) (written int, next time.Time, err error) {
	if lead <= 0 {
		return 0, time.Time{}, nil
	}
	var due []remind.Due
	err = s.view(func(tx *bolt.Tx) (err error) {
		due, next, err = remind.List(tx, source, lead, now, pass)
		return err
	})
	if err != nil || len(due) == 0 {
		return 0, next, wrapErr("remind "+source, err)
	}
	route := s.router()
	err = s.update(func(tx *bolt.Tx) error {
		written = 0
		// Checked again in the write: a Record may have come in between.
		due, next, err = remind.List(tx, source, lead, now, pass)
		if err != nil || len(due) == 0 {
			return err
		}
		for _, r := range due {
			c, err := outbox.PutRouted(tx, route, model.Message{Source: source, IncidentID: r.ID, Version: int(r.N),
				Event: model.EventMaintenanceSoon, CreatedAt: now},
				&model.Notice{Source: source, Event: model.EventMaintenanceSoon, Incident: r.Incident})
			written += c
			if err != nil {
				return err
			}
			if err := remind.Sent(tx, source, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, time.Time{}, wrapErr("remind "+source, err)
	}
	if len(due) == remind.MaxPerCall {
		next = now // more may be due: come back at once
	}
	return written, next, nil
}
