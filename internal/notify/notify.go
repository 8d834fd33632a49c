// Package notify delivers the outbox: it renders each pending message
// and hands it to a Notifier (the console, or Slack in the sub-package slack), marking a
// row sent right after the sink's answer. The Deliverer owns every wait: pacing per
// destination, Retry-After, backoff with jitter, pausing on auth errors and parking what
// cannot be delivered, so that nothing is lost, nothing repeats and nothing parked holds
// up anything else.
package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Notification is one outbox message with what a sink needs to render it.
type Notification struct {
	Message model.Message
	// Version is the incident version the message announces; nil for source events and
	// digests.
	Version *model.Version
	// SourceTitle is the vendor's display name.
	SourceTitle string
	// Link is the full diff of this change in our UI (empty when base_url is not set).
	Link string
	// IncidentLink is the incident's page in our UI (empty when base_url is not set).
	IncidentLink string
	// Thread is the root to reply to, for a sink that threads; nil posts a new message.
	// The Deliverer sets it from the archive, so threads survive restarts.
	Thread *Thread
	// FirstSeen is when version 1 of the incident was observed: the catch-up line of an
	// incident announced late, or of a thread that never had its root.
	FirstSeen time.Time
	// PlainText asks for text only, no blocks: the one retry of a message Slack rejected.
	PlainText bool
	// Digest is set for the "N notifications skipped" message that stands for messages
	// older than max_queue_age; Message then carries only a Source, for routing.
	Digest *Digest
	// Flood is set for the one message that stands for the incident messages of one poll
	// of a source, when there were more than Deliverer.MaxPerPoll; Message then carries
	// only a Source, for routing.
	Flood *Flood
	// Components is, for a component message (IsComponentMessage), the version of the
	// source's component set it tells: Told gives its changes told in this message's
	// thread. Thread is then the incident's thread (Message.IncidentID set) or the
	// source's component thread; Version is nil.
	Components *model.ComponentVersion
	// IncidentTitle is, for a component message in an incident's thread, the incident's
	// title, for where no thread shows it (a webhook, a root never posted).
	IncidentTitle string
	// SourceLink is, for a component message, the source's page in our UI, which lists
	// its components (empty when base_url is not set).
	SourceLink string
	// AlsoAffected names, for an incident message, the other sources of the cross-vendor
	// event the incident belongs to (Deliverer.AlsoAffected), for its root card.
	AlsoAffected []string
}

// Flood stands for the incident messages one poll of one source wrote, when there were
// too many to post one by one (a vendor that lists thousands of incidents at once).
type Flood struct {
	Count int // messages it stands for
	// Items are the first few of them (FloodShown), in outbox order.
	Items []FloodItem
	// Link is the source's page in our UI (empty when base_url is not set).
	Link string
}

// FloodItem is one incident message named in a Flood.
type FloodItem struct {
	What  string // what happened, as in a headline: "New incident", "Resolved", …
	Title string // the incident's title, vendor text
	// Link is the incident's page in our UI (empty when base_url is not set); VendorURL
	// is the vendor's page of it, as the vendor gave it (sinks check its scheme).
	Link, VendorURL string
}

// FloodLine is the one-line text of a flood, shared by every sink, e.g.
// "Acme: 5000 incident notifications from one poll, too many to post one by one".
func FloodLine(sourceTitle string, f *Flood) string {
	return fmt.Sprintf("%s: %d incident notifications from one poll, too many to post one by one", sourceTitle, f.Count)
}

// FloodMore is the closing line of a flood: how many of its messages it does not name.
func FloodMore(f *Flood) string {
	n := f.Count - len(f.Items)
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("…and %d more", n)
}

// Thread is where an incident's root message lives: the channel ID Slack answered with
// and the root's timestamp.
type Thread struct {
	Channel string
	TS      string
}

// Digest stands for pending messages too old to be worth sending one by one.
type Digest struct {
	Count  int           // messages skipped
	MaxAge time.Duration // max_queue_age
	// Sources counts the skipped messages per source display name, by name.
	Sources []SourceCount
	// Link is our UI's home page (empty when base_url is not set).
	Link string
}

// SourceCount is a number of messages of one source.
type SourceCount struct {
	Source string
	Count  int
}

// Root reports whether n starts a thread: an incident message with no thread to reply
// to. A sink that threads posts it as the incident's card. A component message never
// starts an incident's thread (ComponentOpens says when it starts the component thread).
func (n *Notification) Root() bool {
	return n.Thread == nil && n.Message.IncidentID != "" && n.Digest == nil && n.Components == nil
}

// Destination is where a source's messages go, as the Deliverer needs to know it.
type Destination struct {
	// Key names the destination for pacing, parking and counts: a channel, or a webhook by
	// a name that gives nothing of its URL away. It shows in /metrics: never a secret.
	Key string
	// Account is what an auth error pauses: every destination sharing one credential (the
	// bot token's channels), or one webhook.
	Account string
	// Interval is the least time between two messages to Key (Slack: about a second per
	// channel and per webhook); 0 means no pacing.
	Interval time.Duration
	// Threads reports whether messages there are threaded per incident (bot token).
	Threads bool
}

// Receipt says where a message landed, for a sink that threads.
type Receipt struct {
	Channel string // the channel ID (chat.update needs it, not the name)
	TS      string
}

// Notifier is a sink for notifications. Send returns nil when the sink accepted n, or an
// error whose class (see ClassOf) tells the Deliverer what to do; the sink never waits or
// retries on its own, so that one loop owns backoff and a message is never sent twice
// behind the outbox's back.
type Notifier interface {
	Destination(source string) Destination
	Send(ctx context.Context, n *Notification) (Receipt, error)
}

// Threader is a Notifier whose destinations can thread (Destination.Threads). After a
// reply is sent and marked sent, the Deliverer calls UpdateRoot so the root shows the
// incident's current status, impact and latest update.
type Threader interface {
	Notifier
	UpdateRoot(ctx context.Context, n *Notification) error
}

// Checker is a Notifier that can send a test message where its notifications go
// (`watcher check -receivers`), to prove its address and credentials before an
// incident needs them. Its error is a send error, classified the same way.
type Checker interface {
	Check(ctx context.Context, text string) error
}

// Outbox is the part of the archive delivery needs; *archive.Store implements it.
type Outbox interface {
	Messages(states ...model.MessageState) ([]model.Message, error)
	Version(source, id string, n int) (*model.Version, error)
	MarkSent(id uint64) error
	// MarkAttempts records a failed try of each message, in one transaction: its error,
	// whether it is parked, and (non-zero) the time before which its destination must
	// not be tried again (Message.NotBefore).
	MarkAttempts(ids []uint64, errText string, park bool, notBefore time.Time) error
	// MarkSentAll is MarkSent for the messages of a digest, in one transaction.
	MarkSentAll(ids []uint64) error
	Thread(source, id string) (channel, ts string, err error)
	SetThread(source, id, channel, ts string) error
	// MarkReplySent, ClearRootEdit and RootEdits keep the root updates owed across
	// restarts: MarkReplySent is MarkSent recording the reply's root update as owed, in
	// the same transaction; ClearRootEdit settles it once the root is updated.
	MarkReplySent(id uint64) error
	ClearRootEdit(source, id string, msg uint64) error
	RootEdits() ([]model.Message, error)
	// ComponentVersion, ComponentThread and SetComponentThread serve component messages:
	// the version of the component set a message tells, and the source's component
	// thread (its root's channel, ts and component version). Latest names the incident
	// whose thread takes one.
	ComponentVersion(source string, n int) (*model.ComponentVersion, error)
	ComponentThread(source string) (channel, ts string, version int, err error)
	SetComponentThread(source string, version int, channel, ts string) error
	Latest(source, id string) (*model.Incident, error)
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
	if n.Components != nil {
		return ComponentHeadline(&n, false)
	}
	if n.Version == nil {
		return n.SourceTitle
	}
	return fmt.Sprintf("%s: %s: %s", n.SourceTitle, what(m, &n.Version.Incident), n.Version.Incident.Title)
}

// what names what message m says happened to inc, as headlines put it.
func what(m model.Message, inc *model.Incident) string {
	noun := "incident"
	if inc.Kind == model.KindMaintenance {
		noun = "maintenance"
	}
	switch m.Event {
	case model.EventNew:
		if m.CatchUp {
			return "Now announced " + noun
		}
		return "New " + noun
	case model.EventResolved:
		if inc.Kind == model.KindMaintenance {
			return "Completed"
		}
		return "Resolved"
	case model.EventPostmortem:
		return "Postmortem"
	case model.EventRemoved:
		return "Removed " + noun
	case model.EventMaintenanceSoon:
		return StartsIn(m, inc)
	}
	return "Updated " + noun
}

// DigestLine is the one-line text of a digest, shared by every sink, e.g.
// "12 notifications skipped (older than 24h): Acme (3), GitHub (9)".
func DigestLine(d *Digest) string {
	noun := "notifications"
	if d.Count == 1 {
		noun = "notification"
	}
	s := fmt.Sprintf("%d %s skipped (older than %s)", d.Count, noun, FormatAge(d.MaxAge))
	for i, sc := range d.Sources {
		if i == 0 {
			s += ": "
		} else {
			s += ", "
		}
		s += fmt.Sprintf("%s (%d)", sc.Source, sc.Count)
	}
	return s
}

// FormatAge writes max_queue_age as people configure it: whole hours as "24h", else
// Go's duration form.
func FormatAge(d time.Duration) string {
	if d > 0 && d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}
