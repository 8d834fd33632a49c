// Package notify delivers the outbox: it renders each pending message and hands it to a
// Notifier (the console today, Slack later), marking a row sent right after the sink's answer.
package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Notification is one outbox message with what a sink needs to render it.
type Notification struct {
	Message model.Message
	// Version is the incident version the message announces; nil for source events.
	Version *model.Version
	// SourceTitle is the vendor's display name.
	SourceTitle string
	// Link is the full diff in our UI (empty when base_url is not set).
	Link string
}

// Notifier is a sink for notifications. Send returns whether a failure is worth retrying.
type Notifier interface {
	Send(ctx context.Context, n Notification) (retryable bool, err error)
}

// Outbox is the part of the archive delivery needs; *archive.Store implements it.
type Outbox interface {
	Messages(states ...model.MessageState) ([]model.Message, error)
	Version(source, id string, n int) (*model.Version, error)
	MarkSent(id uint64) error
	MarkAttempt(id uint64, errText string, park bool) error
}

// Deliverer drains the outbox into one Notifier.
type Deliverer struct {
	Outbox   Outbox
	Notifier Notifier
	// Title gives a source's display name; nil: the source's name.
	Title func(source string) string
	// BaseURL prefixes links to the UI; empty: no links.
	BaseURL string
}

// Drain sends every pending message once, oldest first, and returns how many were sent and
// how many are still queued. A row is marked sent right after the sink accepted it.
func (d *Deliverer) Drain(ctx context.Context) (sent, queued int, err error) {
	msgs, err := d.Outbox.Messages(model.MessagePending)
	if err != nil {
		return 0, 0, fmt.Errorf("read outbox: %w", err)
	}
	var errs []error
	for i, m := range msgs {
		if ctx.Err() != nil {
			return sent, len(msgs) - i, ctx.Err()
		}
		n, err := d.notification(m)
		if err != nil {
			errs = append(errs, err)
			queued++
			continue
		}
		retryable, err := d.Notifier.Send(ctx, n)
		if err != nil {
			queued++
			if merr := d.Outbox.MarkAttempt(m.ID, err.Error(), !retryable); merr != nil {
				errs = append(errs, merr)
			}
			errs = append(errs, fmt.Errorf("message %d: %w", m.ID, err))
			continue
		}
		if err := d.Outbox.MarkSent(m.ID); err != nil {
			return sent, len(msgs) - i, fmt.Errorf("mark message %d sent: %w", m.ID, err)
		}
		sent++
	}
	return sent, queued, errors.Join(errs...)
}

func (d *Deliverer) notification(m model.Message) (Notification, error) {
	n := Notification{Message: m, SourceTitle: m.Source}
	if d.Title != nil {
		n.SourceTitle = d.Title(m.Source)
	}
	if m.IncidentID == "" {
		return n, nil
	}
	v, err := d.Outbox.Version(m.Source, m.IncidentID, m.Version)
	if err != nil {
		return n, fmt.Errorf("message %d: load %s/%s version %d: %w", m.ID, m.Source, m.IncidentID, m.Version, err)
	}
	n.Version = v
	if d.BaseURL != "" {
		n.Link = fmt.Sprintf("%s/incidents/%s/%s/changes/%d", strings.TrimRight(d.BaseURL, "/"), m.Source, m.IncidentID, m.Version)
	}
	return n, nil
}

// Headline is the one-line title of a notification, shared by every sink.
func Headline(n Notification) string {
	m := n.Message
	switch m.Event {
	case model.EventSourceDown:
		return fmt.Sprintf("%s: cannot read the status page", n.SourceTitle)
	case model.EventSourceUp:
		return fmt.Sprintf("%s: status page readable again", n.SourceTitle)
	}
	if n.Version == nil {
		return n.SourceTitle
	}
	inc := &n.Version.Incident
	noun := "incident"
	if inc.Kind == model.KindMaintenance {
		noun = "maintenance"
	}
	var what string
	switch m.Event {
	case model.EventNew:
		what = "New " + noun
		if m.CatchUp {
			what = "Now announced " + noun
		}
	case model.EventResolved:
		what = "Resolved"
		if inc.Kind == model.KindMaintenance {
			what = "Completed"
		}
	case model.EventPostmortem:
		what = "Postmortem"
	case model.EventRemoved:
		what = "Removed " + noun
	default:
		what = "Updated " + noun
	}
	return fmt.Sprintf("%s: %s: %s", n.SourceTitle, what, inc.Title)
}

var _ Notifier = (*Console)(nil)
