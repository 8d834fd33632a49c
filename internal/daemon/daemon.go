package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/web"
)

// Delivery drains the outbox until its context ends; woken after each poll that wrote.
type Delivery interface {
	Run(ctx context.Context, wake <-chan struct{}) error
}

// Options configure a Daemon.
type Options struct {
	Config *config.Config
	Store  *archive.Store
	Log    *slog.Logger
	// Listener serves the UI and API; nil listens on Config.Listen (empty: no HTTP).
	Listener net.Listener
	// NewDelivery builds the outbox delivery for a config; called again on reload. It
	// reports each send's result ("sent" or the failure's class) to onResult with the
	// receiver's name ("slack", "console", or a receivers: name), for metrics.
	NewDelivery func(cfg *config.Config, onResult func(receiver, result string)) (Delivery, error)
	// Notify sends a state to the service manager (sd_notify); nil: not under systemd.
	Notify func(state string)
	// WatchdogInterval is how often the scheduler loop pings the watchdog; 0: 10s.
	WatchdogInterval time.Duration
	Version, Commit  string
	Now              func() time.Time
}

// Daemon is `watcher run`: it schedules every source, polls, archives, delivers and serves
// HTTP. It owns no signals: the command turns SIGHUP into Reload and SIGTERM into the end of
// Run's context, so a test can run the whole daemon.
type Daemon struct {
	store    *archive.Store
	log      *slog.Logger
	notifyFn func(string)
	now      func() time.Time
	// liveClock times the scheduler's liveness. It is the wall clock even when now is
	// injected: the demo moves now along its replay, and a jump of the replay must not
	// read as a stalled scheduler.
	liveClock func() time.Time
	metrics   *metrics
	ln        net.Listener
	newDeliv  func(cfg *config.Config, onResult func(string, string)) (Delivery, error)
	wdEvery   time.Duration

	cron    *cron.Cron
	pollCtx context.Context // ends polls in flight at shutdown
	wake    chan struct{}

	mu     sync.RWMutex
	cfg    *config.Config
	poller *Poller
	// slots bound the polls in progress, fetch, decode and record together, to
	// http.concurrency: the client's own caps hold only while a request is on the wire,
	// and a round of cold polls would otherwise hold every body and its decoded
	// snapshot at once while they wait for the CPU and the archive.
	slots    chan struct{}
	due      dueQueue // the sources due while every slot is taken
	sources  map[string]*sourceState
	lastTick time.Time
	// restored are the poll times saved before this process started (archive.PollTimes),
	// shown until a source's first poll here.
	restored map[string]archive.PollTimes
	polled   atomic.Bool // a source was polled by this process: the times are saved at shutdown
	// wrote counts the polls that wrote: every releaseWritesEvery of them the archive pages
	// mapped are released, so a cold round's reads do not wait a minute to be unmapped.
	wrote     atomic.Int64
	stopDeliv context.CancelFunc
	delivDone chan struct{}
	deliv     Delivery
	web       *web.Server // nil without HTTP
}

// sourceState is what the daemon knows of one source between polls; it survives reloads.
type sourceState struct {
	mu       sync.Mutex
	src      *config.Source
	entry    cron.EntryID
	schedule string
	interval time.Duration
	// openEvery is the open_interval the entry was scheduled with; open says the source
	// has an open incident, which its schedule (followUps) reads on every tick.
	openEvery   time.Duration
	open        atomic.Bool
	sched       cron.Schedule // the entry's: the jittered schedule with its follow-ups
	running     *pollCall
	nextAllowed time.Time // backoff: polls before this are skipped
	poll        pollStatus
	pageTitle   string // the page's own name as last read; the title unless the config sets one

	// maint says the source has an open maintenance (refreshOpen): only then does
	// remind read the archive for its reminders, and only once remindAt (Unix
	// nanoseconds, or remindUnknown, remindNone) has come.
	maint    atomic.Bool
	remindAt atomic.Int64

	// componentsOf is the config the last poll's refreshComponents ran with: a poll
	// that wrote nothing under the same config cannot have changed the gauges' set
	// (afterPoll). Guarded by mu.
	componentsOf *config.Source
}

// pollStatus is the state of a source's polls. It lives in memory, since a poll that
// changes nothing writes nothing; savePollTimes keeps its times across a restart.
type pollStatus struct {
	lastPollAt    time.Time // zero: never polled, as far as the archive knows
	lastSuccessAt time.Time // zero: never read successfully, as far as the archive knows
	lastError     string    // of the latest failed poll while failures > 0
	failures      int       // consecutive failed polls
	// successBeforeRestart marks a lastSuccessAt saved before the daemon started: no poll
	// of this process has succeeded yet.
	successBeforeRestart bool
}

// pollCall is a poll in flight, which PollNow waits for instead of starting another.
type pollCall struct {
	done    chan struct{}
	changes int
	err     error
}

// New checks the config's schedules, opens the listener and builds the daemon; Run starts it.
func New(o Options) (*Daemon, error) {
	d := &Daemon{
		store:    o.Store,
		log:      o.Log,
		notifyFn: o.Notify,
		now:      o.Now,
		ln:       o.Listener,
		newDeliv: o.NewDelivery,
		wdEvery:  o.WatchdogInterval,
		sources:  map[string]*sourceState{},
		wake:     make(chan struct{}, 1),
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	d.metrics = newMetrics(o.Version, o.Commit, gauges{outbox: d.outboxCounts, paused: d.paused, receivers: d.receiverStates})
	if d.now == nil {
		d.now = time.Now
	}
	d.liveClock = time.Now
	if d.wdEvery <= 0 {
		d.wdEvery = 10 * time.Second
	}
	// No chain for every job: the sources' jobs skip and recover by themselves
	// (sourceJob); the daemon's own few have theirs (Run).
	d.cron = cron.New(cron.WithLocation(time.UTC))
	if times, err := d.store.PollTimes(); err != nil {
		d.log.Warn("read the poll times saved before the restart", "err", err)
	} else {
		d.restored = times
	}
	if err := d.apply(o.Config); err != nil {
		return nil, err
	}
	if d.ln == nil && o.Config.Listen != "" {
		ln, err := net.Listen("tcp", o.Config.Listen)
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w", o.Config.Listen, err)
		}
		d.ln = ln
	}
	return d, nil
}

// Addr is the address the HTTP server listens on, or nil.
func (d *Daemon) Addr() net.Addr {
	if d.ln == nil {
		return nil
	}
	return d.ln.Addr()
}

// Run schedules and serves until ctx ends, then shuts down in order: stop the scheduler,
// wait for polls (bounded), stop HTTP, stop delivery. The archive is the caller's to close.
func (d *Daemon) Run(ctx context.Context) error {
	pollCtx, cancelPolls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelPolls()
	d.pollCtx = pollCtx

	httpCtx, stopHTTP := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHTTP()
	httpDone := make(chan error, 1)
	if d.ln != nil {
		srv := web.New(d.webOptions(d.config()))
		d.mu.Lock()
		d.web = srv
		d.mu.Unlock()
		go func() { httpDone <- srv.Serve(httpCtx, d.ln) }()
	} else {
		httpDone <- nil
	}

	if err := d.startDelivery(ctx); err != nil {
		stopHTTP()
		<-httpDone
		return err
	}
	d.tick()
	// The daemon's own jobs skip a tick while their last run goes on, and outlive a
	// panic. Skip before Recover: in v3.0.1 the other order stops a job forever after
	// one panic.
	cl := cronLogger{d.log}
	own := cron.NewChain(cron.SkipIfStillRunning(cl), cron.Recover(cl))
	for _, j := range []struct {
		spec, what string
		run        func()
	}{
		{fmt.Sprintf("@every %s", d.wdEvery), "watchdog", d.tick},
		{"@every 1h", "pruning", d.prune},
		{fmt.Sprintf("@every %s", remindEvery), "maintenance reminders", d.remindAll},
		{"@every 1m", "page release", d.releasePages},
	} {
		if _, err := d.cron.AddJob(j.spec, own.Then(cron.FuncJob(j.run))); err != nil {
			return fmt.Errorf("schedule %s: %w", j.what, err)
		}
	}
	d.cron.Start()
	d.notify("READY=1")
	// After READY: start-up never waits on a large archive's counts or prune.
	// Shutdown waits for it: the archive closes after Run returns.
	startupDone := make(chan struct{})
	go func() {
		defer close(startupDone)
		d.refreshGauges()
		d.prune()
		d.releasePages() // both read across the whole archive
	}()
	d.log.Info("watcher running", "sources", len(d.config().Sources), "listen", d.Addr())

	<-ctx.Done()
	d.notify("STOPPING=1")
	d.log.Info("shutting down")
	cronStopped := d.cron.Stop()
	stopped := make(chan struct{}) // cron's jobs and the due queue's runners
	go func() { <-cronStopped.Done(); d.due.runners.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		d.log.Warn("polls still running after 10s; cancelling them")
		cancelPolls()
		<-stopped
	}
	stopHTTP()
	err := <-httpDone
	<-startupDone
	d.savePollTimes() // after the polls asked through the API, too
	d.stopDelivery()
	return err
}

// Health is the daemon's own health: the scheduler loop is ticking. A vendor being down
// never makes it fail.
func (d *Daemon) Health() error {
	d.mu.RLock()
	last := d.lastTick
	d.mu.RUnlock()
	if age := d.liveClock().Sub(last); age > 3*d.wdEvery+time.Second {
		return fmt.Errorf("scheduler stalled: last tick %s ago", age.Round(time.Second))
	}
	return nil
}

// tick runs on the scheduler itself, so the watchdog is fed only while the loop that
// fires polls is alive.
func (d *Daemon) tick() {
	d.mu.Lock()
	d.lastTick = d.liveClock()
	d.mu.Unlock()
	d.notify("WATCHDOG=1")
}

func (d *Daemon) notify(state string) {
	if d.notifyFn != nil {
		d.notifyFn(state)
	}
}

func (d *Daemon) config() *config.Config {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.cfg
}

var _ web.Daemon = (*Daemon)(nil)
