package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/daemon"
	"github.com/statuswatch/statuswatch/internal/fetch"
)

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

func runPoll(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "poll", "", "Polls every source (or those named) once, archives what changed, delivers the outbox and exits.\nExit status: 0 all fetched and delivered, 1 bad config or archive, 3 some source failed or a notification is still queued.")
	cfgPath := configFlag(fs)
	var only stringsFlag
	fs.Var(&only, "source", "poll only this source (repeatable)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "watcher poll: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg, ok := loadConfig(e, *cfgPath)
	if !ok {
		return exitError
	}
	sources, err := selectSources(cfg, only)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return exitUsage
	}
	store, err := archive.Open(cfg.Database, archive.Options{})
	if errors.Is(err, archive.ErrLocked) {
		return pollThroughDaemon(ctx, e, cfg, sources, err)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return exitError
	}
	defer store.Close()
	client, err := fetch.NewClient(daemon.ClientOptions(cfg))
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return exitError
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: logLevel()}))
	p := &daemon.Poller{Store: store, Client: client, OnFirstPoll: cfg.OnFirstPoll, Log: log}

	code := exitOK
	for _, r := range p.Round(ctx, sources, cfg.HTTP.Concurrency) {
		if r.Err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", r.Source, r.Err)
			code = exitPartial
		}
	}
	d, err := newDeliverer(e, store, cfg, log, nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return exitError
	}
	_, queued, err := d.Drain(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "delivery: %v\n", err)
	}
	if queued > 0 {
		code = exitPartial
	}
	return code
}

// pollThroughDaemon asks the running daemon, which holds the archive, to poll each source;
// it delivers what they record itself.
func pollThroughDaemon(ctx context.Context, e *env, cfg *config.Config, sources []*config.Source, lockErr error) int {
	api, err := newAPIClient(cfg)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v; %v\n", lockErr, err)
		return exitError
	}
	code := exitOK
	for _, src := range sources {
		n, err := api.Poll(ctx, src.Name)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", src.Name, err)
			code = exitPartial
			continue
		}
		fmt.Fprintf(e.stderr, "%s: polled by the daemon: %d incidents changed\n", src.Name, n)
	}
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

// titles gives a source's display name: its title, else its name.
func titles(cfg *config.Config) func(string) string {
	return func(name string) string {
		if src := cfg.Source(name); src != nil && src.Title != "" {
			return src.Title
		}
		return name
	}
}

// logLevel is Warn unless WATCHER_LOG=debug|info asks for more: one-shot commands keep
// standard error for what went wrong.
func logLevel() slog.Level {
	switch os.Getenv("WATCHER_LOG") {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	}
	return slog.LevelWarn
}
