package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/web"
)

// pauser is a Delivery that can be paused by an auth error (notify.Deliverer).
type pauser interface {
	Paused() (bool, string)
}

// namer is a Delivery that names its receivers (notify.Set), so that their series
// start at 0.
type namer interface {
	Names() []string
}

// receiverSet is a Delivery of several receivers (notify.Set): the receiver series of
// /metrics read it.
type receiverSet interface {
	Names() []string
	PausedReceivers() []string
	Queues() ([]notify.Queue, error)
}

// receiverStates are the receivers' queues and pauses, for each scrape of /metrics; none
// for a delivery that is no receiverSet.
func (d *Daemon) receiverStates() ([]receiverState, error) {
	d.mu.RLock()
	rs, ok := d.deliv.(receiverSet)
	d.mu.RUnlock()
	if !ok {
		return nil, nil
	}
	qs, err := rs.Queues()
	if err != nil {
		d.log.Warn("count the receivers' queues", "err", err)
		return nil, err
	}
	paused := rs.PausedReceivers()
	var out []receiverState
	for _, name := range rs.Names() {
		st := receiverState{name: name, paused: slices.Contains(paused, name)}
		for _, q := range qs {
			if q.Receiver == name {
				st.pending += q.Pending
				st.parked += q.Parked
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// paused reports whether the delivery running now is paused by an auth error.
func (d *Daemon) paused() bool {
	d.mu.RLock()
	deliv := d.deliv
	d.mu.RUnlock()
	if p, ok := deliv.(pauser); ok {
		paused, _ := p.Paused()
		return paused
	}
	return false
}

func (d *Daemon) startDelivery(ctx context.Context) error {
	if d.newDeliv == nil {
		return nil
	}
	deliv, err := d.newDeliv(d.config(), func(receiver, result string) {
		d.metrics.notifications.WithLabelValues(receiver, result).Inc()
	})
	if err != nil {
		return fmt.Errorf("delivery: %w", err)
	}
	if n, ok := deliv.(namer); ok {
		for _, name := range n.Names() {
			d.metrics.receiver(name)
		}
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	d.mu.Lock()
	d.stopDeliv, d.delivDone, d.deliv = cancel, done, deliv
	d.mu.Unlock()
	go func() {
		defer close(done)
		if err := deliv.Run(dctx, d.wake); err != nil && !errors.Is(err, context.Canceled) {
			d.log.Error("delivery stopped", "err", err)
		}
	}()
	d.wakeDelivery()
	return nil
}

func (d *Daemon) stopDelivery() {
	d.mu.Lock()
	cancel, done := d.stopDeliv, d.delivDone
	d.stopDeliv, d.delivDone = nil, nil
	d.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (d *Daemon) wakeDelivery() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// OutboxChanged hears of messages retried or dropped through the API: delivery looks at
// the queue again at once.
func (d *Daemon) OutboxChanged() {
	d.wakeDelivery()
}

var _ web.OutboxChanged = (*Daemon)(nil)
