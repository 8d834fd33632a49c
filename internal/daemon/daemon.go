package daemon

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/robfig/cron/v3"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
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
	// reports each send's result ("sent" or the failure's class) to onResult, for metrics.
	NewDelivery func(cfg *config.Config, onResult func(result string)) (Delivery, error)
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
	newDeliv  func(cfg *config.Config, onResult func(string)) (Delivery, error)
	wdEvery   time.Duration

	cron    *cron.Cron
	pollCtx context.Context // ends polls in flight at shutdown
	wake    chan struct{}

	mu       sync.RWMutex
	cfg      *config.Config
	poller   *Poller
	sources  map[string]*sourceState
	lastTick time.Time
	// restored are the poll times saved before this process started (archive.PollTimes),
	// shown until a source's first poll here.
	restored  map[string]archive.PollTimes
	polled    atomic.Bool // a source was polled by this process: the times are saved at shutdown
	stopDeliv context.CancelFunc
	delivDone chan struct{}
	deliv     Delivery
	web       *web.Server // nil without HTTP
}

// sourceState is what the daemon knows of one source between polls; it survives reloads.
type sourceState struct {
	mu          sync.Mutex
	src         *config.Source
	entry       cron.EntryID
	schedule    string
	interval    time.Duration
	running     *pollCall
	nextAllowed time.Time // backoff: polls before this are skipped
	poll        pollStatus
	pageTitle   string // the page's own name as last read; the title unless the config sets one
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
	d.metrics = newMetrics(o.Version, o.Commit, gauges{outbox: d.outboxCounts, paused: d.paused})
	if d.now == nil {
		d.now = time.Now
	}
	d.liveClock = time.Now
	if d.wdEvery <= 0 {
		d.wdEvery = 10 * time.Second
	}
	cl := cronLogger{d.log}
	d.cron = cron.New(cron.WithLocation(time.UTC), cron.WithChain(
		// Skip before Recover: in v3.0.1 the other order stops a job forever after one
		// panic.
		cron.SkipIfStillRunning(cl), cron.Recover(cl)))
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
	if _, err := d.cron.AddFunc(fmt.Sprintf("@every %s", d.wdEvery), d.tick); err != nil {
		return fmt.Errorf("schedule watchdog: %w", err)
	}
	if _, err := d.cron.AddFunc("@every 1h", d.prune); err != nil {
		return fmt.Errorf("schedule pruning: %w", err)
	}
	if _, err := d.cron.AddFunc("@every 1m", d.releasePages); err != nil {
		return fmt.Errorf("schedule page release: %w", err)
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
	stopped := d.cron.Stop()
	select {
	case <-stopped.Done():
	case <-time.After(10 * time.Second):
		d.log.Warn("polls still running after 10s; cancelling them")
		cancelPolls()
		<-stopped.Done()
	}
	stopHTTP()
	err := <-httpDone
	<-startupDone
	d.savePollTimes() // after the polls asked through the API, too
	d.stopDelivery()
	return err
}

// restore shows a new source state the poll times saved before this process started.
// The caller holds d.mu.
func (d *Daemon) restore(name string, st *sourceState) {
	t, ok := d.restored[name]
	if !ok {
		return
	}
	st.poll.lastPollAt, st.poll.lastSuccessAt = t.Polled, t.Succeeded
	st.poll.successBeforeRestart = !t.Succeeded.IsZero()
	if !t.Succeeded.IsZero() {
		d.metrics.lastSuccess.WithLabelValues(name).Set(float64(t.Succeeded.Unix()))
	}
}

// savePollTimes saves every source's poll times, once, at a clean shutdown: a poll that
// changes nothing writes nothing, so this is how the next start knows them.
func (d *Daemon) savePollTimes() {
	if !d.polled.Load() {
		return // nothing new since the start
	}
	d.mu.RLock()
	times := make(map[string]archive.PollTimes, len(d.sources))
	for name, st := range d.sources {
		st.mu.Lock()
		if !st.poll.lastPollAt.IsZero() {
			times[name] = archive.PollTimes{Polled: st.poll.lastPollAt, Succeeded: st.poll.lastSuccessAt}
		}
		st.mu.Unlock()
	}
	d.mu.RUnlock()
	if err := d.store.SavePollTimes(times); err != nil {
		d.log.Warn("save poll times", "err", err)
	}
}

// ErrRestartRequired is returned by Reload for a config that changes what only a restart
// can change (listen, database): the old config keeps running, whole.
var ErrRestartRequired = errors.New("needs a restart")

// Reload applies a new, already validated config: sources added, removed or changed keep
// the state of those that stay; web.auth and base_url apply from the next request on. A
// config that changes listen or database is refused whole (ErrRestartRequired), with the
// reason.
func (d *Daemon) Reload(ctx context.Context, cfg *config.Config) error {
	d.notify("RELOADING=1")
	defer d.notify("READY=1")
	if err := restartRequired(d.config(), cfg); err != nil {
		return err
	}
	if err := d.apply(cfg); err != nil {
		return err
	}
	d.mu.RLock()
	srv := d.web
	d.mu.RUnlock()
	if srv != nil {
		srv.Reconfigure(d.webOptions(cfg))
	}
	d.stopDelivery()
	if err := d.startDelivery(ctx); err != nil {
		return err
	}
	d.log.Info("config reloaded", "sources", len(cfg.Sources))
	return nil
}

// restartRequired says why next cannot be applied to a daemon running cur, if it
// cannot: the listener and the archive are opened once, at start.
func restartRequired(cur, next *config.Config) error {
	for _, f := range []struct{ key, cur, next string }{
		{"listen", cur.Listen, next.Listen},
		{"database", cur.Database, next.Database},
	} {
		if f.cur != f.next {
			return fmt.Errorf("%s changed from %q to %q, which %w of the daemon", f.key, f.cur, f.next, ErrRestartRequired)
		}
	}
	return nil
}

// webOptions are the web server's options for cfg.
func (d *Daemon) webOptions(cfg *config.Config) web.Options {
	return web.Options{
		Store: d.store, Daemon: d, BaseURL: cfg.BaseURL, Auth: cfg.Web.Auth, Listen: cfg.Listen,
		Metrics: promhttp.HandlerFor(d.metrics.reg, promhttp.HandlerOpts{}),
		Log:     d.log, Now: d.now, TitleOf: d.title,
	}
}

// apply schedules cfg's sources, replacing what changed.
func (d *Daemon) apply(cfg *config.Config) error {
	client, err := fetch.NewClient(ClientOptions(cfg))
	if err != nil {
		return err
	}
	type planned struct {
		src      *config.Source
		sched    cron.Schedule
		interval time.Duration
	}
	plans := make(map[string]planned, len(cfg.Sources))
	for i := range cfg.Sources {
		src := &cfg.Sources[i]
		s, err := config.ParseSchedule(src.Schedule)
		if err != nil {
			return fmt.Errorf("sources[%d].schedule: %w", i, err)
		}
		iv := interval(s, d.now())
		plans[src.Name] = planned{src, jitter(s, src.Name, iv), iv}
	}

	// The page names remembered for sources new to the daemon, read before the lock.
	var fresh []string
	d.mu.RLock()
	for name := range plans {
		if d.sources[name] == nil {
			fresh = append(fresh, name)
		}
	}
	d.mu.RUnlock()
	pageTitles := d.pageTitles(fresh)

	d.mu.Lock()
	defer d.mu.Unlock()
	old := d.poller
	d.poller = &Poller{Store: d.store, Client: client, OnFirstPoll: cfg.OnFirstPoll, Log: d.log, Now: d.now}
	if old != nil {
		d.poller.inherit(old)
	}
	for name, st := range d.sources {
		if _, ok := plans[name]; !ok {
			d.cron.Remove(st.entry)
			delete(d.sources, name)
		}
	}
	for name, p := range plans {
		st := d.sources[name]
		if st == nil {
			st = &sourceState{pageTitle: pageTitles[name]}
			d.sources[name] = st
			d.restore(name, st)
		}
		st.mu.Lock()
		rescheduled := st.entry == 0 || st.schedule != p.src.Schedule
		st.src, st.interval, st.schedule = p.src, p.interval, p.src.Schedule
		st.mu.Unlock()
		if rescheduled {
			if st.entry != 0 {
				d.cron.Remove(st.entry)
			}
			st.entry = d.cron.Schedule(p.sched, cron.FuncJob(d.job(name)))
		}
	}
	d.cfg = cfg
	return nil
}

// job is the cron job of one source.
func (d *Daemon) job(name string) func() {
	return func() {
		d.mu.RLock()
		st := d.sources[name]
		d.mu.RUnlock()
		if st == nil {
			return
		}
		st.mu.Lock()
		skip := st.src.Paused || st.running != nil
		inBackoff := d.now().Before(st.nextAllowed)
		st.mu.Unlock()
		if skip {
			return
		}
		if inBackoff {
			// Ticks inside a backoff wait are skipped, not queued.
			d.metrics.skippedInBackoff.WithLabelValues(name).Inc()
			return
		}
		d.pollSource(d.pollCtx, st)
	}
}

// pollSource polls st now, or waits for the poll in flight, and returns its outcome.
func (d *Daemon) pollSource(ctx context.Context, st *sourceState) (int, error) {
	st.mu.Lock()
	if c := st.running; c != nil {
		st.mu.Unlock()
		select {
		case <-c.done:
			return c.changes, c.err
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	c := &pollCall{done: make(chan struct{})}
	st.running = c
	src := st.src
	st.mu.Unlock()

	d.mu.RLock()
	p := d.poller
	d.mu.RUnlock()
	out, err := p.Poll(ctx, src)
	c.changes, c.err = out.Changes, err
	d.afterPoll(st, src, out, err)

	st.mu.Lock()
	st.running = nil
	st.mu.Unlock()
	close(c.done)
	return c.changes, c.err
}

// afterPoll keeps the in-memory bookkeeping of a poll: last poll and success live here,
// not in the archive, since a poll that changes nothing writes nothing (they are saved
// once, at shutdown: savePollTimes).
func (d *Daemon) afterPoll(st *sourceState, src *config.Source, out Outcome, err error) {
	now := d.now().UTC()
	d.polled.Store(true)
	st.mu.Lock()
	st.poll.lastPollAt = now
	switch {
	case errors.Is(err, archive.ErrStorage):
		// The archive failed, not the vendor: no backoff, no last_error for the source.
	case err != nil:
		st.poll.lastError = err.Error()
		st.poll.failures++
		wait := fetch.Backoff(st.interval, st.poll.failures, nil)
		if ra, ok := fetch.RetryAfter(err); ok {
			wait = ra // the client caps it (6 h)
		}
		st.nextAllowed = now.Add(wait)
	default:
		st.poll.lastSuccessAt, st.poll.lastError, st.poll.failures = now, "", 0
		st.poll.successBeforeRestart = false
		st.nextAllowed = time.Time{}
		if out.PageTitle != "" {
			st.pageTitle = out.PageTitle
		}
	}
	failures := st.poll.failures
	st.mu.Unlock()

	m := d.metrics
	switch {
	case errors.Is(err, archive.ErrStorage):
		m.polls.WithLabelValues(src.Name, "archive_error").Inc()
	case err != nil:
		m.polls.WithLabelValues(src.Name, "failed").Inc()
	case out.Changes > 0:
		m.polls.WithLabelValues(src.Name, "ok").Inc()
	default:
		m.polls.WithLabelValues(src.Name, "unchanged").Inc()
	}
	m.failures.WithLabelValues(src.Name).Set(float64(failures))
	if err == nil {
		m.lastSuccess.WithLabelValues(src.Name).Set(float64(now.Unix()))
	}
	if out.Changes > 0 {
		m.changes.WithLabelValues(src.Name).Add(float64(out.Changes))
		d.refreshOpen(src.Name)
	}
	// Any outbox row a poll wrote wakes delivery: a recovery's "readable again" is
	// written by a poll that is otherwise unchanged (even a 304), and must not wait for
	// delivery's idle sweep.
	if out.Messages > 0 || out.Wrote || err != nil {
		d.wakeDelivery()
	}
}

// Sources reports every configured source with its in-memory poll state.
func (d *Daemon) Sources() []web.SourceStatus {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]web.SourceStatus, 0, len(d.cfg.Sources))
	for i := range d.cfg.Sources {
		st := d.sources[d.cfg.Sources[i].Name]
		st.mu.Lock()
		out = append(out, st.webStatus())
		st.mu.Unlock()
	}
	return out
}

// webStatus is the source as the web server shows it: its config and poll state. The
// caller holds st.mu.
func (st *sourceState) webStatus() web.SourceStatus {
	src := st.src
	return web.SourceStatus{
		Name: src.Name, Title: titleOf(src, st.pageTitle), URL: src.URL, Kind: src.Kind, Paused: src.Paused,
		LastPollAt: st.poll.lastPollAt, LastSuccessAt: st.poll.lastSuccessAt,
		LastError: st.poll.lastError, ConsecutiveFailures: st.poll.failures,
		LastSuccessBeforeRestart: st.poll.successBeforeRestart,
	}
}

// PollNow polls a source now, or waits for its poll in flight, and returns once the result
// is archived. Delivery goes on in the background.
func (d *Daemon) PollNow(ctx context.Context, source string) (int, error) {
	d.mu.RLock()
	st := d.sources[source]
	d.mu.RUnlock()
	if st == nil {
		return 0, web.ErrUnknownSource
	}
	return d.pollSource(ctx, st)
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

func (d *Daemon) refreshGauges() {
	d.mu.RLock()
	names := make([]string, 0, len(d.sources))
	for n := range d.sources {
		names = append(names, n)
	}
	d.mu.RUnlock()
	for i, n := range names {
		d.refreshOpen(n)
		if (i+1)%releaseEvery == 0 {
			d.releasePages() // a scan of every source's incidents: keep its peak RSS small
		}
	}
}

func (d *Daemon) refreshOpen(source string) {
	counts, err := d.store.OpenCounts(source)
	if err != nil {
		d.log.Warn("count open incidents", "source", source, "err", err)
		return
	}
	for _, imp := range []model.Impact{model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical, model.ImpactMaintenance, model.ImpactUnknown} {
		d.metrics.openIncidents.WithLabelValues(source, string(imp)).Set(float64(counts[imp]))
	}
}

// pauser is a Delivery that can be paused by an auth error (notify.Deliverer).
type pauser interface {
	Paused() (bool, string)
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

// outboxCounts counts the undelivered messages by state, for each scrape of /metrics.
func (d *Daemon) outboxCounts() (map[model.MessageState]int, error) {
	counts, err := d.store.OutboxCounts()
	if err != nil {
		d.log.Warn("count outbox", "err", err)
	}
	return counts, err
}

func (d *Daemon) startDelivery(ctx context.Context) error {
	if d.newDeliv == nil {
		return nil
	}
	deliv, err := d.newDeliv(d.config(), func(result string) {
		d.metrics.notifications.WithLabelValues(result).Inc()
	})
	if err != nil {
		return fmt.Errorf("delivery: %w", err)
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

// titleOf is a source's display title: the config's title, else the page's own name
// once read, else the source's name.
func titleOf(src *config.Source, pageTitle string) string {
	if src.Title != "" {
		return src.Title
	}
	if pageTitle != "" {
		return pageTitle
	}
	return src.Name
}

// title is a source's display title by name (see titleOf); an unknown source is its name.
func (d *Daemon) title(source string) string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	st := d.sources[source]
	if st == nil {
		return source
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return titleOf(st.src, st.pageTitle)
}

// pageTitles reads the page names remembered in the archive for sources; a source whose
// state cannot be read has none (its name stands in until its next poll).
func (d *Daemon) pageTitles(sources []string) map[string]string {
	if d.store == nil || len(sources) == 0 {
		return nil
	}
	states, err := d.store.PollStates(sources)
	if err != nil {
		d.log.Warn("read remembered page names", "err", err)
		return nil
	}
	out := make(map[string]string, len(states))
	for name, ps := range states {
		out[name] = ps.Fetch.PageTitle()
	}
	return out
}

// ClientOptions are the fetch client's options from a config. The client's timeout is the
// longest of any source's: each poll narrows it with its own context.
func ClientOptions(cfg *config.Config) fetch.ClientOptions {
	timeout := cfg.Defaults.Timeout
	for i := range cfg.Sources {
		timeout = max(timeout, cfg.Sources[i].Timeout)
	}
	return fetch.ClientOptions{
		UserAgent:   cfg.HTTP.UserAgent,
		MaxBody:     cfg.HTTP.MaxBody,
		Timeout:     timeout,
		Concurrency: cfg.HTTP.Concurrency,
		PerHost:     cfg.HTTP.PerHost,
		CAFile:      cfg.HTTP.CAFile,
	}
}

// interval is the time between two consecutive runs of s.
func interval(s cron.Schedule, now time.Time) time.Duration {
	a := s.Next(now)
	return s.Next(a).Sub(a)
}

// jittered shifts a cron schedule by a fixed offset, so sources sharing a spec never fire
// in the same second (cron has no jitter of its own).
type jittered struct {
	cron.Schedule
	offset time.Duration
}

// Next is the inner schedule's next run after t-offset, shifted by offset: always after t.
func (j jittered) Next(t time.Time) time.Time {
	return j.Schedule.Next(t.Add(-j.offset)).Add(j.offset)
}

// phased is an @every schedule pinned to a fixed phase: runs at epoch + offset + k×every.
// cron's ConstantDelaySchedule is "every after the last run", so shifting it as jittered
// does cancels out and every source would fire in the same second.
type phased struct {
	every, offset time.Duration
}

// Next is the first run of the phase strictly after t.
func (p phased) Next(t time.Time) time.Time {
	since := t.Sub(time.Unix(0, 0).Add(p.offset))
	k := since/p.every + 1
	if since < 0 {
		k = 0
	}
	return time.Unix(0, 0).Add(p.offset + k*p.every).In(t.Location())
}

// jitter gives name a fixed offset in [0, min(interval/2, 60s)), from a hash of the name so
// it stays put across restarts. Offsets are whole seconds: the sources that share a second
// fire in one wake of the scheduler, so 1,000 sources on @every 2m wake the process about
// once a second rather than 8 times (each wake of an idle Go process costs more CPU in
// the runtime's scheduler and sysmon than a 304 poll itself).
func jitter(s cron.Schedule, name string, iv time.Duration) cron.Schedule {
	h := fnv.New64a()
	h.Write([]byte(name))
	seconds := func(span time.Duration) time.Duration {
		return time.Duration(h.Sum64()%uint64(span/time.Second)) * time.Second
	}
	if cs, ok := s.(cron.ConstantDelaySchedule); ok && cs.Delay >= 2*time.Second {
		// @every: spread the sources over the whole interval.
		return phased{every: cs.Delay, offset: seconds(cs.Delay)}
	}
	span := min(iv/2, time.Minute)
	if span <= time.Second {
		return s
	}
	return jittered{s, seconds(span)}
}

// cronLogger adapts slog to cron's logger.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug("cron: "+msg, kv...) }
func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, "err", err)...)
}

var _ web.Daemon = (*Daemon)(nil)

// prune deletes raw snapshots older than retention.raw_snapshots; versions are kept.
func (d *Daemon) prune() {
	keep := d.config().Retention.RawSnapshots
	if keep <= 0 {
		return
	}
	snaps, bodies, err := d.store.PruneSnapshots(d.now().Add(-keep))
	if err != nil {
		d.log.Error("prune raw snapshots", "err", err)
		return
	}
	if snaps > 0 {
		d.log.Info("pruned raw snapshots", "snapshots", snaps, "bodies", bodies, "older_than", keep)
	}
}

// releaseEvery is how many sources the start-up count reads between two releases of the
// archive pages it mapped, as the archive's own scans do.
const releaseEvery = 64

// releasePages unmaps the archive pages read since the last call, so the daemon's RSS is
// its own memory plus what the last minute's polls and pages read, not every page any
// scan ever touched (archive.Store.ReleasePages; the budget is 150 MB at 1,000 sources).
func (d *Daemon) releasePages() {
	if err := d.store.ReleasePages(); err != nil {
		d.log.Warn("release archive pages", "err", err)
	}
}

// OutboxChanged hears of messages retried or dropped through the API: delivery looks at
// the queue again at once.
func (d *Daemon) OutboxChanged() {
	d.wakeDelivery()
}

var _ web.OutboxChanged = (*Daemon)(nil)
