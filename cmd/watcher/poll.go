package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/daemon"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// defaultDeliverTimeout is how long `watcher poll` spends delivering, waits and sends
// included: long enough for a healthy Slack to take a handful of messages at its pace of
// one a second per channel, short enough that a failing one (500s, backing off 2 s, 4 s,
// 8 s…) does not hold a cron job or a shell for long. What is left stays queued for the
// next run or the daemon.
const defaultDeliverTimeout = 5 * time.Second

func runPoll(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "poll", "", "Polls every source (or those named) once, archives what changed, delivers the outbox and exits.\n"+
		"Each failure is one line on standard error, and a summary closes the run. Delivery gets -deliver-timeout,\n"+
		"waits for Slack's pacing and backoff included; what it leaves undelivered stays queued for the next run or the daemon.\n"+
		"Exit status: 0 all fetched and delivered, 1 bad config or archive, 3 some source failed or a notification is still queued.")
	var only stringsFlag
	fs.Var(&only, "source", "poll only this source (repeatable)")
	deliverTimeout := fs.Duration("deliver-timeout", defaultDeliverTimeout, "time given to delivering notifications, retries and waits included; the rest stays queued")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "watcher poll: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *deliverTimeout <= 0 {
		fmt.Fprintf(e.stderr, "watcher poll: -deliver-timeout must be above 0, found %s\n", *deliverTimeout)
		return exitUsage
	}
	cfg, ok := fs.loadConfig()
	if !ok {
		return exitError
	}
	sources, err := selectSources(cfg, only)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return exitUsage
	}
	store, api, err := openArchive(cfg, archive.Options{})
	if err != nil {
		return e.fail(err)
	}
	if api != nil {
		return pollThroughDaemon(ctx, e, api, sources)
	}
	defer store.Close()
	store.SetRoute(cfg.Route)
	client, err := fetch.NewClient(daemon.ClientOptions(cfg))
	if err != nil {
		return e.fail(err)
	}
	// The round's results and Drain's errors carry every failure, and poll prints each
	// once, as a plain line: the poller's "poll failed" and the delivery's per-send log
	// lines would say it again. WATCHER_LOG=warn|info|debug shows them.
	level, verbose := logLevel()
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	p := &daemon.Poller{Store: store, Client: client, OnFirstPoll: cfg.OnFirstPoll, Log: log}

	code := exitOK
	failed := 0
	for i, r := range p.Round(ctx, sources, cfg.HTTP.Concurrency) {
		if r.Err != nil {
			fmt.Fprintf(e.stderr, "%s: %s\n", r.Source, oneLine(r.Err.Error()))
			failed++
			code = exitPartial
			continue
		}
		// The reminders due now, as the daemon writes them after a poll: a run from
		// cron gets them too.
		if _, _, err := store.Remind(r.Source, sources[i].MaintenanceReminder, time.Now().UTC(), daemon.Filter(sources[i])); err != nil {
			fmt.Fprintf(e.stderr, "%s: maintenance reminder: %s\n", r.Source, oneLine(err.Error()))
			code = exitPartial
		}
	}
	deliveryLog := slog.New(slog.DiscardHandler)
	if verbose {
		deliveryLog = log
	}
	d, err := newDeliverer(e, store, cfg, deliveryLog, nil)
	if err != nil {
		return e.fail(err)
	}
	sent, queued := deliver(ctx, e, d, *deliverTimeout)
	if queued > 0 {
		code = exitPartial
	}
	summary := fmt.Sprintf("%d of %s read, %d failed, %s delivered", len(sources)-failed, plural(len(sources), "source"), failed, plural(sent, "notification"))
	if queued > 0 {
		summary += fmt.Sprintf(", %d still queued for the next run or the daemon (delivery had -deliver-timeout %s)", queued, *deliverTimeout)
	}
	fmt.Fprintln(e.stderr, summary)
	return code
}

// deliver drains the outbox within budget: Drain waits for pacing and backoff only while
// the waits fit in it, and the deadline stops a send still in flight when it runs out
// (such a message stays queued and is sent again by the next run). Each error of a
// message left undelivered is printed on a line of its own.
func deliver(ctx context.Context, e *env, d *notify.Set, budget time.Duration) (sent, queued int) {
	dctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	for _, r := range d.Deliverers {
		r.MaxWait = budget
	}
	sent, queued, err := d.Drain(dctx)
	timedOut := errors.Is(dctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	for _, err := range flatten(err) {
		if timedOut && errors.Is(err, context.DeadlineExceeded) {
			continue // said below, with what to do
		}
		fmt.Fprintf(e.stderr, "delivery: %s\n", oneLine(err.Error()))
	}
	return sent, queued
}

// flatten lists the errors an errors.Join holds, each on its own.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// pollThroughDaemon asks the running daemon, which holds the archive, to poll each source;
// it delivers what they record itself.
func pollThroughDaemon(ctx context.Context, e *env, api *apiClient, sources []*config.Source) int {
	code := exitOK
	failed := 0
	for _, src := range sources {
		n, err := api.Poll(ctx, src.Name)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: %s\n", src.Name, oneLine(err.Error()))
			failed++
			code = exitPartial
			continue
		}
		fmt.Fprintf(e.stderr, "%s: polled by the daemon: %s changed\n", src.Name, plural(n, "incident"))
	}
	fmt.Fprintf(e.stderr, "%d of %s read by the daemon, %d failed; the daemon delivers the notifications\n", len(sources)-failed, plural(len(sources), "source"), failed)
	return code
}

// selectSources returns the configured sources, or only those named.
func selectSources(cfg *config.Config, names []string) ([]*config.Source, error) {
	if len(names) == 0 {
		out := make([]*config.Source, 0, len(cfg.Sources))
		for i := range cfg.Sources {
			out = append(out, &cfg.Sources[i])
		}
		return out, nil
	}
	var out []*config.Source
	for _, n := range names {
		src := cfg.Source(n)
		if src == nil {
			return nil, fmt.Errorf("no source named %q in the config", n)
		}
		out = append(out, src)
	}
	return out, nil
}

// titles gives a source's display name: its title, else the page's own name as the
// archive remembers it (none when store is nil), else its name.
func titles(cfg *config.Config, store *archive.Store) func(string) string {
	// By name in a map: correlation asks for every source's title (cfg.Source is a walk
	// over every source).
	set := make(map[string]string, len(cfg.Sources))
	for i := range cfg.Sources {
		if src := &cfg.Sources[i]; src.Title != "" {
			set[src.Name] = src.Title
		}
	}
	return func(name string) string {
		if t := set[name]; t != "" {
			return t
		}
		if store != nil {
			if ps, err := store.PollState(name); err == nil && ps.Fetch.PageTitle() != "" {
				return ps.Fetch.PageTitle()
			}
		}
		return name
	}
}

// logLevel is Error unless WATCHER_LOG=debug|info|warn asks for more (verbose): one-shot
// commands keep standard error for what went wrong, each thing once.
func logLevel() (level slog.Level, verbose bool) {
	switch os.Getenv("WATCHER_LOG") {
	case "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn":
		return slog.LevelWarn, true
	}
	return slog.LevelError, false
}
