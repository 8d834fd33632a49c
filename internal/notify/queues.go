package notify

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Queue counts the undelivered messages of one destination, for /metrics, the UI and
// `watcher outbox`.
type Queue struct {
	// Receiver is the Deliverer's Name (Set.Queues).
	Receiver string
	// Destination is Destination.Key: a channel, or a webhook's name (never its URL).
	Destination string
	// Pending messages are still to be sent; Waiting of them are held behind their
	// incident's parked root.
	Pending, Waiting int
	// Parked messages wait for `watcher outbox retry`.
	Parked int
}

// Queues counts the undelivered messages by destination, sorted by destination. It
// reads the outbox in one short transaction and is safe to call while Run is running.
func (d *Deliverer) Queues() ([]Queue, error) {
	msgs, err := d.messages()
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	parkedRoots := map[string]bool{}
	for i := range msgs {
		if m := &msgs[i]; m.State == model.MessageParked && m.Event == model.EventNew {
			parkedRoots[incidentKey(m)] = true
		}
	}
	byDest := map[string]*Queue{}
	for i := range msgs {
		m := &msgs[i]
		key := d.Notifier.Destination(m.Source).Key
		q := byDest[key]
		if q == nil {
			q = &Queue{Receiver: d.label(), Destination: key}
			byDest[key] = q
		}
		switch {
		case m.State == model.MessageParked:
			q.Parked++
		default:
			q.Pending++
			if k := incidentKey(m); k != "" && parkedRoots[k] && !d.Standalone {
				q.Waiting++
			}
		}
	}
	out := make([]Queue, 0, len(byDest))
	for _, q := range byDest {
		out = append(out, *q)
	}
	slices.SortFunc(out, func(a, b Queue) int { return cmp.Compare(a.Destination, b.Destination) })
	return out, nil
}
