package notify

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Set is the Deliverers of every receiver, each draining the rows of its own receiver
// (Deliverer.Receiver) with its own clocks, backoff and pause: Run gives each its own
// loop, so a receiver failing, paused or rate limited never delays another, and the
// exactly-once rules hold for each. It stands where one Deliverer does (the daemon's
// delivery, `watcher poll`'s drain).
type Set struct {
	// Deliverers are one per receiver, the default sink's first.
	Deliverers []*Deliverer
}

// Run runs every Deliverer's loop until ctx is done; each hears every wake-up.
func (s *Set) Run(ctx context.Context, wake <-chan struct{}) error {
	if err := s.parkOrphans(); err != nil && len(s.Deliverers) > 0 {
		s.Deliverers[0].log().Error("delivery", "error", err)
	}
	wakes := make([]chan struct{}, len(s.Deliverers))
	errs := make([]error, len(s.Deliverers))
	var wg sync.WaitGroup
	for i, d := range s.Deliverers {
		wakes[i] = make(chan struct{}, 1)
		wg.Go(func() { errs[i] = d.Run(ctx, wakes[i]) })
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-wake:
				for _, w := range wakes {
					select {
					case w <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	wg.Wait()
	return errors.Join(errs...)
}

// Drain drains every receiver at once, each within its MaxWait, and adds up what they
// sent and left queued.
func (s *Set) Drain(ctx context.Context) (sent, queued int, err error) {
	type result struct {
		sent, queued int
		err          error
	}
	res := make([]result, len(s.Deliverers))
	orphans := s.parkOrphans()
	var wg sync.WaitGroup
	for i, d := range s.Deliverers {
		wg.Go(func() {
			r := &res[i]
			r.sent, r.queued, r.err = d.Drain(ctx)
			if r.err != nil && d.Receiver != "" {
				r.err = fmt.Errorf("receiver %s: %w", d.label(), r.err)
			}
		})
	}
	wg.Wait()
	errs := []error{orphans}
	for _, r := range res {
		sent += r.sent
		queued += r.queued
		errs = append(errs, r.err)
	}
	return sent, queued, errors.Join(errs...)
}

// Paused reports whether any receiver is paused by an auth error, and why, naming the
// receivers.
func (s *Set) Paused() (bool, string) {
	var why []string
	for _, d := range s.Deliverers {
		if p, reason := d.Paused(); p {
			why = append(why, d.label()+": "+reason)
		}
	}
	return len(why) > 0, strings.Join(why, "; ")
}

// PausedReceivers names the receivers paused by an auth error.
func (s *Set) PausedReceivers() []string {
	var out []string
	for _, d := range s.Deliverers {
		if p, _ := d.Paused(); p {
			out = append(out, d.label())
		}
	}
	return out
}

// Resume ends every receiver's auth pause.
func (s *Set) Resume() {
	for _, d := range s.Deliverers {
		d.Resume()
	}
}

// Names are the receivers' names (Deliverer.Name), in order.
func (s *Set) Names() []string {
	out := make([]string, len(s.Deliverers))
	for i, d := range s.Deliverers {
		out[i] = d.label()
	}
	return out
}

// Queues counts the undelivered messages of every receiver by destination: the
// receivers in order, each one's destinations sorted.
func (s *Set) Queues() ([]Queue, error) {
	var out []Queue
	for _, d := range s.Deliverers {
		q, err := d.Queues()
		if err != nil {
			return nil, err
		}
		out = append(out, q...)
	}
	return out, nil
}

// parkOrphans parks the undelivered rows of receivers the Set does not have (taken out
// of the config since they were written): no loop would ever send them, and parked they
// show in `watcher outbox`, to retry once the receiver is back, or drop.
func (s *Set) parkOrphans() error {
	if len(s.Deliverers) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, d := range s.Deliverers {
		have[d.Receiver] = true
	}
	msgs, err := s.Deliverers[0].Outbox.Messages(model.MessagePending)
	if err != nil {
		return fmt.Errorf("read outbox: %w", err)
	}
	orphans := map[string][]uint64{}
	for _, m := range msgs {
		if !have[m.Receiver] {
			orphans[m.Receiver] = append(orphans[m.Receiver], m.ID)
		}
	}
	var errs []error
	for _, r := range slices.Sorted(maps.Keys(orphans)) {
		why := fmt.Sprintf("receiver %s is not in the config: retry once it is back, or drop", r)
		if err := s.Deliverers[0].Outbox.MarkAttempts(orphans[r], why, true, time.Time{}); err != nil {
			errs = append(errs, fmt.Errorf("park the messages of receiver %s: %w", r, err))
		}
	}
	return errors.Join(errs...)
}
