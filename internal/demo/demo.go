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
	steps := Script(time.Now().UTC().Truncate(time.Minute))
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
		NewDelivery: func(cfg *config.Config, _ func(string)) (daemon.Delivery, error) {
			return &notify.Deliverer{Outbox: store, Notifier: &notify.Console{W: o.Stdout}, BaseURL: cfg.BaseURL,
				Title: func(string) string { return "Acme Cloud" }, Log: log}, nil
		},
		Version: "demo",
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
	fmt.Fprintf(o.Stdout, "A local status page replays a recorded incident, a step every %s. Ctrl-C stops.\n\n", (time.Duration(float64(StepInterval) / o.Speed)).Round(time.Millisecond))
	if o.Ready != nil {
		o.Ready(uiURL)
	}
	every := time.Duration(float64(StepInterval) / o.Speed)
	for i, s := range steps {
		if i > 0 && !sleep(runCtx, every) {
			break
		}
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
