package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// results are every run's figures and the medians the report shows.
type results struct {
	o               options
	GoVersion       string
	Revision        string // git revision of the tree measured
	CPUModel        string
	NumCPU          int
	UrlwatchVersion string
	LoadStart       string
	LoadEnd         string
	PayloadBytes    int
	Pages           int // pages served
	Components      int // components each summary lists (0: the one default)

	Poll   []*pollResult
	Daemon []*daemonResult

	Violations []string // budgets or invariants not met
}

func newResults(o options) *results {
	return &results{o: o, CPUModel: cpuModel(), NumCPU: runtime.NumCPU(), GoVersion: runtime.Version(), LoadStart: "?", LoadEnd: "?"}
}

func (r *results) addPoll(p *pollResult)     { r.Poll = append(r.Poll, p) }
func (r *results) addDaemon(d *daemonResult) { r.Daemon = append(r.Daemon, d) }

// finish checks the invariants and budgets on what was measured.
func (r *results) finish() {
	for i, p := range r.Poll {
		if p.UnchangedGrowth != 0 || !p.UnchangedIdentical {
			r.Violations = append(r.Violations, fmt.Sprintf("run %d: the archive changed over %d unchanged rounds (grew %d bytes, identical %v)", i+1, r.o.Unchanged, p.UnchangedGrowth, p.UnchangedIdentical))
		}
		if p.NewVersions != p.WantedVersions {
			r.Violations = append(r.Violations, fmt.Sprintf("run %d: %d new versions over the rounds with changes, want %d", i+1, p.NewVersions, p.WantedVersions))
		}
	}
	if len(r.Poll) > 0 && r.urlwatchRan() {
		if c := r.ratio(func(p *pollResult) (usage, usage) { return p.WatcherCold, p.UrlwatchCold }); c.median < 3 {
			r.Violations = append(r.Violations, fmt.Sprintf("cold round: urlwatch/watcher CPU %.1f×, budget ≥ 3×", c.median))
		}
		if w := r.ratio(func(p *pollResult) (usage, usage) { return p.WatcherWarm, p.UrlwatchWarm }); w.median < 30 {
			r.Violations = append(r.Violations, fmt.Sprintf("warm round: urlwatch/watcher CPU %.1f×, budget ≥ 30×", w.median))
		}
	}
	for i, d := range r.Daemon {
		if d.Failures > 0 || d.Polls.Other > 0 {
			r.Violations = append(r.Violations, fmt.Sprintf("daemon run %d: %d failed polls, %d answers other than 200/304", i+1, d.Failures, d.Polls.Other))
		}
	}
}

func (r *results) urlwatchRan() bool {
	return len(r.Poll) > 0 && r.Poll[0].UrlwatchCold.Wall > 0
}

// stat is a median with the range it came from.
type stat struct{ median, lo, hi float64 }

func summarize(xs []float64) stat {
	if len(xs) == 0 {
		return stat{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{m, s[0], s[len(s)-1]}
}

func medianDur(ds []time.Duration) time.Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(summarize(xs).median)
}

// over collects one figure from every poll run.
func (r *results) over(f func(*pollResult) float64) stat {
	var xs []float64
	for _, p := range r.Poll {
		xs = append(xs, f(p))
	}
	return summarize(xs)
}

func (r *results) overDaemon(f func(*daemonResult) float64) stat {
	var xs []float64
	for _, d := range r.Daemon {
		xs = append(xs, f(d))
	}
	return summarize(xs)
}

// ratio is urlwatch's CPU over watcher's, paired within each run.
func (r *results) ratio(pair func(*pollResult) (watcher, urlwatch usage)) stat {
	return r.over(func(p *pollResult) float64 {
		w, u := pair(p)
		if w.CPU <= 0 {
			return 0
		}
		return u.CPU.Seconds() / w.CPU.Seconds()
	})
}

// format renders a stat: the median, and the range when there was more than one run.
func (s stat) format(n int, unit string, prec int) string {
	m := fmt.Sprintf("%.*f%s", prec, s.median, unit)
	if n <= 1 || s.lo == s.hi {
		return "**" + m + "**"
	}
	return fmt.Sprintf("**%s** (%.*f–%.*f)", m, prec, s.lo, prec, s.hi)
}

func secs(d time.Duration) float64   { return d.Seconds() }
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mibs(b int64) float64           { return float64(b) / (1 << 20) }

// markdown writes the report.
func (r *results) markdown(w io.Writer) {
	o := r.o
	n := len(r.Poll)
	title := fmt.Sprintf("## Fleet: %d sources", o.Sources)
	if r.urlwatchRan() {
		title += " side by side with urlwatch"
	}
	if len(r.Daemon) > 0 {
		title += fmt.Sprintf(", the daemon at %d", o.DaemonSources)
	}
	if o.TLS {
		title += ", over HTTPS"
	} else {
		title += ", over plain HTTP"
	}
	fmt.Fprintf(w, "%s (issue 7)\n\n", title)
	fmt.Fprintf(w, "**Machine:** %d CPUs (`nproc`), %s, %s, linux/%s. Load average %s when the benchmark started, %s when it ended (on a shared or busy machine, expect spreads of ±30%%).\n\n",
		r.NumCPU, r.CPUModel, r.GoVersion, runtime.GOARCH, r.LoadStart, r.LoadEnd)
	if r.Revision != "" && o.Watcher == "" {
		fmt.Fprintf(w, "**Measured:** `watcher` built from %s.\n\n", r.Revision)
	}
	if o.TLS {
		fmt.Fprintf(w, "**Setup:** %d fake Statuspage pages over HTTPS, each on its own loopback address (127.1.x.y) with its own ECDSA P-256 certificate from a CA made at start (watcher `http.ca_file`, urlwatch `REQUESTS_CA_BUNDLE`), HTTP/2 offered; `incidents.json` is %d KB (50 resolved incidents of 8 updates of varied prose), with strong ETags and real 304s. ", r.Pages, r.PayloadBytes/1000)
	} else {
		fmt.Fprintf(w, "**Setup:** %d fake Statuspage pages on 127.0.0.1, each on its own port (a vendor per host:port); `incidents.json` is %d KB (50 resolved incidents of 8 updates of varied prose), with strong ETags and real 304s. ", r.Pages, r.PayloadBytes/1000)
	}
	if o.Latency {
		fmt.Fprintf(w, "In the daemon phase (-latency) the daemon posts to a fake Slack with a bot token; every %v a new incident opens on the next page, and every open incident already announced gets a follow-up; each is timed from the vendor's change to the Slack call quoting it. ", latencyEvery)
	}
	if o.ServerIdle > 0 {
		fmt.Fprintf(w, "The pages' servers close connections idle for %v. ", o.ServerIdle)
	}
	if r.Components > 0 {
		fmt.Fprintf(w, "`summary.json` lists %d components (read on every poll, 304 once unchanged). ", r.Components)
	}
	fmt.Fprintf(w, "watcher: `kind: statuspage`, `maintenance: false` (one list endpoint, as urlwatch's one URL), `http.concurrency: %d`, `per_host: 4`, `listen: \"\"`, no Slack (notifications to a file), archive in a temp dir, fsync on. ", o.Concurrency)
	fmt.Fprintf(w, "Every poll also reads `summary.json` (the page name and the component states), conditionally: 304 after the first round. ")
	if r.urlwatchRan() {
		fmt.Fprintf(w, "urlwatch: `%s` (Debian package), the same %d `incidents.json` URLs, reporter stdout only (to a file), empty cache for the cold round, `urlwatch --urls F --config F --cache F --hooks F`. The two alternate (cold: one then the other; warm likewise; the order flips every run). ", r.UrlwatchVersion, o.Sources)
	}
	fmt.Fprintf(w, "CPU is user+sys of the child process from rusage (every thread), peak RSS its VmHWM sampled every 5 ms (`ru_maxrss` is useless here: with vfork+exec it inherits this benchmark's own peak). Each figure is the median of %d runs, (min–max) after it.\n\n", n)

	if n > 0 {
		uw := r.urlwatchRan()
		fmt.Fprintf(w, "| round over %d sources | watcher | ", o.Sources)
		if uw {
			fmt.Fprint(w, "urlwatch | urlwatch ÷ watcher | budget |\n|---|---|---|---|---|\n")
		} else {
			fmt.Fprint(w, "\n|---|---|\n")
		}
		row := func(label string, wf, uf func(*pollResult) float64, unit string, prec int, ratio stat, budget string) {
			fmt.Fprintf(w, "| %s | %s |", label, r.over(wf).format(n, unit, prec))
			if uw {
				rs := "—"
				if ratio != (stat{}) {
					rs = ratio.format(n, "×", 1)
				}
				fmt.Fprintf(w, " %s | %s | %s |", r.over(uf).format(n, unit, prec), rs, budget)
			}
			fmt.Fprintln(w)
		}
		row("start-up only (`watcher version`, `urlwatch --version`): CPU", func(p *pollResult) float64 { return secs(p.WatcherStart.CPU) }, func(p *pollResult) float64 { return secs(p.UrlwatchStart.CPU) }, " s", 3,
			r.ratio(func(p *pollResult) (usage, usage) { return p.WatcherStart, p.UrlwatchStart }), "")
		coldRatio := r.ratio(func(p *pollResult) (usage, usage) { return p.WatcherCold, p.UrlwatchCold })
		warmRatio := r.ratio(func(p *pollResult) (usage, usage) { return p.WatcherWarm, p.UrlwatchWarm })
		row("cold (empty archive/cache): CPU", func(p *pollResult) float64 { return secs(p.WatcherCold.CPU) }, func(p *pollResult) float64 { return secs(p.UrlwatchCold.CPU) }, " s", 2, coldRatio, "≥ 3× less CPU")
		row("cold: wall", func(p *pollResult) float64 { return secs(p.WatcherCold.Wall) }, func(p *pollResult) float64 { return secs(p.UrlwatchCold.Wall) }, " s", 2, stat{}, "")
		row("cold: peak RSS", func(p *pollResult) float64 { return mibs(p.WatcherCold.MaxRSS) }, func(p *pollResult) float64 { return mibs(p.UrlwatchCold.MaxRSS) }, " MiB", 0, stat{}, "")
		row("warm (nothing changed): CPU", func(p *pollResult) float64 { return secs(p.WatcherWarm.CPU) }, func(p *pollResult) float64 { return secs(p.UrlwatchWarm.CPU) }, " s", 3, warmRatio, "≥ 30× less CPU")
		row("warm: wall", func(p *pollResult) float64 { return secs(p.WatcherWarm.Wall) }, func(p *pollResult) float64 { return secs(p.UrlwatchWarm.Wall) }, " s", 2, stat{}, "")
		row("warm: peak RSS", func(p *pollResult) float64 { return mibs(p.WatcherWarm.MaxRSS) }, func(p *pollResult) float64 { return mibs(p.UrlwatchWarm.MaxRSS) }, " MiB", 0, stat{}, "")
		// The floor in the watcher column, so the ratio column says what ratio any Go
		// program could reach at best.
		row("*floor* (`bench/floor`: a bare Go program's GETs, SHA-256 and JSON decode, nothing archived): cold CPU", func(p *pollResult) float64 { return secs(p.FloorCold.CPU) }, func(p *pollResult) float64 { return secs(p.UrlwatchCold.CPU) }, " s", 2,
			r.ratio(func(p *pollResult) (usage, usage) { return p.FloorCold, p.UrlwatchCold }), "")
		row("*floor*: warm CPU (the conditional GETs alone)", func(p *pollResult) float64 { return secs(p.FloorWarm.CPU) }, func(p *pollResult) float64 { return secs(p.UrlwatchWarm.CPU) }, " s", 3,
			r.ratio(func(p *pollResult) (usage, usage) { return p.FloorWarm, p.UrlwatchWarm }), "")
		last := r.Poll[len(r.Poll)-1]
		fmt.Fprintf(w, "\nAnswers to `incidents.json` in the last run: watcher cold %v, warm %v", last.Requests["watcher cold"], last.Requests["watcher warm"])
		if uw {
			fmt.Fprintf(w, "; urlwatch cold %v, warm %v", last.Requests["urlwatch cold"], last.Requests["urlwatch warm"])
		}
		fmt.Fprint(w, ".\n\n")
		fmt.Fprintf(w, "Connections the servers saw in the last run: watcher cold %v; warm %v.\n\n", last.Conns["watcher cold"], last.Conns["watcher warm"])
		r.floorTable(w)

		fmt.Fprintf(w, "| archive, %d sources | median | budget |\n|---|---|---|\n", o.Sources)
		fmt.Fprintf(w, "| archive file after the cold round | %s | |\n", r.over(func(p *pollResult) float64 { return mibs(p.ArchiveAfterCold) }).format(n, " MiB", 1))
		maxGrowth, identical := int64(0), true
		for _, p := range r.Poll {
			maxGrowth = max(maxGrowth, p.UnchangedGrowth)
			identical = identical && p.UnchangedIdentical
		}
		fmt.Fprintf(w, "| %d unchanged rounds: archive bytes grown (largest over the runs) | **%d**, file byte-identical: %v | 0 |\n", o.Unchanged, maxGrowth, identical)
		fmt.Fprintf(w, "| an unchanged round (`watcher poll`, all 304): CPU | %s | |\n", r.over(func(p *pollResult) float64 { return millis(p.UnchangedCPU) }).format(n, " ms", 0))
		fmt.Fprintf(w, "| %d rounds of %d changed pages (a new update on one incident each): new versions | %s (want %d) | |\n", o.Rounds, o.Changes, r.over(func(p *pollResult) float64 { return float64(p.NewVersions) }).format(n, "", 0), o.Rounds*o.Changes)
		perVersion := func(f func(*pollResult) int64) func(*pollResult) float64 {
			return func(p *pollResult) float64 {
				if p.NewVersions == 0 {
					return 0
				}
				return float64(f(p)) / float64(p.NewVersions)
			}
		}
		fmt.Fprintf(w, "| archive bytes per new version: bbolt pages (branch + leaf, free pages excluded) | %s | grows with versions, not polls |\n", r.over(perVersion(func(p *pollResult) int64 { return p.ChangedAlloc })).format(n, " B", 0))
		fmt.Fprintf(w, "| the same, bytes in use in those pages | %s | |\n", r.over(perVersion(func(p *pollResult) int64 { return p.ChangedInuse })).format(n, " B", 0))
		var parts []string
		for k := range r.Poll[0].ChangedParts {
			parts = append(parts, k)
		}
		slices.Sort(parts)
		var split []string
		for _, k := range parts {
			st := r.over(perVersion(func(p *pollResult) int64 { return p.ChangedParts[k] }))
			if st.median != 0 {
				split = append(split, fmt.Sprintf("`%s` %.0f B", k, st.median))
			}
		}
		fmt.Fprintf(w, "| the same, by part of the archive | %s | |\n", strings.Join(split, ", "))
		fmt.Fprintf(w, "| the same, file growth (bbolt grows the file in steps) | %s | |\n", r.over(perVersion(func(p *pollResult) int64 { return p.ChangedFile })).format(n, " B", 0))
		fmt.Fprintf(w, "| a round with %d changed pages: CPU | %s | |\n\n", o.Changes, r.over(func(p *pollResult) float64 { return millis(p.ChangedCPU) }).format(n, " ms", 0))
	}

	if m := len(r.Daemon); m > 0 {
		perSec := float64(o.DaemonSources) / 120
		perPoll := func(d *daemonResult) float64 { return millis(d.SteadyCPU) / float64(max(1, d.SteadyPolls)) }
		fmt.Fprintf(w, "| `watcher run`, %d sources on `%s`, %v per run, %d pages changing per interval | median | budget |\n|---|---|---|\n", o.DaemonSources, o.Schedule, o.Duration, o.Changes)
		fmt.Fprintf(w, "| start-up: CPU before the first poll | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return secs(d.StartCPU) }).format(m, " s", 2))
		fmt.Fprintf(w, "| polls per second, from the first poll on (requests for `incidents.json`) | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return float64(d.SteadyPolls) / d.Steady.Seconds() }).format(m, "", 1))
		fmt.Fprintf(w, "| CPU per poll, from the first poll on (all of the daemon's CPU ÷ polls) | %s | |\n", r.overDaemon(perPoll).format(m, " ms", 3))
		fmt.Fprintf(w, "| %% of one core from the first poll on | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return pct(d.SteadyCPU, d.Steady) }).format(m, "%", 2))
		if r.Daemon[0].WarmSpan > 0 {
			fmt.Fprintf(w, "| **%% of one core from one interval after the first poll on** (every source polled once by this process already: no first handshake, no cold round) | %s | < 1%% at 1,000 sources every 2 min, < 10%% at 10,000 every minute |\n", r.overDaemon(func(d *daemonResult) float64 { return pct(d.WarmCPU, d.WarmSpan) }).format(m, "%", 2))
			fmt.Fprintf(w, "| CPU per poll, the same span | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return millis(d.WarmCPU) / float64(max(1, d.WarmPolls)) }).format(m, " ms", 3))
		}
		fmt.Fprintf(w, "| %% of one core over the whole run, start-up included | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return pct(d.CPU, d.Window) }).format(m, "%", 2))
		fmt.Fprintf(w, "| %% of one core at `@every 2m` (%.3g polls/s × CPU per poll) | %s | < 1%% (HTTPS) |\n", perSec, r.overDaemon(func(d *daemonResult) float64 {
			return perSec * perPoll(d) / 10 // ms per s → % of a core
		}).format(m, "%", 2))
		fmt.Fprintf(w, "| peak RSS (VmHWM: its own memory plus the archive's mmap pages it touched) | %s | < 150 MB |\n", r.overDaemon(func(d *daemonResult) float64 { return mibs(d.HWM) }).format(m, " MiB", 0))
		fmt.Fprintf(w, "| the daemon's own memory (largest RssAnon sampled every 250 ms) | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return mibs(d.MaxAnon) }).format(m, " MiB", 0))
		fmt.Fprintf(w, "| archive and binary pages mapped at the end (RssFile) | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return mibs(d.EndFile) }).format(m, " MiB", 0))
		fmt.Fprintf(w, "| the same, largest sampled | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return mibs(d.MaxFile) }).format(m, " MiB", 0))
		fmt.Fprintf(w, "| pages changed during the run | %s | |\n", r.overDaemon(func(d *daemonResult) float64 { return float64(d.Changes) }).format(m, "", 0))
		perReq := func(f func(c fakepage.ConnStats) int) func(d *daemonResult) float64 {
			return func(d *daemonResult) float64 { return float64(f(d.Conns)) / float64(max(1, d.Polls.total())) }
		}
		fmt.Fprintf(w, "| new connections per poll (server side) | %s | |\n", r.overDaemon(perReq(func(c fakepage.ConnStats) int { return c.Conns })).format(m, "", 3))
		if o.TLS {
			fmt.Fprintf(w, "| TLS handshakes per poll, and of them resumed | %s, %s | no full handshake per warm poll |\n",
				r.overDaemon(perReq(func(c fakepage.ConnStats) int { return c.Handshakes })).format(m, "", 3),
				r.overDaemon(perReq(func(c fakepage.ConnStats) int { return c.Resumed })).format(m, "", 3))
		}
		fmt.Fprintf(w, "| requests by protocol (last run) | %v | |\n", r.Daemon[m-1].Conns.Protocols)
		if o.Latency {
			var nw, fu []time.Duration
			var nm, fm int
			for _, d := range r.Daemon {
				nw, fu = append(nw, d.Latency.New...), append(fu, d.Latency.FollowUp...)
				nm, fm = nm+d.Latency.NewMissed, fm+d.Latency.FollowMissed
			}
			fmt.Fprintf(w, "| vendor change → fake Slack, new incidents (all runs) | %s | within the schedule's interval (plus jitter) |\n", formatLatency(nw, nm))
			fmt.Fprintf(w, "| vendor change → fake Slack, follow-ups on an open incident (all runs) | %s | within `open_interval` (30 s) |\n", formatLatency(fu, fm))
		}
		reused := 0
		for _, d := range r.Daemon {
			if d.Reused {
				reused++
			}
		}
		if reused > 0 {
			fmt.Fprintf(w, "| archive filled first: a copy of `%s`, filled by the cold `watcher poll` round of an earlier run, in %d of %d runs (their cold round below counts as 0) | | |\n", o.Archive, reused, len(r.Daemon))
		}
		fmt.Fprintf(w, "| cold `watcher poll` over the %d sources first (fills the archive): CPU | %s | |\n", o.DaemonSources, r.overDaemon(func(d *daemonResult) float64 { return secs(d.Prewarm.CPU) }).format(m, " s", 2))
		fmt.Fprintf(w, "| the same: wall, peak RSS | %s, %s | |\n\n", r.overDaemon(func(d *daemonResult) float64 { return secs(d.Prewarm.Wall) }).format(m, " s", 1), r.overDaemon(func(d *daemonResult) float64 { return mibs(d.Prewarm.MaxRSS) }).format(m, " MiB", 0))
	}

	if len(r.Violations) > 0 {
		fmt.Fprintln(w, "**Not met:**")
		for _, v := range r.Violations {
			fmt.Fprintf(w, "- %s\n", v)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Reproduce: `go run ./bench/fleet%s > fleet.md` (progress on standard error).\n", r.flags())
	if o.Watcher != "" {
		fmt.Fprintf(w, "\nThis run measured a prebuilt binary (`-watcher %s`), not the tree's `./cmd/watcher`.\n", o.Watcher)
	}
}

// flags are the non-default flags of this run, for the reproduce line.
func (r *results) flags() string {
	d, o := defaults(), r.o
	var b strings.Builder
	add := func(name string, v, def any) {
		if v != def {
			fmt.Fprintf(&b, " -%s %v", name, v)
		}
	}
	if o.Urlwatch {
		b.WriteString(" -urlwatch")
	}
	add("sources", o.Sources, d.Sources)
	add("daemon-sources", o.DaemonSources, d.DaemonSources)
	add("rounds", o.Rounds, d.Rounds)
	add("changes", o.Changes, d.Changes)
	add("unchanged", o.Unchanged, d.Unchanged)
	add("runs", o.Runs, d.Runs)
	add("concurrency", o.Concurrency, d.Concurrency)
	add("duration", o.Duration, d.Duration)
	add("server-idle", o.ServerIdle, d.ServerIdle)
	if o.TLS {
		b.WriteString(" -tls")
	}
	if o.DaemonCold {
		b.WriteString(" -daemon-cold")
	}
	if o.Latency {
		b.WriteString(" -latency")
	}
	if o.Archive != "" {
		fmt.Fprintf(&b, " -archive %s", o.Archive)
	}
	for _, e := range o.DaemonEnv {
		fmt.Fprintf(&b, " -daemon-env %s", e)
	}
	if o.Schedule != d.Schedule {
		fmt.Fprintf(&b, " -schedule %q", o.Schedule)
	}
	return b.String()
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// sideBySide writes the headline figures of a plain-HTTP and an HTTPS run of the same
// benchmark next to each other.
func sideBySide(w io.Writer, plain, tls *results) {
	fmt.Fprint(w, "## Plain HTTP and HTTPS side by side\n\n| figure | plain HTTP | HTTPS | HTTPS ÷ plain |\n|---|---|---|---|\n")
	row := func(label string, f func(r *results) (float64, bool), unit string, prec int) {
		p, okp := f(plain)
		t, okt := f(tls)
		if !okp || !okt {
			return
		}
		ratio := "—"
		if p > 0 {
			ratio = fmt.Sprintf("%.2f×", t/p)
		}
		fmt.Fprintf(w, "| %s | %.*f%s | %.*f%s | %s |\n", label, prec, p, unit, prec, t, unit, ratio)
	}
	poll := func(f func(p *pollResult) float64) func(r *results) (float64, bool) {
		return func(r *results) (float64, bool) { return r.over(f).median, len(r.Poll) > 0 }
	}
	daemon := func(f func(d *daemonResult) float64) func(r *results) (float64, bool) {
		return func(r *results) (float64, bool) { return r.overDaemon(f).median, len(r.Daemon) > 0 }
	}
	row("watcher cold round: CPU", poll(func(p *pollResult) float64 { return secs(p.WatcherCold.CPU) }), " s", 2)
	row("watcher warm round: CPU", poll(func(p *pollResult) float64 { return secs(p.WatcherWarm.CPU) }), " s", 3)
	row("watcher warm round: peak RSS", poll(func(p *pollResult) float64 { return mibs(p.WatcherWarm.MaxRSS) }), " MiB", 0)
	row("floor cold round: CPU", poll(func(p *pollResult) float64 { return secs(p.FloorCold.CPU) }), " s", 2)
	row("floor warm round: CPU", poll(func(p *pollResult) float64 { return secs(p.FloorWarm.CPU) }), " s", 3)
	if plain.urlwatchRan() && tls.urlwatchRan() {
		row("urlwatch warm round: CPU", poll(func(p *pollResult) float64 { return secs(p.UrlwatchWarm.CPU) }), " s", 3)
		row("urlwatch ÷ watcher, warm", func(r *results) (float64, bool) {
			return r.ratio(func(p *pollResult) (usage, usage) { return p.WatcherWarm, p.UrlwatchWarm }).median, true
		}, "×", 1)
	}
	row("daemon: CPU per poll", daemon(func(d *daemonResult) float64 { return millis(d.SteadyCPU) / float64(max(1, d.SteadyPolls)) }), " ms", 3)
	row("daemon: % of one core from the first poll on", daemon(func(d *daemonResult) float64 { return pct(d.SteadyCPU, d.Steady) }), "%", 2)
	row("daemon: peak RSS", daemon(func(d *daemonResult) float64 { return mibs(d.HWM) }), " MiB", 0)
	row("daemon: new connections per poll", daemon(func(d *daemonResult) float64 { return float64(d.Conns.Conns) / float64(max(1, d.Polls.total())) }), "", 3)
	fmt.Fprintln(w)
}
