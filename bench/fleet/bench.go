package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// incidentsPath is the endpoint both tools poll; polls are counted by its requests.
const incidentsPath = "/api/v2/incidents.json"

// bench is one benchmark in progress.
type bench struct {
	o        options
	tmp      string
	log      io.Writer
	watcher  string // built binary
	floor    string // built bench/floor, beside the watcher binary
	urlwatch string // urlwatch executable, with -urlwatch
	fleet    *fakepage.Fleet
	caFile   string // the fleet's CA certificate (PEM), under -tls
	res      *results
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func (b *bench) all(ctx context.Context) error {
	b.res.LoadStart = loadAvg()
	if err := b.build(ctx); err != nil {
		return err
	}
	if b.o.Urlwatch {
		path, version, err := ensureUrlwatch(ctx, b.log)
		if err != nil {
			return err
		}
		b.urlwatch, b.res.UrlwatchVersion = path, version
		b.logf("urlwatch: %s (%s)", path, version)
	}
	n := b.o.Sources
	if b.o.Duration > 0 {
		n = max(n, b.o.DaemonSources)
	}
	b.res.Pages, b.res.Components = n, b.o.Components
	fleet, err := b.startFleet(n)
	if err != nil {
		return err
	}
	defer fleet.Close()
	if b.o.Components > 0 {
		for i := range n {
			fleet.Page(i).SetComponents(fakepage.Components(b.o.Components))
		}
	}
	b.res.PayloadBytes = payloadSize(fleet)

	for r := range b.o.Runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		pr, err := b.pollRun(ctx, r)
		if err != nil {
			return fmt.Errorf("run %d: %w", r+1, err)
		}
		b.res.addPoll(pr)
	}
	if b.o.Duration > 0 {
		for r := range b.o.Runs {
			if err := ctx.Err(); err != nil {
				return err
			}
			dr, err := b.daemonRun(ctx, r)
			if err != nil {
				return fmt.Errorf("daemon run %d: %w", r+1, err)
			}
			b.res.addDaemon(dr)
		}
	}
	b.res.LoadEnd = loadAvg()
	return nil
}

// startFleet serves n pages, over HTTPS under -tls with the CA written to the temp
// directory.
func (b *bench) startFleet(n int) (*fakepage.Fleet, error) {
	where := "127.0.0.1, over plain HTTP"
	if b.o.TLS {
		where = "their own 127.1.x.y addresses, over HTTPS"
	}
	b.logf("serving %d pages on %s", n, where)
	fleet, err := fakepage.NewFleetWith(n, fakepage.FleetOptions{TLS: b.o.TLS, IdleTimeout: b.o.ServerIdle})
	if err != nil {
		return nil, err
	}
	b.fleet = fleet
	if b.o.TLS {
		b.caFile = filepath.Join(b.tmp, "fleet-ca.pem")
		if err := os.WriteFile(b.caFile, fleet.CAPEM(), 0o600); err != nil {
			fleet.Close()
			return nil, err
		}
	}
	return fleet, nil
}

// build compiles cmd/watcher into the temp directory.
func (b *bench) build(ctx context.Context) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if v, err := exec.CommandContext(ctx, goBin, "env", "GOVERSION").Output(); err == nil {
		b.res.GoVersion = strings.TrimSpace(string(v))
	}
	if rev, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		b.res.Revision = strings.TrimSpace(string(rev))
		if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			b.res.Revision += " with uncommitted changes"
		}
	}
	if b.o.Watcher != "" {
		b.watcher = b.o.Watcher
		b.logf("measuring %s", b.watcher)
		return b.buildFloor(ctx, goBin)
	}
	b.watcher = filepath.Join(b.tmp, "watcher")
	b.logf("building %s", b.watcher)
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", b.watcher, "github.com/statuswatch/statuswatch/cmd/watcher")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return b.buildFloor(ctx, goBin)
}

// buildFloor builds bench/floor, the yardstick of what any Go program spends on a round.
func (b *bench) buildFloor(ctx context.Context, goBin string) error {
	b.floor = filepath.Join(b.tmp, "floor")
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", b.floor, "github.com/statuswatch/statuswatch/bench/floor")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build floor: %w\n%s", err, out)
	}
	return nil
}

// payloadSize is the size of page 0's incidents.json.
func payloadSize(f *fakepage.Fleet) int {
	req, _ := http.NewRequest(http.MethodGet, "http://page"+incidentsPath, nil)
	resp, err := f.Page(0).Transport().RoundTrip(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	f.Page(0).Requests()
	return int(n)
}

// writeWatcherConfig writes a config for the first n pages into dir.
func (b *bench) writeWatcherConfig(dir string, n int, schedule string) (string, error) {
	var s strings.Builder
	fmt.Fprintf(&s, "database: %s\n", filepath.Join(dir, "watcher.db"))
	s.WriteString("listen: \"\"\non_first_poll: open\n")
	fmt.Fprintf(&s, "defaults:\n  schedule: %q\n  timeout: 30s\n  maintenance: false\n", schedule)
	fmt.Fprintf(&s, "http:\n  concurrency: %d\n", b.o.Concurrency)
	if b.caFile != "" {
		fmt.Fprintf(&s, "  ca_file: %s\n", b.caFile)
	}
	s.WriteString("sources:\n")
	for i := range n {
		fmt.Fprintf(&s, "  - name: p%04d\n    url: %s\n    kind: statuspage\n", i, b.fleet.URL(i))
	}
	path := filepath.Join(dir, "watcher.yaml")
	return path, os.WriteFile(path, []byte(s.String()), 0o600)
}

// reqCount counts the answers to incidents.json in a request log.
type reqCount struct{ OK, NotModified, Other int }

func (c reqCount) total() int { return c.OK + c.NotModified + c.Other }

func (c reqCount) String() string {
	return fmt.Sprintf("%d × 200, %d × 304, %d other", c.OK, c.NotModified, c.Other)
}

func countRequests(log []fakepage.Request) reqCount {
	var c reqCount
	for _, r := range log {
		if r.Path != incidentsPath {
			continue
		}
		switch r.Status {
		case http.StatusOK:
			c.OK++
		case http.StatusNotModified:
			c.NotModified++
		default:
			c.Other++
		}
	}
	return c
}

// pollResult is what one run of the poll phases measured.
type pollResult struct {
	WatcherStart, UrlwatchStart usage // a command that does nothing: `watcher version`, `urlwatch --version`
	WatcherCold, WatcherWarm    usage
	UrlwatchCold, UrlwatchWarm  usage
	// bench/floor: the GETs (and, cold, a hash and a decode of each body) that any Go
	// program must do, nothing archived.
	FloorCold, FloorWarm usage
	FloorArchive         usage                         // bench/floor -archive, cold: the archiving floor
	Requests             map[string]reqCount           // by round label
	Conns                map[string]fakepage.ConnStats // by round label: what the servers saw

	ArchiveAfterCold int64 // file bytes

	UnchangedCPU       time.Duration // median over the unchanged rounds
	UnchangedGrowth    int64         // file bytes grown over them (must be 0)
	UnchangedIdentical bool          // the file is byte-identical after them

	ChangedCPU     time.Duration // median over the rounds with changes
	NewVersions    int
	ChangedFile    int64 // file bytes grown over those rounds
	ChangedAlloc   int64 // bucket page bytes grown
	ChangedInuse   int64 // bucket bytes in use grown
	ChangedParts   map[string]int64
	WantedVersions int
}

// pollRun runs the poll phases once: cold and warm rounds (side by side with urlwatch),
// unchanged rounds, rounds with changes.
func (b *bench) pollRun(ctx context.Context, r int) (*pollResult, error) {
	dir := filepath.Join(b.tmp, fmt.Sprintf("run%d", r+1))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	b.fleet.Reset()
	b.fleet.Requests()
	cfg, err := b.writeWatcherConfig(dir, b.o.Sources, "@every 2m")
	if err != nil {
		return nil, err
	}
	db := filepath.Join(dir, "watcher.db")
	poll := child{name: "watcher-poll", dir: dir, path: b.watcher, args: []string{"poll", "-config", cfg}}
	var uw *urlwatchRun
	if b.urlwatch != "" {
		if uw, err = newUrlwatchRun(b.urlwatch, filepath.Join(dir, "urlwatch"), b.fleet, b.o.Sources); err != nil {
			return nil, err
		}
		uw.caFile = b.caFile
	}
	res := &pollResult{Requests: map[string]reqCount{}, Conns: map[string]fakepage.ConnStats{}}

	// The cost of starting each program at all, the floor under every round.
	if res.WatcherStart, err = startCost(ctx, child{name: "watcher-version", dir: dir, path: b.watcher, args: []string{"version"}}); err != nil {
		return nil, err
	}
	if uw != nil {
		c := uw.child()
		c.name, c.args = "urlwatch-version", []string{"--version"}
		if res.UrlwatchStart, err = startCost(ctx, c); err != nil {
			return nil, err
		}
	}

	// One round of one tool, with the answers it got.
	round := func(label string, c child) (usage, error) {
		b.fleet.Requests()
		b.fleet.ConnStats()
		c.name = strings.ReplaceAll(label, " ", "-") // its logs: the last round of each kind
		u, err := c.run(ctx)
		res.Requests[label] = countRequests(b.fleet.Requests())
		res.Conns[label] = b.fleet.ConnStats()
		return u, err
	}
	// Cold then warm; the tools alternate, and which goes first alternates by run.
	for _, phase := range []string{"cold", "warm"} {
		steps := []func() error{
			func() error {
				u, err := round("watcher "+phase, poll)
				if phase == "cold" {
					res.WatcherCold = u
				} else {
					res.WatcherWarm = u
				}
				b.logf("run %d: watcher poll %s: CPU %v, wall %v, RSS %s; %v; %v", r+1, phase, u.CPU.Round(time.Millisecond), u.Wall.Round(time.Millisecond), mib(u.MaxRSS), res.Requests["watcher "+phase], res.Conns["watcher "+phase])
				return err
			},
		}
		steps = append(steps, func() error {
			c := child{dir: dir, path: b.floor, args: []string{"-config", cfg, "-mode", phase, "-etags", filepath.Join(dir, "floor-etags")}}
			if b.caFile != "" {
				c.args = append(c.args, "-ca-file", b.caFile)
			}
			u, err := round("floor "+phase, c)
			if phase == "cold" {
				res.FloorCold = u
			} else {
				res.FloorWarm = u
			}
			b.logf("run %d: floor %s: CPU %v, wall %v; %v", r+1, phase, u.CPU.Round(time.Millisecond), u.Wall.Round(time.Millisecond), res.Requests["floor "+phase])
			return err
		})
		if phase == "cold" {
			steps = append(steps, b.floorArchiveStep(r, dir, cfg, res, round))
		}
		if uw != nil {
			steps = append(steps, func() error {
				u, err := round("urlwatch "+phase, uw.child())
				if phase == "cold" {
					res.UrlwatchCold = u
				} else {
					res.UrlwatchWarm = u
				}
				b.logf("run %d: urlwatch %s: CPU %v, wall %v, RSS %s; %v", r+1, phase, u.CPU.Round(time.Millisecond), u.Wall.Round(time.Millisecond), mib(u.MaxRSS), res.Requests["urlwatch "+phase])
				return err
			})
		}
		if r%2 == 1 {
			slices.Reverse(steps)
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return nil, err
			}
		}
	}
	size, err := measureArchive(db)
	if err != nil {
		return nil, err
	}
	res.ArchiveAfterCold = size.File

	// Nothing changes: the archive must not change by one byte.
	var cpus []time.Duration
	for range b.o.Unchanged {
		u, err := round("watcher unchanged", poll)
		if err != nil {
			return nil, err
		}
		cpus = append(cpus, u.CPU)
	}
	after, err := measureArchive(db)
	if err != nil {
		return nil, err
	}
	res.UnchangedCPU = medianDur(cpus)
	res.UnchangedGrowth = after.File - size.File
	res.UnchangedIdentical = after.Hash == size.Hash
	b.logf("run %d: %d unchanged rounds: CPU %v per round (median); archive grew %d bytes, identical: %v", r+1, b.o.Unchanged, res.UnchangedCPU.Round(time.Millisecond), res.UnchangedGrowth, res.UnchangedIdentical)

	// Rounds with changes: bytes per new version.
	v0, err := countVersions(db)
	if err != nil {
		return nil, err
	}
	cpus = cpus[:0]
	next := 0
	for range b.o.Rounds {
		for range b.o.Changes {
			b.fleet.Change(next % b.o.Sources)
			next++
		}
		u, err := round("watcher changed", poll)
		if err != nil {
			return nil, err
		}
		cpus = append(cpus, u.CPU)
	}
	end, err := measureArchive(db)
	if err != nil {
		return nil, err
	}
	v1, err := countVersions(db)
	if err != nil {
		return nil, err
	}
	res.ChangedCPU = medianDur(cpus)
	res.NewVersions = v1 - v0
	res.WantedVersions = b.o.Rounds * b.o.Changes
	res.ChangedFile = end.File - after.File
	res.ChangedAlloc = end.Alloc - after.Alloc
	res.ChangedInuse = end.Inuse - after.Inuse
	res.ChangedParts = map[string]int64{}
	for k, v := range end.Parts {
		res.ChangedParts[k] = v - after.Parts[k]
	}
	b.logf("run %d: %d rounds × %d changes: CPU %v per round (median); %d new versions; file +%d, pages +%d, in use +%d bytes", r+1, b.o.Rounds, b.o.Changes, res.ChangedCPU.Round(time.Millisecond), res.NewVersions, res.ChangedFile, res.ChangedAlloc, res.ChangedInuse)
	return res, nil
}

// startCost is the median cost of 5 runs of c.
func startCost(ctx context.Context, c child) (usage, error) {
	var cpu, wall []time.Duration
	var rss []float64
	for range 5 {
		u, err := c.run(ctx)
		if err != nil {
			return u, err
		}
		cpu, wall, rss = append(cpu, u.CPU), append(wall, u.Wall), append(rss, float64(u.MaxRSS))
	}
	return usage{CPU: medianDur(cpu), Wall: medianDur(wall), MaxRSS: int64(summarize(rss).median)}, nil
}

// pct is cpu as a percentage of one core over wall.
func pct(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / wall.Seconds()
}

// scheduleInterval is the interval of an "@every D" schedule, else a sixth of the
// duration: how often pages change during the daemon phase.
func scheduleInterval(schedule string, duration time.Duration) time.Duration {
	if d, ok := strings.CutPrefix(schedule, "@every "); ok {
		if iv, err := time.ParseDuration(strings.TrimSpace(d)); err == nil && iv > 0 {
			return iv
		}
	}
	return max(duration/6, time.Second)
}

// loadAvg is the 1-minute load average, for the record of how busy the machine was.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
