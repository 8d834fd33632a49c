package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// daemonResult is what one run of the daemon phase measured.
type daemonResult struct {
	Prewarm usage // the `watcher poll` round that fills the archive first
	Reused  bool  // the archive was a copy of -archive's instead (Prewarm is zero)

	Window   time.Duration // from start to the end of the run
	CPU      time.Duration // user+sys over the window, start-up included
	StartCPU time.Duration // CPU before the first poll (opening the archive, gauges, …)
	Steady   time.Duration // from the first poll to the end
	// SteadyCPU and SteadyPolls are CPU and polls from the first poll to the end.
	SteadyCPU   time.Duration
	SteadyPolls int
	// Warm*: from one schedule interval after the first poll to the end, when every
	// source has had its first poll of this process (a full TLS handshake each, and over
	// an empty archive the cold round): the steady state. Zero when the run is shorter.
	WarmCPU   time.Duration
	WarmSpan  time.Duration
	WarmPolls int
	Polls     reqCount // every answer to incidents.json over the window

	HWM      int64              // VmHWM at the end (anonymous and file-backed pages: the archive's mmap counts)
	MaxAnon  int64              // the largest RssAnon sampled: the daemon's own memory
	MaxFile  int64              // the largest RssFile sampled: archive (and binary) pages mapped
	EndFile  int64              // RssFile at the end: pages of the archive (and binary) mapped in
	Changes  int                // pages changed during the run
	Failures int                // "poll failed" lines in the daemon's log
	Conns    fakepage.ConnStats // what the servers saw over the window
	Latency  latencyResult      // under -latency
}

// daemonRun fills an archive with one poll round, then runs `watcher run` on it for the
// duration while pages change.
func (b *bench) daemonRun(ctx context.Context, r int) (*daemonResult, error) {
	dir := filepath.Join(b.tmp, fmt.Sprintf("daemon%d", r+1))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	b.fleet.Reset()
	cfg, err := b.writeWatcherConfig(dir, b.o.DaemonSources, b.o.Schedule)
	if err != nil {
		return nil, err
	}
	res := &daemonResult{}
	var probe *latencyProbe
	if b.o.Latency {
		probe = newLatencyProbe(b.fleet)
		defer probe.slack.Close()
	}
	b.fleet.Requests()
	if !b.o.DaemonCold {
		res.Prewarm, res.Reused, err = b.prefill(ctx, r, dir, cfg, filepath.Join(dir, "watcher.db"))
		if err != nil {
			return nil, err
		}
	}

	run := child{name: "watcher-run", dir: dir, path: b.watcher, args: []string{"run", "-config", cfg}, env: slices.Clip(b.o.DaemonEnv)}
	if probe != nil {
		// The fake Slack from the daemon's own start: the prewarming poll's messages
		// went to standard output.
		if err := b.addSlack(cfg, probe.slack.APIURL()); err != nil {
			return nil, err
		}
		run.env = append(run.env, "SLACK_BOT_TOKEN="+latencyToken)
	}
	pprofAddr := ""
	if b.o.HeapDir != "" {
		pprofAddr = freeLoopback()
		run.env = append(run.env, "WATCHER_PPROF="+pprofAddr)
	}
	cmd, stderrPath, err := run.command(ctx)
	if err != nil {
		return nil, err
	}
	b.fleet.Requests()
	b.fleet.ConnStats()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		closeFiles(cmd)
		return nil, err
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopDaemon := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		closeFiles(cmd)
	}

	changeEvery := scheduleInterval(b.o.Schedule, b.o.Duration)
	if probe != nil {
		changeEvery = latencyEvery
	}
	change := time.NewTicker(changeEvery)
	defer change.Stop()
	sample := time.NewTicker(250 * time.Millisecond)
	defer sample.Stop()
	deadline := time.NewTimer(b.o.Duration)
	defer deadline.Stop()
	next := 0
	var firstPoll, warmFrom time.Time
	var warmCPU0 time.Duration
	probeMode := probe != nil
	var polls reqCount
	// drain counts the polls answered since the last call, and notes the first one.
	drain := func() error {
		c := countRequests(b.fleet.Requests())
		if firstPoll.IsZero() && c.total() > 0 {
			firstPoll = time.Now()
			cpu, err := procCPU(pid)
			if err != nil {
				return err
			}
			res.StartCPU = cpu
			res.SteadyPolls -= c.total() // counted below; these ran before the CPU sample
		}
		polls.OK, polls.NotModified, polls.Other = polls.OK+c.OK, polls.NotModified+c.NotModified, polls.Other+c.Other
		if !firstPoll.IsZero() {
			res.SteadyPolls += c.total()
			if !warmFrom.IsZero() {
				res.WarmPolls += c.total()
			} else if time.Since(firstPoll) >= changeEvery && !probeMode {
				cpu, err := procCPU(pid)
				if err != nil {
					return err
				}
				warmFrom, warmCPU0 = time.Now(), cpu
			}
		}
		if st, err := procStatus(pid); err == nil {
			res.MaxAnon = max(res.MaxAnon, st["RssAnon"])
			res.MaxFile = max(res.MaxFile, st["RssFile"])
		}
		return nil
	}
wait:
	for {
		select {
		case <-change.C:
			if probe != nil {
				probe.step(b.o.DaemonSources)
				next = probe.n
				continue
			}
			for range b.o.Changes {
				b.fleet.Change(next % b.o.DaemonSources)
				next++
			}
		case <-sample.C:
			if probe != nil {
				probe.collect()
			}
			if err := drain(); err != nil {
				stopDaemon()
				return nil, err
			}
		case <-deadline.C:
			break wait
		case err := <-exited:
			closeFiles(cmd)
			return nil, fmt.Errorf("watcher run exited early: %v%s", err, tail(stderrPath))
		case <-ctx.Done():
			stopDaemon()
			return nil, ctx.Err()
		}
	}
	err = drain()
	if err == nil && pprofAddr != "" {
		err = b.saveHeap(ctx, pprofAddr, r)
	}
	end := time.Now()
	var st map[string]int64
	if err == nil {
		st, err = procStatus(pid)
	}
	if err == nil {
		res.CPU, err = procCPU(pid)
	}
	stopDaemon()
	if err != nil {
		return nil, err
	}
	res.Window = end.Sub(start)
	res.Conns = b.fleet.ConnStats()
	if probe != nil {
		res.Latency = probe.finish()
		b.logf("daemon run %d: vendor change → Slack: new incidents %s; follow-ups %s", r+1, formatLatency(res.Latency.New, res.Latency.NewMissed), formatLatency(res.Latency.FollowUp, res.Latency.FollowMissed))
	}
	res.HWM, res.EndFile = st["VmHWM"], st["RssFile"]
	res.MaxAnon = max(res.MaxAnon, st["RssAnon"])
	res.Polls = polls
	res.Changes = next
	if !firstPoll.IsZero() {
		res.Steady = end.Sub(firstPoll)
		res.SteadyCPU = res.CPU - res.StartCPU
	}
	if !warmFrom.IsZero() {
		res.WarmSpan, res.WarmCPU = end.Sub(warmFrom), res.CPU-warmCPU0
	}
	if log, err := os.ReadFile(stderrPath); err == nil {
		res.Failures = strings.Count(string(log), "poll failed")
	}
	b.logf("daemon run %d: %d sources on %q for %v: CPU %v (%.2f%% of one core); before the first poll %v; from it %v over %v for %d polls (%.1f/s, %.3f ms each, %.2f%% of one core); answers %v; VmHWM %s, RssAnon ≤ %s, RssFile ≤ %s (%s at the end); %d pages changed, %d failed polls; %v",
		r+1, b.o.DaemonSources, b.o.Schedule, res.Window.Round(time.Millisecond), res.CPU, pct(res.CPU, res.Window),
		res.StartCPU, res.SteadyCPU, res.Steady.Round(time.Millisecond), res.SteadyPolls, float64(res.SteadyPolls)/res.Steady.Seconds(),
		millis(res.SteadyCPU)/float64(max(1, res.SteadyPolls)), pct(res.SteadyCPU, res.Steady),
		res.Polls, mib(res.HWM), mib(res.MaxAnon), mib(res.MaxFile), mib(res.EndFile), res.Changes, res.Failures, res.Conns)
	if res.WarmSpan > 0 {
		b.logf("daemon run %d: from one interval after the first poll: %d polls over %v, %.3f ms each, %.2f%% of one core", r+1, res.WarmPolls, res.WarmSpan.Round(time.Millisecond), millis(res.WarmCPU)/float64(max(1, res.WarmPolls)), pct(res.WarmCPU, res.WarmSpan))
	}
	return res, nil
}

// addSlack points a written config's notifications at a fake Slack (bot token from
// $SLACK_BOT_TOKEN).
func (b *bench) addSlack(cfg, apiURL string) error {
	data, err := os.ReadFile(cfg)
	if err != nil {
		return err
	}
	slack := fmt.Sprintf("slack:\n  token: ${SLACK_BOT_TOKEN}\n  channel: \"#vendor-status\"\n  api_url: %s\n", apiURL)
	text := strings.Replace(string(data), "sources:\n", slack+"sources:\n", 1)
	return os.WriteFile(cfg, []byte(text), 0o600)
}

// freeLoopback is a free 127.0.0.1 port for the daemon's profiles.
func freeLoopback() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:6061"
	}
	defer ln.Close()
	return ln.Addr().String()
}

// saveHeap fetches the daemon's heap profile into -heap-profile's directory.
func (b *bench) saveHeap(ctx context.Context, addr string, r int) error {
	if err := os.MkdirAll(b.o.HeapDir, 0o755); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/pprof/heap", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer resp.Body.Close()
	name := "heap"
	if b.o.TLS {
		name += "-tls"
	}
	path := filepath.Join(b.o.HeapDir, fmt.Sprintf("%s-run%d.pprof", name, r+1))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(f, resp.Body); err != nil {
		return err
	}
	b.logf("daemon run %d: heap profile in %s (go tool pprof -sample_index inuse_space -top %s)", r+1, path, path)
	return nil
}
