// Package demo is `watcher demo`: a built-in local status page replays a recorded incident
// through the whole pipeline — fetch, archive, diff, console notifications, UI — into a
// temporary archive, offline.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/daemon"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// StepInterval is the time between two steps of the script at speed 1.
const StepInterval = 5 * time.Second

// Options configure a demo run.
type Options struct {
	Listen string  // UI address; when taken, the next free port is used
	Speed  float64 // steps come every StepInterval / Speed
	Stdout io.Writer
	Stderr io.Writer
	// Ready, when set, receives the UI's URL once it serves (tests).
	Ready func(url string)
	// Step, when set, is called after each step is polled, before the next one: a test can
	// look at the UI at every step while the replay waits.
	Step func(i int, s Step)
	// Done, when set, is called after the last step (tests).
	Done func()
}

// Run plays the demo until ctx ends.
func Run(ctx context.Context, o Options) error {
	if o.Speed <= 0 {
		o.Speed = 1
	}
	dir, err := os.MkdirTemp("", "watcher-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	page := &fakepage.Statuspage{Name: "Acme Cloud"}
	every := time.Duration(float64(StepInterval) / o.Speed)
	steps := replaySteps(time.Now(), every)
	clock := newReplayClock(steps[0].At)
	page.Set(steps[0].Incidents, nil)
	pageLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	pageSrv := &http.Server{Handler: page, ReadHeaderTimeout: 5 * time.Second}
	go pageSrv.Serve(pageLn)
	defer pageSrv.Close()

	uiLn, err := listen(o.Listen)
	if err != nil {
		return err
	}
	uiURL := "http://" + uiLn.Addr().String()
	cfgText := fmt.Sprintf(`database: %s
listen: %s
base_url: %s
sources:
  - name: acme
    title: Acme Cloud
    url: http://%s/
    kind: statuspage
    schedule: "@every 10s"
`, strconv.Quote(filepath.Join(dir, "watcher.db")), uiLn.Addr(), uiURL, pageLn.Addr())
	cfg, err := config.Parse([]byte(cfgText), filepath.Join(dir, "config.yaml"))
	if err != nil {
		uiLn.Close()
		return fmt.Errorf("demo config: %w", err)
	}
	store, err := archive.Open(cfg.Database, archive.Options{})
	if err != nil {
		uiLn.Close()
		return err
	}
	defer store.Close()
	log := slog.New(slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	d, err := daemon.New(daemon.Options{
		Config: cfg, Store: store, Log: log, Listener: uiLn,
		NewDelivery: func(cfg *config.Config, onResult func(string, string)) (daemon.Delivery, error) {
			return &notify.Set{Deliverers: []*notify.Deliverer{{Outbox: store, Notifier: &notify.Console{W: o.Stdout}, BaseURL: cfg.BaseURL,
				Name: "console", Title: func(string) string { return "Acme Cloud" }, Log: log,
				OnResult: func(result string) { onResult("console", result) }}}}, nil
		},
		Version: "demo",
		Now:     clock.Now,
	})
	if err != nil {
		uiLn.Close()
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- d.Run(runCtx) }()

	fmt.Fprintf(o.Stdout, "statuswatch demo: the UI is at %s\n", uiURL)
	fmt.Fprintf(o.Stdout, "A local status page replays a recorded incident, a step every %s. Ctrl-C stops.\n", every.Round(time.Millisecond))
	fmt.Fprintf(o.Stdout, "The recorded incident spans %s from its first update to its postmortem: the replay's clock starts at %s,\njumps to each step's moment and reaches now at the end.\n\n",
		span(steps[len(steps)-1].At.Sub(steps[1].At)), steps[0].At.Format("2006-01-02 15:04 UTC"))
	if o.Ready != nil {
		o.Ready(uiURL)
	}
	for i, s := range steps {
		if i > 0 && !sleep(runCtx, every) {
			break
		}
		// The clock moves first: a scheduled poll that sees the new page sees its time.
		clock.Set(s.At)
		page.Set(s.Incidents, nil)
		fmt.Fprintf(o.Stdout, "▶ step %d/%d: %s\n", i+1, len(steps), s.Say)
		if _, err := d.PollNow(runCtx, "acme"); err != nil && runCtx.Err() == nil {
			fmt.Fprintf(o.Stderr, "demo: poll: %v\n", err)
		}
		// The daemon's delivery loop prints the step's notification; let it, so the
		// console reads step by step and the last one comes before "the replay is over".
		waitDelivered(runCtx, store, 2*time.Second)
		if o.Step != nil {
			o.Step(i, s)
		}
	}
	if runCtx.Err() == nil {
		fmt.Fprintf(o.Stdout, "\nThe replay is over. Browse it at %s — the silent edit is change 3. Ctrl-C stops.\n", uiURL)
		if o.Done != nil {
			o.Done()
		}
	}
	err = <-done
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// replaySteps is the script placed on the replay clock: its last step comes at the
// moment it is shown (the start of the run plus the steps before it, in whole minutes,
// never later), so the replay ends on the wall clock's today.
func replaySteps(now time.Time, every time.Duration) []Step {
	probe := Script(now)
	last := probe[len(probe)-1].At
	end := now.Add(time.Duration(len(probe)-1) * every).UTC().Truncate(time.Minute)
	return Script(now.Add(end.Sub(last)))
}

// replayClock is the demo's clock: it reads the moment of the step on show and runs on
// from there in real time, so what the daemon observes and what the UI calls "ago" match
// the recorded incident's own times. It never goes back.
type replayClock struct {
	mu  sync.Mutex
	at  time.Time // the reading at ref
	ref time.Time // the wall clock when at was set
}

func newReplayClock(at time.Time) *replayClock {
	return &replayClock{at: at, ref: time.Now()}
}

// Now reads the clock.
func (c *replayClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at.Add(time.Since(c.ref))
}

// Set moves the clock to t, or leaves it where it is when t is behind it.
func (c *replayClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if cur := c.at.Add(now.Sub(c.ref)); t.Before(cur) {
		t = cur
	}
	c.at, c.ref = t, now
}

// span is a duration as the console says it: "3 days", "1h 23m".
func span(d time.Duration) string {
	d = d.Round(time.Minute)
	switch days := d / (24 * time.Hour); {
	case days >= 2:
		return fmt.Sprintf("%d days", days)
	case d >= time.Hour:
		return fmt.Sprintf("%dh %dm", d/time.Hour, d%time.Hour/time.Minute)
	}
	return fmt.Sprintf("%dm", d/time.Minute)
}

// listen opens addr, or the next free port after it when it is taken.
func listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	host, portText, perr := net.SplitHostPort(addr)
	port, aerr := strconv.Atoi(portText)
	if perr != nil || aerr != nil || port == 0 {
		return nil, fmt.Errorf("demo: listen on %s: %w", addr, err)
	}
	for p := port + 1; p < port+50 && p < 65536; p++ {
		if ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p))); err == nil {
			return ln, nil
		}
	}
	return net.Listen("tcp", net.JoinHostPort(host, "0"))
}

// waitDelivered waits, at most limit, until the outbox holds no pending message.
func waitDelivered(ctx context.Context, store *archive.Store, limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		if msgs, err := store.Messages(model.MessagePending); err != nil || len(msgs) == 0 {
			return
		}
		if !sleep(ctx, 10*time.Millisecond) {
			return
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
