package archive

import (
	"fmt"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// maxRemindersPerCall bounds the reminders one call writes: a vendor that schedules
// thousands of windows for the same minute gets the rest on the next call.
const maxRemindersPerCall = 100

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
	var due []reminder
	err = s.view(func(tx *bolt.Tx) (err error) {
		due, next, err = dueReminders(tx, source, lead, now, pass)
		return err
	})
	if err != nil || len(due) == 0 {
		return 0, next, wrapErr("remind "+source, err)
	}
	route := s.router()
	err = s.update(func(tx *bolt.Tx) error {
		written = 0
		// Checked again in the write: a Record may have come in between.
		due, next, err = dueReminders(tx, source, lead, now, pass)
		if err != nil || len(due) == 0 {
			return err
		}
		src := layout.Source(tx, source)
		b, err := src.CreateBucketIfNotExists(layout.BucketReminders)
		if err != nil {
			return err
		}
		for _, r := range due {
			c, err := outbox.PutRouted(tx, route, model.Message{Source: source, IncidentID: r.id, Version: int(r.n),
				Event: model.EventMaintenanceSoon, CreatedAt: now},
				&model.Notice{Source: source, Event: model.EventMaintenanceSoon, Incident: r.inc})
			written += c
			if err != nil {
				return err
			}
			if err := b.Put([]byte(r.id), []byte(r.inc.ScheduledFor.UTC().Format(time.RFC3339Nano))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, time.Time{}, wrapErr("remind "+source, err)
	}
	if len(due) == maxRemindersPerCall {
		next = now // more may be due: come back at once
	}
	return written, next, nil
}

// reminder is one maintenance whose reminder is due.
type reminder struct {
	id  string
	n   uint32
	inc *model.Incident
}

// dueReminders lists the source's maintenances whose reminder is due at now, and when
// the earliest of the others comes due (see Remind).
func dueReminders(tx *bolt.Tx, source string, lead time.Duration, now time.Time, pass func(*model.Incident) bool) (out []reminder, next time.Time, err error) {
	src := layout.Source(tx, source)
	incidents, versions := layout.Sub(src, layout.BucketIncidents), layout.Sub(src, layout.BucketVersions)
	if incidents == nil || versions == nil {
		return nil, next, nil
	}
	sent := layout.Sub(src, layout.BucketReminders)
	err = incident.EachMeta(incidents, func(k []byte, m codec.Meta) error {
		if len(out) >= maxRemindersPerCall || m.Kind != model.KindMaintenance || !m.Open || !m.Announced || m.Removed || m.Migrated {
			return nil
		}
		ver, err := incident.Load(versions, string(k), m.Latest)
		if err != nil {
			return fmt.Errorf("incident %s: %w", k, err)
		}
		inc := &ver.Incident
		at := inc.ScheduledFor
		if inc.Status != model.StatusScheduled || at.IsZero() || !now.Before(at) {
			return nil
		}
		if strings.Contains(strings.ToLower(inc.StatusRaw), "cancel") {
			// Called off in the provider's own word, which the normalised status, for
			// want of one, reads as still scheduled (the calendar marks it cancelled).
			return nil
		}
		if pass != nil && !pass(inc) {
			return nil
		}
		if prev := layout.Get(sent, k); prev != nil {
			if t, err := time.Parse(time.RFC3339Nano, string(prev)); err == nil && t.Equal(at) {
				return nil
			}
		}
		if due := at.Add(-lead); now.Before(due) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			return nil
		}
		out = append(out, reminder{id: string(k), n: m.Latest, inc: inc})
		return nil
	})
	return out, next, err
}
