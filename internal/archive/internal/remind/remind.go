// Package remind is the archive's record of maintenance reminders, inside a bbolt
// transaction the caller holds: which maintenances' reminders (maintenance_soon) are
// due, and, per maintenance, the start time it was last reminded for, in the source's
// bucket "reminders", so that a reminder is written once per start and a window moved
// to another start is reminded again. internal/archive's Remind writes the messages.
package remind

import (
	"fmt"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// MaxPerCall bounds the reminders one call writes: a vendor that schedules thousands of
// windows for the same minute gets the rest on the next call.
const MaxPerCall = 100

// Due is one maintenance whose reminder is due: its URL id, its latest version's
// number, and that version.
type Due struct {
	ID       string
	N        uint32
	Incident *model.Incident
}

// List lists, at most MaxPerCall of them, the source's maintenances whose reminder is
// due at now: announced, still scheduled (not called off, in the normalised status or
// the provider's own word), passed by pass (nil passes everything), starting within
// lead of now and not started, and not reminded yet for that start. next is when the
// earliest of the others comes due, zero for none.
func List(tx *bolt.Tx, source string, lead time.Duration, now time.Time, pass func(*model.Incident) bool) (out []Due, next time.Time, err error) {
	src := layout.Source(tx, source)
	incidents, versions := layout.Sub(src, layout.BucketIncidents), layout.Sub(src, layout.BucketVersions)
	if incidents == nil || versions == nil {
		return nil, next, nil
	}
	sent := layout.Sub(src, layout.BucketReminders)
	err = incident.EachMeta(incidents, func(k []byte, m codec.Meta) error {
		if len(out) >= MaxPerCall || m.Kind != model.KindMaintenance || !m.Open || !m.Announced || m.Removed || m.Migrated {
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
		out = append(out, Due{ID: string(k), N: m.Latest, Incident: inc})
		return nil
	})
	return out, next, err
}

// Sent records that the reminder of d was written, for its start time.
func Sent(tx *bolt.Tx, source string, d Due) error {
	b, err := layout.Source(tx, source).CreateBucketIfNotExists(layout.BucketReminders)
	if err != nil {
		return err
	}
	return b.Put([]byte(d.ID), []byte(d.Incident.ScheduledFor.UTC().Format(time.RFC3339Nano)))
}
