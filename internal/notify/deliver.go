package notify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Defaults of the Deliverer's knobs.
const (
	// DefaultMaxQueueAge is slack.max_queue_age's default.
	DefaultMaxQueueAge = 24 * time.Hour
	// DefaultMaxWait bounds the waiting of one Drain: `watcher poll` honours a short
	// Retry-After or backoff, and leaves a long one to the next run.
	DefaultMaxWait = 30 * time.Second
	// DefaultIdle is how often Run looks at the outbox when nothing woke it: it picks up
	// messages put back by `watcher outbox retry` from another process.
	DefaultIdle = time.Minute
	// DefaultRateLimitWait is the wait after a 429 that came without a usable Retry-After.
	DefaultRateLimitWait = 10 * time.Second
	// DefaultMaxPerPoll is how many incident messages one poll of one source may post
	// one by one; past it they go as one message that names the first FloodShown. 20 is
	// a busy real outage (a vendor's big incident touches a dozen components at most) and
	// 20 seconds of a Slack channel at its pace; 5,000 new incidents listed at once (a
	// vendor's migration, a broken feed) would be 83 minutes of it.
	DefaultMaxPerPoll = 20
	// FloodShown is how many of a flood's messages it names, with links.
	FloodShown = 5
)

// Backoff after transient errors: 2 s, 4 s, 8 s, … up to 5 min, each ±20%.
const (
	backoffBase = 2 * time.Second
	backoffMax  = 5 * time.Minute
)

// ErrBusy is returned by Drain and Run while another Drain or Run of the same Deliverer
// is going on: two loops over one outbox could send a message twice.
var ErrBusy = errors.New("notify: delivery already running")

// Clock is the time the Deliverer paces and waits by; tests inject a fake one.
type Clock interface {
	Now() time.Time
	// After is time.After: the channel receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Deliverer drains the outbox into one Notifier. Drain is one bounded
// pass for `watcher poll`; Run is the daemon's loop. Both keep, in memory, each
// destination's clock (pacing, Retry-After, backoff) and the auth pause, so one Deliverer
// should live as long as the process (or until a config reload builds a new one).
//
// What it guarantees: a row is marked sent in one short transaction right after the
// sink's answer, so only a crash in that instant can repeat a message; one incident's
// messages go in order and a reply waits for its root; a parked message, a paused
// credential or a rate-limited channel never holds up another destination or incident.
type Deliverer struct {
	// Outbox is the archive the messages come from and are marked in.
	Outbox Outbox
	// Notifier is the sink: the console, or Slack (notify/slack), or a receiver's.
	Notifier Notifier
	// Receiver is the receiver whose rows it delivers (model.Message.Receiver); empty:
	// the default sink's, Slack or the console. Every receiver has its own Deliverer,
	// hence its own queue, clocks and pause (Set).
	Receiver string
	// Name names the receiver in /metrics, logs and `watcher outbox`: the config's name,
	// or "slack" or "console" for the default sink; empty: Receiver.
	Name string
	// Standalone says each message stands alone (a receiver that threads nothing): a
	// parked first message of an incident parks that message only, and holds back none
	// of the incident's later ones. They still go in order.
	Standalone bool
	// Title gives a source's display name; nil: the source's name.
	Title func(source string) string
	// BaseURL prefixes links to the UI; empty: no links.
	BaseURL string
	// MaxQueueAge is slack.max_queue_age: pending messages older than this are collapsed
	// into one digest per destination. 0 means DefaultMaxQueueAge; negative, never.
	MaxQueueAge time.Duration
	// MaxWait bounds the total waiting of one Drain; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// Idle is how long Run sleeps when nothing is due and nothing wakes it; 0 means
	// DefaultIdle.
	Idle time.Duration
	// MaxPerPoll caps the incident messages of one poll of one source sent one by one:
	// more than this go as one message per source and poll (Flood). 0 means
	// DefaultMaxPerPoll; negative, no cap.
	MaxPerPoll int
	// Clock is the time source; nil means the real clock.
	Clock Clock
	// Jitter spreads a backoff; nil means ±20% at random.
	Jitter func(time.Duration) time.Duration
	// Log receives one line per failed send and per pause; nil discards.
	Log *slog.Logger
	// OnResult, when set, hears the result of every send to the Notifier, whatever the
	// sink (console or Slack): "sent", or the failure's class (Class.String). The daemon
	// counts them in /metrics.
	OnResult func(result string)
	// AlsoAffected, when set, gives the display names of the other sources of the
	// cross-vendor event an incident belongs to, read when a message is rendered: a root
	// card posted or edited after its incident joined an event names them.
	AlsoAffected func(source, id string) []string

	busy sync.Mutex // held by Drain and Run
	mu   sync.Mutex // guards st
	st   *state
}

// state is what the Deliverer remembers between passes.
type state struct {
	dests  map[string]*destState // by Destination.Key
	paused map[string]string     // Destination.Account → why
	// plain marks messages (and digests, by "digest:"+key) that Slack rejected once:
	// their next try is plain text.
	plain map[string]bool
	// edits are root updates still to do, by incident key; a newer one replaces an older.
	// The archive keeps them too (Outbox.MarkReplySent), and the first cycle loads them:
	// editsLoaded.
	edits       map[string]*Notification
	editsLoaded bool
	// threads are roots posted by this process, by incident key: a fallback for when
	// SetThread failed, so the replies still find their thread.
	threads map[string]Thread
	// componentThreads are component threads posted by this process, by source, for the
	// same reason.
	componentThreads map[string]componentThreadRoot
	// delivered are messages Slack took whose MarkSent failed: never send them again.
	delivered map[uint64]bool
	resume    chan struct{}
}

// destState is one destination's clock.
type destState struct {
	next     time.Time // nothing goes there before this
	failures int       // transient failures in a row
}

func (d *Deliverer) state() *state {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st == nil {
		d.st = &state{
			dests:            map[string]*destState{},
			paused:           map[string]string{},
			plain:            map[string]bool{},
			edits:            map[string]*Notification{},
			threads:          map[string]Thread{},
			componentThreads: map[string]componentThreadRoot{},
			delivered:        map[uint64]bool{},
			resume:           make(chan struct{}, 1),
		}
	}
	return d.st
}

func (d *Deliverer) clock() Clock {
	if d.Clock == nil {
		return realClock{}
	}
	return d.Clock
}

func (d *Deliverer) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return d.Log
}

func (d *Deliverer) maxQueueAge() time.Duration {
	if d.MaxQueueAge == 0 {
		return DefaultMaxQueueAge
	}
	return d.MaxQueueAge
}

func (d *Deliverer) jitter(b time.Duration) time.Duration {
	if d.Jitter != nil {
		return d.Jitter(b)
	}
	return time.Duration(float64(b) * (0.8 + 0.4*rand.Float64()))
}

// messages reads the undelivered rows of the Deliverer's receiver.
func (d *Deliverer) messages() ([]model.Message, error) {
	msgs, err := d.Outbox.Messages(model.MessagePending, model.MessageParked)
	return slices.DeleteFunc(msgs, func(m model.Message) bool { return m.Receiver != d.Receiver }), err
}

// label is Name, else Receiver.
func (d *Deliverer) label() string { return cmp.Or(d.Name, d.Receiver) }

// Drain is one pass over the pending messages, for `watcher poll`: it sends what it can,
// waiting for pacing, Retry-After and backoff only while the total wait stays within
// MaxWait, and leaves the rest queued. It returns how many messages were sent and how many
// are still queued: pending after the pass, plus those it parked.
func (d *Deliverer) Drain(ctx context.Context) (sent, queued int, err error) {
	if !d.busy.TryLock() {
		return 0, 0, ErrBusy
	}
	defer d.busy.Unlock()
	budget := cmp.Or(d.MaxWait, DefaultMaxWait)
	var errs []error
	failures := map[uint64]error{} // the last send error of each message tried
	for ctx.Err() == nil {
		res := d.cycle(ctx)
		sent += res.sent
		errs = append(errs, res.errs...)
		maps.Copy(failures, res.failed)
		if res.fatal || res.next.IsZero() {
			break
		}
		wait := max(res.next.Sub(d.clock().Now()), 0)
		if wait > budget {
			break
		}
		budget -= wait
		if wait > 0 && !sleep(ctx, d.clock(), wait, nil) {
			break
		}
	}
	// What is left: everything pending, and what this pass parked. A send error is
	// reported only for a message it left undelivered; one that failed and then went
	// through is no news for `watcher poll`.
	left, rerr := d.messages()
	if rerr != nil {
		errs = append(errs, fmt.Errorf("read outbox: %w", rerr))
	}
	for _, m := range left {
		err, tried := failures[m.ID]
		if m.State == model.MessagePending || tried {
			queued++
		}
		if tried {
			errs = append(errs, fmt.Errorf("message %d: %w", m.ID, err))
		}
	}
	if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	return sent, queued, errors.Join(errs...)
}

// Run is the daemon's delivery loop: it drains whenever woken (a poll recorded
// something), when a destination's wait is over, or every Idle. It honours Retry-After and
// backs off as long as it takes, and returns nil when ctx is done.
func (d *Deliverer) Run(ctx context.Context, wake <-chan struct{}) error {
	if !d.busy.TryLock() {
		return ErrBusy
	}
	defer d.busy.Unlock()
	st := d.state()
	idle := cmp.Or(d.Idle, DefaultIdle)
	for {
		res := d.cycle(ctx)
		for _, err := range res.errs {
			d.log().Error("delivery", "error", err)
		}
		if ctx.Err() != nil {
			return nil
		}
		wait := idle
		if !res.next.IsZero() {
			wait = min(wait, max(res.next.Sub(d.clock().Now()), 0))
		}
		if wait == 0 {
			continue
		}
		if !sleep(ctx, d.clock(), wait, wake, st.resume) {
			return nil
		}
	}
}

// sleep waits d, or until one of the wake channels fires; false when ctx is done.
func sleep(ctx context.Context, c Clock, d time.Duration, wake ...<-chan struct{}) bool {
	var w0, w1 <-chan struct{}
	if len(wake) > 0 {
		w0 = wake[0]
	}
	if len(wake) > 1 {
		w1 = wake[1]
	}
	select {
	case <-ctx.Done():
		return false
	case <-c.After(d):
	case <-w0:
	case <-w1:
	}
	return true
}

// Paused reports whether delivery is paused by an auth error, and why. Nothing is dropped
// meanwhile; Resume (on config reload) or a restart ends the pause.
func (d *Deliverer) Paused() (bool, string) {
	st := d.state()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(st.paused) == 0 {
		return false, ""
	}
	var reasons []string
	for _, acct := range slices.Sorted(maps.Keys(st.paused)) {
		reasons = append(reasons, acct+": "+st.paused[acct])
	}
	return true, strings.Join(reasons, "; ")
}

// Resume ends an auth pause and wakes Run, for a config reload that fixed the credential.
// A credential still wrong pauses again at the next send.
func (d *Deliverer) Resume() {
	st := d.state()
	d.mu.Lock()
	clear(st.paused)
	d.mu.Unlock()
	select {
	case st.resume <- struct{}{}:
	default:
	}
}
