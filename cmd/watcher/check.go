package main

import (
	"context"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/slack"
)

func runCheck(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "check", "", "Validates the config: every key, URL, duration and cron spec, and reports every error it finds,\none line each, sorted by line; warns about a config without sources and secret files others can read.\n-probe detects each source's provider; -slack posts a test message to every Slack destination;\n-receivers sends one to each receiver; -archive checks the archive file's consistency.")
	probe := fs.Bool("probe", false, "also detect each source's provider")
	slackFlag := fs.Bool("slack", false, "also post a test message to each Slack channel and webhook the sources use")
	receiversFlag := fs.Bool("receivers", false, "also send a test message to each receiver (receivers:)")
	archiveFlag := fs.Bool("archive", false, "also run a consistency check of the archive file (read-only; stop the daemon first, or check a backup)")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		// `watcher check config.yaml` would otherwise check the default config instead.
		fmt.Fprintf(e.stderr, "watcher check: unexpected argument %q (name the config with -config %s)\n", fs.Arg(0), fs.Arg(0))
		return exitUsage
	}
	cfg, ok := fs.loadConfig()
	if !ok {
		return exitError
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(e.stderr, "warning: %v\n", w)
	}
	line := fmt.Sprintf("config OK: %s, archive %s", plural(len(cfg.Sources), "source"), cfg.Database)
	if n := len(cfg.Warnings); n > 0 {
		line += ", " + plural(n, "warning")
	}
	fmt.Fprintln(e.stdout, line)
	code := exitOK
	if *probe {
		if c := checkProbe(ctx, e, cfg); c != exitOK {
			code = c
		}
	}
	if *slackFlag {
		if c := checkSlack(ctx, e, cfg); c != exitOK {
			code = c
		}
	}
	if *receiversFlag {
		if c := checkReceivers(ctx, e, cfg); c != exitOK {
			code = c
		}
	}
	if *archiveFlag {
		if c := checkArchive(e, cfg.Database); c != exitOK {
			code = c
		}
	}
	return code
}

// checkArchive runs the archive file's consistency check: one line if it is sound, else
// a line per problem and one saying what to do.
func checkArchive(e *env, path string) int {
	problems, layout, err := archive.Check(path, 0)
	if err != nil {
		return e.fail(err)
	}
	if len(problems) == 0 {
		fmt.Fprintf(e.stdout, "archive OK: %s (layout %d)\n", path, layout)
		return exitOK
	}
	for _, p := range problems {
		fmt.Fprintf(e.stderr, "archive %s: %s\n", path, p)
	}
	fmt.Fprintf(e.stderr, "error: archive %s is damaged: restore it from a backup (watcher backup, GET /api/v1/backup)\n", path)
	return exitError
}

// checkSlack posts one test message to each distinct destination the sources route to.
func checkSlack(ctx context.Context, e *env, cfg *config.Config) int {
	route := slackRoute(cfg)
	if !slackRoutesAny(cfg, route) {
		fmt.Fprintln(e.stderr, "error: no Slack configured (slack.token with a channel, or a webhook_url): notifications go to standard output")
		return exitError
	}
	s, err := slack.New(slack.Options{Token: cfg.Slack.Token.Value(), APIURL: cfg.Slack.APIURL, Route: route})
	if err != nil {
		return e.fail(err)
	}
	seen := map[string]bool{}
	title := titles(cfg, nil)
	code := exitOK
	for i := range cfg.Sources {
		src := &cfg.Sources[i]
		ch, hook := route(src.Name)
		key := ch + "\x00" + hook
		if (ch == "" && hook == "") || seen[key] {
			continue
		}
		seen[key] = true
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		where, err := s.Check(cctx, src.Name, fmt.Sprintf("statuswatch test message: notifications for %s arrive here.", title(src.Name)))
		cancel()
		if err != nil {
			fmt.Fprintf(e.stderr, "slack %s: %v\n", where, err)
			code = exitError
			continue
		}
		fmt.Fprintf(e.stdout, "slack %s: test message posted\n", where)
	}
	return code
}

// checkReceivers sends one test message to each receiver of the config.
func checkReceivers(ctx context.Context, e *env, cfg *config.Config) int {
	if len(cfg.Receivers) == 0 {
		fmt.Fprintln(e.stderr, "error: no receivers configured (receivers:)")
		return exitError
	}
	code := exitOK
	for i := range cfg.Receivers {
		r := &cfg.Receivers[i]
		n, _, err := newReceiver(r, cfg, nil)
		if err != nil {
			fmt.Fprintf(e.stderr, "receiver %s: %v\n", r.Name, err)
			code = exitError
			continue
		}
		c, ok := n.(notify.Checker)
		if !ok {
			fmt.Fprintf(e.stderr, "receiver %s: a %s receiver cannot send a test message\n", r.Name, r.Kind)
			code = exitError
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = c.Check(cctx, fmt.Sprintf("statuswatch test message: notifications routed to %s arrive here.", r.Name))
		cancel()
		if err != nil {
			fmt.Fprintf(e.stderr, "receiver %s: %v\n", r.Name, err)
			code = exitError
			continue
		}
		fmt.Fprintf(e.stdout, "receiver %s (%s): test message sent\n", r.Name, r.Kind)
	}
	return code
}
