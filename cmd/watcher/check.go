package main

import (
	"context"
	"fmt"
)

func runCheck(_ context.Context, e *env, args []string) int {
	fs := newFlags(e, "check", "", "Validates the config: every key, URL, duration and cron spec.")
	cfgPath := configFlag(fs)
	probe := fs.Bool("probe", false, "also detect each source's provider (not implemented yet)")
	slack := fs.Bool("slack", false, "also post a test message to Slack (not implemented yet)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, ok := loadConfig(e, *cfgPath)
	if !ok {
		return exitError
	}
	fmt.Fprintf(e.stdout, "config OK: %d sources, archive %s\n", len(cfg.Sources), cfg.Database)
	if *probe || *slack {
		fmt.Fprintln(e.stderr, "watcher check: -probe and -slack are not implemented yet")
		return exitUsage
	}
	return exitOK
}
