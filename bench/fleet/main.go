// Command fleet is the fleet benchmark of docs/design.md §8 and issue 7: it builds the watcher
// binary, serves N fake Statuspage pages on 127.0.0.1 (about 200 KB of incidents.json
// each, strong ETags, real 304s) and measures the binary as a child process:
//
//   - a cold and a warm `watcher poll` round over -sources pages (CPU = user+sys from
//     rusage, wall, peak RSS), and with -urlwatch the same rounds of urlwatch (Debian
//     package, installed with apt-get when missing) on the same URLs, alternating the two;
//   - -unchanged rounds in which nothing changed: the archive must not grow by one byte;
//   - -rounds rounds in which -changes pages post a new update: archive bytes per version;
//   - `watcher run` over -daemon-sources pages on -schedule for -duration, with -changes
//     pages changing per interval: CPU per poll, % of one core, peak RSS (VmHWM), polls
//     per second counted from the pages' request logs.
//
// Every figure is the median of -runs runs. Progress goes to standard error, the results
// as markdown to standard output. All traffic stays on 127.0.0.1.
//
//	go run ./bench/fleet -urlwatch > fleet.md
//	go run ./bench/fleet -quick          # a smoke test in a few seconds
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// options are the benchmark's parameters (the flags).
type options struct {
	Sources       int           // pages in the poll rounds
	DaemonSources int           // pages the daemon watches
	Rounds        int           // rounds with changes
	Changes       int           // pages changing per round (and per daemon interval)
	Unchanged     int           // rounds with nothing changed
	Runs          int           // repetitions; figures are medians
	Concurrency   int           // http.concurrency
	Duration      time.Duration // daemon phase per run; 0 skips it
	Schedule      string        // the daemon's schedule
	Urlwatch      bool          // run urlwatch side by side
	Keep          bool          // keep the temp directory
	Watcher       string        // a watcher binary to measure instead of building one
	Components    int           // components each page's summary.json lists (0: the one default)
	TLS           bool          // serve every page over HTTPS from its own loopback address
	ServerIdle    time.Duration // the pages' servers' idle timeout (0: 2 minutes)
	DaemonCold    bool          // the daemon starts on an empty archive: its first round is cold
	HeapDir       string        // write the daemon's heap profile at the end of each run here
	Latency       bool          // the daemon posts to a fake Slack; time vendor change → Slack
	DaemonEnv     []string      // KEY=VALUE added to the daemon's environment (GOMEMLIMIT=…)
	Archive       string        // the daemon's prefilled archive, filled once and copied per run
}

func defaults() options {
	return options{
		Sources: 500, DaemonSources: 1000, Rounds: 50, Changes: 10, Unchanged: 20, Runs: 5,
		Concurrency: 32, Duration: 60 * time.Second, Schedule: "@every 10s",
	}
}

// quick are the sizes of -quick, a smoke test.
func quick() options {
	return options{
		Sources: 5, DaemonSources: 5, Rounds: 2, Changes: 1, Unchanged: 2, Runs: 1,
		Concurrency: 32, Duration: 3 * time.Second, Schedule: "@every 1s",
	}
}

func main() {
	o := defaults()
	fs := flag.NewFlagSet("fleet", flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./bench/fleet [flags] > results.md\n\nThe fleet benchmark of docs/design.md §8: watcher (and urlwatch with -urlwatch) against N local Statuspage pages.\nProgress on standard error, results as markdown on standard output.\n\nflags:")
		fs.PrintDefaults()
	}
	fs.IntVar(&o.Sources, "sources", o.Sources, "pages polled in the poll rounds")
	fs.IntVar(&o.DaemonSources, "daemon-sources", o.DaemonSources, "pages the daemon watches")
	fs.IntVar(&o.Rounds, "rounds", o.Rounds, "rounds with -changes changed pages each (archive bytes per version)")
	fs.IntVar(&o.Changes, "changes", o.Changes, "pages posting a new update per round, and per daemon interval")
	fs.IntVar(&o.Unchanged, "unchanged", o.Unchanged, "rounds with nothing changed (the archive must not grow)")
	fs.IntVar(&o.Runs, "runs", o.Runs, "runs of everything; each figure is the median")
	fs.IntVar(&o.Concurrency, "concurrency", o.Concurrency, "watcher's http.concurrency")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "daemon phase per run (0 skips it)")
	fs.StringVar(&o.Schedule, "schedule", o.Schedule, "the daemon's schedule for every source")
	fs.BoolVar(&o.Urlwatch, "urlwatch", false, "also run urlwatch on the same URLs (installs the Debian package when missing)")
	fs.StringVar(&o.Watcher, "watcher", "", "measure this watcher binary instead of building ./cmd/watcher")
	fs.BoolVar(&o.Keep, "keep", false, "keep the temp directory (configs, archives, logs)")
	fs.IntVar(&o.Components, "components", 0, "components each page's summary.json lists, read on every poll (0: the page's one default component)")
	fs.BoolVar(&o.TLS, "tls", false, "serve every page over HTTPS (HTTP/2 offered) from its own loopback address 127.1.x.y with a certificate from a CA made at start (watcher: http.ca_file; urlwatch: REQUESTS_CA_BUNDLE), and count handshakes, resumptions, connections and protocols on the server side")
	both := fs.Bool("plain-and-tls", false, "run everything twice, over plain HTTP then over HTTPS (-tls), and add a table of the two side by side")
	fs.DurationVar(&o.ServerIdle, "server-idle", 0, "the pages' servers close connections idle this long (0: 2 minutes); a short one makes every poll reconnect and resume its TLS session")
	fs.BoolVar(&o.DaemonCold, "daemon-cold", false, "start the daemon on an empty archive (its peak RSS then includes the cold first round) instead of one filled by a `watcher poll` first")
	fs.StringVar(&o.HeapDir, "heap-profile", "", "write the daemon's heap profile (in use, and allocations) at the end of each daemon run into this directory (the daemon serves pprof on loopback through WATCHER_PPROF)")
	fs.BoolVar(&o.Latency, "latency", false, "in the daemon phase, post to a fake Slack and time vendor change → Slack: every 15 s a new incident on the next page, and a follow-up on every open incident already announced (instead of -changes' updates to resolved incidents)")
	fs.Func("daemon-env", "`KEY=VALUE` added to the environment of `watcher run` only (repeatable), e.g. GOMEMLIMIT=100MiB", func(v string) error {
		if !strings.Contains(v, "=") {
			return errors.New("want KEY=VALUE")
		}
		o.DaemonEnv = append(o.DaemonEnv, v)
		return nil
	})
	fs.StringVar(&o.Archive, "archive", "", "`FILE`: the daemon phase's prefilled archive, kept between runs: filled by the cold `watcher poll` round when FILE is missing or was filled for other pages (FILE.key), copied into each run otherwise (the pages are the same every time)")
	profileDir := fs.String("profile", "", "instead of the benchmark: run cold, warm and changed poll rounds in this process with a CPU profile of each, written to this directory")
	serveDir := fs.String("serve", "", "instead of the benchmark: serve -sources pages, write watcher.yaml and urls.yaml (urlwatch) for them into this directory and wait for Ctrl-C, for experiments by hand (perf, strace, …)")
	isQuick := fs.Bool("quick", false, "small sizes for a smoke test (flags given explicitly still win)")
	fs.Parse(os.Args[1:])
	if *isQuick {
		q := quick()
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		keep := func(name string, dst *int, v int) {
			if !set[name] {
				*dst = v
			}
		}
		keep("sources", &o.Sources, q.Sources)
		keep("daemon-sources", &o.DaemonSources, q.DaemonSources)
		keep("rounds", &o.Rounds, q.Rounds)
		keep("changes", &o.Changes, q.Changes)
		keep("unchanged", &o.Unchanged, q.Unchanged)
		keep("runs", &o.Runs, q.Runs)
		if !set["duration"] {
			o.Duration = q.Duration
		}
		if !set["schedule"] {
			o.Schedule = q.Schedule
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if *profileDir != "" {
		err := profile(ctx, o, *profileDir)
		stop()
		if err != nil {
			fmt.Fprintf(os.Stderr, "fleet: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *serveDir != "" {
		err := serve(ctx, o, *serveDir)
		stop()
		if err != nil {
			fmt.Fprintf(os.Stderr, "fleet: %v\n", err)
			os.Exit(1)
		}
		return
	}
	modes := []bool{o.TLS}
	if *both {
		modes = []bool{false, true}
	}
	var all []*results
	failed := false
	for _, tls := range modes {
		o.TLS = tls
		res, err := run(ctx, o, os.Stderr)
		if res != nil {
			res.markdown(os.Stdout)
			all = append(all, res)
			failed = failed || len(res.Violations) > 0
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "fleet: %v\n", err)
			failed = true
			break
		}
	}
	stop()
	if len(all) == 2 {
		sideBySide(os.Stdout, all[0], all[1])
	}
	if failed {
		os.Exit(1)
	}
}

// run runs the whole benchmark and returns its results; progress goes to log. Results
// come back (for the report) even when a later phase failed.
func run(ctx context.Context, o options, log io.Writer) (*results, error) {
	if o.Sources < 1 || o.Runs < 1 || o.Changes > o.Sources || o.Changes > o.DaemonSources {
		return nil, errors.New("need -sources ≥ 1, -runs ≥ 1 and -changes ≤ -sources, -daemon-sources")
	}
	tmp, err := os.MkdirTemp("", "statuswatch-fleet-")
	if err != nil {
		return nil, err
	}
	if o.Keep {
		fmt.Fprintf(log, "temp directory: %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	b := &bench{o: o, tmp: tmp, log: log}
	b.res = newResults(o)
	err = b.all(ctx)
	b.res.finish()
	return b.res, err
}
