package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fetch"
)

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
	if d.newDeliv != nil {
		// A receiver this build cannot deliver to refuses the config before anything
		// changes: the old delivery keeps running.
		if _, err := d.newDeliv(cfg, func(string, string) {}); err != nil {
			return fmt.Errorf("delivery: %w", err)
		}
	}
	if err := d.apply(cfg); err != nil {
		return err
	}
	d.refreshComponentLists()
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

// apply schedules cfg's sources, replacing what changed.
func (d *Daemon) apply(cfg *config.Config) error {
	client, err := fetch.NewClient(ClientOptions(cfg))
	if err != nil {
		return err
	}
	type planned struct {
		src      *config.Source
		sched    cron.Schedule // jittered, without the follow-ups
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
	d.poller = &Poller{Store: d.store, Client: client, OnFirstPoll: cfg.OnFirstPoll, Log: d.log, Now: d.now}
	if d.slots == nil || cap(d.slots) != cfg.HTTP.Concurrency {
		d.slots = make(chan struct{}, max(cfg.HTTP.Concurrency, 1))
	}
	for name, st := range d.sources {
		if _, ok := plans[name]; !ok {
			d.cron.Remove(st.entry)
			delete(d.sources, name)
			d.forgetComponents(name)
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
		rescheduled := st.entry == 0 || st.schedule != p.src.Schedule || st.openEvery != p.src.OpenInterval
		st.src, st.interval, st.schedule, st.openEvery = p.src, p.interval, p.src.Schedule, p.src.OpenInterval
		st.mu.Unlock()
		st.remindAt.Store(remindUnknown) // its lead or filters may have changed
		if rescheduled {
			st.sched = withFollowUps(p.sched, name, p.src.OpenInterval, &st.open)
			d.reschedule(name, st)
		}
	}
	d.cfg = cfg
	// The routes of the messages written from now on: the archive writes a row per
	// receiver they name.
	d.store.SetRoute(cfg.Route)
	return nil
}

// Connection reuse between polls (ClientOptions).
const (
	// idleMargin is added to the longest poll interval to make the idle timeout: a
	// connection must outlive the wait for its source's next poll, which starts a little
	// late or takes a while.
	idleMargin = 30 * time.Second
	// maxIdleConns bounds the connections kept idle over all hosts. An idle HTTPS
	// connection holds its TLS and HTTP buffers and a reading goroutine (tens of KB):
	// beyond this many hosts the others' connections are closed after their poll, and
	// their next poll resumes the TLS session from the cache instead of a full handshake.
	maxIdleConns = 1024
)

// ClientOptions are the fetch client's options from a config. The client's timeout is the
// longest of any source's: each poll narrows it with its own context. Idle connections
// are kept for the longest of the sources' intervals (plus a margin), one per host up to
// maxIdleConns, and the TLS session cache holds one session per host.
func ClientOptions(cfg *config.Config) fetch.ClientOptions {
	timeout := cfg.Defaults.Timeout
	var longest time.Duration
	hosts := map[string]bool{}
	now := time.Now()
	for i := range cfg.Sources {
		src := &cfg.Sources[i]
		timeout = max(timeout, src.Timeout)
		if s, err := config.ParseSchedule(src.Schedule); err == nil && !src.Paused {
			longest = max(longest, interval(s, now))
		}
		if u, err := url.Parse(src.URL); err == nil {
			hosts[u.Host] = true
		}
	}
	o := fetch.ClientOptions{
		UserAgent:   cfg.HTTP.UserAgent,
		MaxBody:     cfg.HTTP.MaxBody,
		Timeout:     timeout,
		Concurrency: cfg.HTTP.Concurrency,
		PerHost:     cfg.HTTP.PerHost,
		CAFile:      cfg.HTTP.CAFile,
		PostQuantum: cfg.HTTP.PostQuantum,
		Sessions:    max(len(hosts), 1),
		MaxIdle:     min(max(len(hosts), 2*cfg.HTTP.Concurrency), maxIdleConns),
	}
	if longest > 0 {
		o.IdleTimeout = longest + idleMargin // the client caps it
	}
	return o
}
