package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	sddaemon "github.com/coreos/go-systemd/v22/daemon"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/daemon"
)

func runRun(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "run", "", "Runs the daemon: schedules and polls every source, archives, notifies and serves the UI and API on listen.\nSIGHUP reloads the config; SIGTERM or SIGINT stop it.")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	// SIGHUP must be caught before READY=1, or a reload sent right after start kills us.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	cfg, ok := fs.loadConfig()
	if !ok {
		return exitError
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: daemonLogLevel()}))
	for _, w := range cfg.Warnings {
		log.Warn("config: " + w.Error())
	}
	raiseFileLimit(log, cfg)
	servePprof(log)
	built := false
	store, err := archive.Open(cfg.Database, archive.Options{Progress: func(indexed int) {
		built = true
		// An archive of an older layout has its search index built before READY=1: a
		// large one takes longer than TimeoutStartSec, so each part extends it.
		log.Info("building the search index of the archived versions", "indexed", indexed)
		sddaemon.SdNotify(false, fmt.Sprintf("EXTEND_TIMEOUT_USEC=%d\nSTATUS=building the search index: %d versions indexed", 60*time.Second/time.Microsecond, indexed))
	}})
	if err != nil {
		return e.fail(err)
	}
	defer store.Close() // last, after the daemon has stopped
	if built {
		sddaemon.SdNotify(false, "STATUS=") // an empty status clears the build's
	}

	wd := 10 * time.Second
	if every, err := sddaemon.SdWatchdogEnabled(false); err == nil && every > 0 {
		wd = every / 2
	}
	d, err := daemon.New(daemon.Options{
		Config:           cfg,
		Store:            store,
		Log:              log,
		NewDelivery:      newDelivery(e, store, log),
		Notify:           func(state string) { sddaemon.SdNotify(false, state) },
		WatchdogInterval: wd,
		Version:          version,
		Commit:           commit,
	})
	if err != nil {
		return e.fail(err)
	}
	done := make(chan error, 1)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go daemon.LimitMemory(runCtx, log) // the GC's headroom follows the live heap
	go func() { done <- d.Run(runCtx) }()
	for {
		select {
		case <-hup:
			next, err := config.Load(fs.configFile())
			if err != nil {
				log.Error("reload refused: the old config keeps running", "err", err)
				continue
			}
			if err := d.Reload(runCtx, next); errors.Is(err, daemon.ErrRestartRequired) {
				log.Error("reload refused: the old config keeps running", "err", err)
			} else if err != nil {
				log.Error("reload failed", "err", err)
			}
		case err := <-done:
			if err != nil {
				return e.fail(err)
			}
			return exitOK
		}
	}
}

func daemonLogLevel() slog.Level {
	if os.Getenv("WATCHER_LOG") == "debug" {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}
