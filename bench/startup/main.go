// Command startup measures how long `watcher run` takes to report READY=1 to systemd on a
// large archive (issue 7: under a second with 1 GB).
//
//	go run ./bench/startup -size 1GiB -runs 5
//
// It builds the binary, fills a temporary archive to the size asked with versions and
// incompressible raw snapshots (the bulk of a real archive), then starts the daemon under a
// fake NOTIFY_SOCKET several times and reports the median time from exec to READY=1.
package main

import (
	"crypto/rand"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/model"
)

func main() {
	sizeText := flag.String("size", "1GiB", "archive size to build")
	runs := flag.Int("runs", 5, "start-ups to time")
	keep := flag.String("archive", "", "reuse (or keep) the archive at this path")
	flag.Parse()
	size, err := config.ParseSize(*sizeText)
	if err != nil {
		fail(err)
	}
	dir, err := os.MkdirTemp("", "watcher-startup")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "watcher")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/watcher").CombinedOutput(); err != nil {
		fail(fmt.Errorf("go build: %v\n%s", err, out))
	}
	db := *keep
	if db == "" {
		db = filepath.Join(dir, "watcher.db")
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() < size {
		fmt.Fprintf(os.Stderr, "building a %s archive at %s…\n", *sizeText, db)
		if err := fill(db, size); err != nil {
			fail(err)
		}
	}
	fi, _ := os.Stat(db)
	cfg := filepath.Join(dir, "config.yaml")
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nlisten: 127.0.0.1:0\nsources:\n", db)
	for i := range 50 {
		fmt.Fprintf(&b, "  - name: s%d\n    url: http://127.0.0.1:1/s%d/\n    kind: statuspage\n    schedule: \"@every 1h\"\n", i, i)
	}
	os.WriteFile(cfg, []byte(b.String()), 0o600)

	var times []time.Duration
	for range *runs {
		d, err := startOnce(bin, cfg, dir)
		if err != nil {
			fail(err)
		}
		times = append(times, d)
	}
	slices.Sort(times)
	fmt.Printf("archive %d MiB: READY after %v (median of %d; min %v, max %v)\n",
		fi.Size()>>20, times[len(times)/2].Round(time.Millisecond), len(times), times[0].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond))
}

// startOnce runs the daemon until it says READY=1 and returns how long that took.
func startOnce(bin, cfg, dir string) (time.Duration, error) {
	sock := filepath.Join(dir, "notify.sock")
	os.Remove(sock)
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	cmd := exec.Command(bin, "run", "-config", cfg)
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock, "SLACK_BOT_TOKEN=")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return 0, fmt.Errorf("no READY=1: %w", err)
		}
		if strings.Contains(string(buf[:n]), "READY=1") {
			return time.Since(start), nil
		}
	}
}

// fill grows the archive at path to size with incidents, versions and 1 MiB raw bodies.
func fill(path string, size int64) error {
	st, err := archive.Open(path, archive.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer st.Close()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	body := make([]byte, 1<<20)
	for i := 0; ; i++ {
		if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
			return nil
		}
		source := fmt.Sprintf("s%d", i%50)
		at := t0.Add(time.Duration(i) * time.Hour)
		inc := model.Incident{
			ID: fmt.Sprintf("inc%d", i/3), Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
			Title: fmt.Sprintf("Incident %d", i/3), StartedAt: at, Components: []string{"API"},
			Updates: []model.Update{{ID: fmt.Sprintf("u%d", i), Status: model.StatusInvestigating, Body: fmt.Sprintf("Update %d", i), Format: model.FormatText, PostedAt: at}},
		}
		rand.Read(body) // incompressible: every byte lands in the file
		snap := &model.Snapshot{Source: source, FetchedAt: at, Listings: []model.Listing{{Kind: model.KindIncident, Since: at}}, Incidents: []model.Incident{inc}}
		if _, err := st.Record(source, snap, nil, []model.Body{{Endpoint: "incidents", Data: body}}, archive.Policy{FirstPoll: archive.FirstPollNone}); err != nil {
			return err
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}
