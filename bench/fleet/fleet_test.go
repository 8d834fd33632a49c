package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuick runs the whole benchmark at -quick sizes (5 pages, 2 rounds of each kind, a 3 s
// daemon phase, no urlwatch) on a freshly built binary: the harness works end to end and
// the archive invariants hold. It proves nothing about speed.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds watcher and runs it against local pages for several seconds")
	}
	o := quick()
	res, _ := runQuick(t, o)
	p := res.Poll[0]
	if p.WatcherCold.CPU <= 0 || p.WatcherCold.Wall <= 0 || p.WatcherCold.MaxRSS <= 0 {
		t.Errorf("cold round not measured: %+v", p.WatcherCold)
	}
	if got := p.Requests["watcher cold"]; got.OK != o.Sources || got.total() != o.Sources {
		t.Errorf("cold round answers: %v, want %d × 200", got, o.Sources)
	}
	if got := p.Requests["watcher warm"]; got.NotModified != o.Sources || got.total() != o.Sources {
		t.Errorf("warm round answers: %v, want %d × 304", got, o.Sources)
	}
	if p.UnchangedGrowth != 0 || !p.UnchangedIdentical {
		t.Errorf("unchanged rounds: archive grew %d bytes, identical %v", p.UnchangedGrowth, p.UnchangedIdentical)
	}
	if want := o.Rounds * o.Changes; p.NewVersions != want || p.ChangedInuse <= 0 {
		t.Errorf("rounds with changes: %d new versions, %d bytes; want %d versions and some bytes", p.NewVersions, p.ChangedInuse, want)
	}
	d := res.Daemon[0]
	if d.SteadyPolls <= 0 || d.CPU <= 0 || d.HWM <= 0 || d.Failures != 0 {
		t.Errorf("daemon: %d polls, CPU %v, VmHWM %d, %d failures", d.SteadyPolls, d.CPU, d.HWM, d.Failures)
	}
	var md bytes.Buffer
	res.markdown(&md)
	for _, want := range []string{"## Fleet", "| cold (empty archive/cache): CPU |", "unchanged rounds: archive bytes grown", "against the floor", "`watcher run`", "Reproduce: `go run ./bench/fleet"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// TestQuickTLS runs the -quick daemon phase over HTTPS: every page on its own loopback
// address with the fleet CA's certificate, the daemon reading through http.ca_file,
// HTTP/2 used, and the servers' handshake counts in the results.
func TestQuickTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds watcher and runs it against local pages for several seconds")
	}
	o := quick()
	o.TLS = true
	o.Rounds, o.Unchanged = 1, 1
	res, log := runQuick(t, o)
	if c := res.Poll[0].Conns["watcher cold"]; c.Handshakes != o.Sources || c.Protocols["HTTP/2.0"] == 0 {
		t.Errorf("cold round over HTTPS: %v; want %d handshakes and HTTP/2", c, o.Sources)
	}
	d := res.Daemon[0]
	if d.SteadyPolls <= o.Sources || d.Failures != 0 {
		t.Fatalf("daemon: %d polls, %d failures; want more than one round and none failing\n%s", d.SteadyPolls, d.Failures, log)
	}
	// The daemon keeps its connections: fewer new ones than polls (one per page, and one
	// more after each changed body).
	if d.Conns.Conns >= d.Polls.total() || d.Conns.Handshakes != d.Conns.Conns {
		t.Errorf("daemon: %v for %d polls; want connections kept between polls", d.Conns, d.Polls.total())
	}
	var md bytes.Buffer
	res.markdown(&md)
	if !strings.Contains(md.String(), "over HTTPS") || !strings.Contains(md.String(), "TLS handshakes per poll") {
		t.Errorf("markdown lacks the HTTPS rows:\n%s", md.String())
	}
}

// runQuick runs the benchmark with o and fails on an error, a violation or runs missing;
// it returns the results and the progress log.
func runQuick(t *testing.T, o options) (*results, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	res, err := run(ctx, o, &log)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if len(res.Violations) > 0 {
		t.Errorf("violations: %v\n%s", res.Violations, log.String())
	}
	if len(res.Poll) != 1 || len(res.Daemon) != 1 {
		t.Fatalf("%d poll runs and %d daemon runs, want 1 and 1", len(res.Poll), len(res.Daemon))
	}
	return res, log.String()
}

// TestQuickArchiveReused: with -archive the first daemon run fills the file with its cold
// round and the second copies it instead; a third process (a new fleet, other ports)
// copies it too, since the pages' bytes are the same.
func TestQuickArchiveReused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds watcher and runs it against local pages for several seconds")
	}
	o := quick()
	o.Runs, o.Rounds, o.Unchanged, o.Duration = 2, 1, 1, 2*time.Second
	dir := t.TempDir()
	o.Archive, o.Watcher = filepath.Join(dir, "prefilled.db"), filepath.Join(dir, "watcher")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// One build for both processes below.
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", o.Watcher, "github.com/statuswatch/statuswatch/cmd/watcher").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var log bytes.Buffer
	res, err := run(ctx, o, &log)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if len(res.Daemon) != 2 || res.Daemon[0].Reused || !res.Daemon[1].Reused || res.Daemon[1].Prewarm.CPU != 0 {
		t.Fatalf("daemon runs: want the first to fill %s and the second to copy it\n%s", o.Archive, log.String())
	}
	for _, d := range res.Daemon {
		if d.Polls.NotModified == 0 || d.Failures != 0 {
			t.Fatalf("daemon on the prefilled archive: %v, %d failures; want 304s and none failing\n%s", d.Polls, d.Failures, log.String())
		}
	}
	var md bytes.Buffer
	res.markdown(&md)
	if !strings.Contains(md.String(), "a copy of `"+o.Archive+"`") || !strings.Contains(md.String(), "-archive "+o.Archive) {
		t.Errorf("markdown does not say the archive was copied:\n%s", md.String())
	}
	o.Runs = 1
	log.Reset()
	if res, err = run(ctx, o, &log); err != nil || !res.Daemon[0].Reused {
		t.Fatalf("a new fleet did not reuse %s: %v\n%s", o.Archive, err, log.String())
	}
}
