package main

import (
	"log/slog"
	"syscall"

	"github.com/statuswatch/statuswatch/internal/config"
)

// rlimitCalls are the system calls raiseFileLimit makes; a variable so tests can answer.
var rlimitCalls = struct {
	get, set func(*syscall.Rlimit) error
}{
	get: func(r *syscall.Rlimit) error { return syscall.Getrlimit(syscall.RLIMIT_NOFILE, r) },
	set: func(r *syscall.Rlimit) error { return syscall.Setrlimit(syscall.RLIMIT_NOFILE, r) },
}

// raiseFileLimit raises the soft limit on open files to the hard limit and returns the
// soft limit in force. The daemon keeps a connection per polled host between polls (up
// to 1,024 idle, plus those in flight) besides the UI's clients and the archive, more
// than the usual soft limit of 1,024 at 10,000 sources. Go's runtime raises it too at
// start on Linux; this makes it explicit, and says so when the result is too low for cfg.
// Under the systemd unit the call is filtered (EPERM) and LimitNOFILE= sets both limits.
func raiseFileLimit(log *slog.Logger, cfg *config.Config) uint64 {
	var r syscall.Rlimit
	if err := rlimitCalls.get(&r); err != nil {
		log.Debug("read the open-file limit", "err", err)
		return 0
	}
	if r.Cur < r.Max {
		want := syscall.Rlimit{Cur: r.Max, Max: r.Max}
		if err := rlimitCalls.set(&want); err != nil {
			log.Debug("raise the open-file limit", "from", r.Cur, "to", r.Max, "err", err)
		} else {
			r.Cur = r.Max
		}
	}
	if need := filesNeeded(cfg); r.Cur < need {
		log.Warn("the open-file limit is low for this many sources: raise it (LimitNOFILE= in the unit, ulimit -n)", "limit", r.Cur, "sources", len(cfg.Sources), "want", need)
	}
	return r.Cur
}

// filesNeeded is a generous count of the files the daemon may hold open for cfg: a
// connection per source (the idle ones are capped at 1,024, but a round starts many at
// once), those in flight, and a reserve for the UI, the archive and the logs.
func filesNeeded(cfg *config.Config) uint64 {
	return uint64(min(len(cfg.Sources), 1024) + 2*cfg.HTTP.Concurrency + 256)
}
