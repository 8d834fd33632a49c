package demo

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// /metrics counts the notifications the console printed, as it counts Slack's.
func TestDemoMetricsCountConsoleNotifications(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errs syncBuffer
	urls := make(chan string, 1)
	finished := make(chan struct{})
	ended := make(chan error, 1)
	go func() {
		ended <- Run(ctx, Options{
			Listen: "127.0.0.1:0", Speed: 100, Stdout: &out, Stderr: &errs,
			Ready: func(u string) { urls <- u },
			Done:  func() { close(finished) },
		})
	}()
	var base string
	select {
	case base = <-urls:
	case err := <-ended:
		t.Fatalf("demo ended before serving: %v\n%s", err, errs.String())
	}
	select {
	case <-finished:
	case <-ctx.Done():
		t.Fatalf("demo did not finish its script:\n%s", out.String())
	}
	for !strings.Contains(out.String(), "Postmortem: Elevated authentication failures") && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	printed := strings.Count(out.String(), "\n== ")
	if strings.HasPrefix(out.String(), "== ") {
		printed++
	}
	// The count follows the print by an instant: read until they agree, or the test's
	// deadline.
	got := -1
	for got != printed && ctx.Err() == nil {
		if got >= 0 {
			time.Sleep(10 * time.Millisecond)
		}
		got = sentCount(t, base)
	}
	if got != printed || printed == 0 {
		t.Errorf("watcher_notifications_total{result=\"sent\"}: got %d, want %d (the notifications the console printed)", got, printed)
	}
	cancel()
	if err := <-ended; err != nil {
		t.Errorf("demo ended with %v", err)
	}
}

// sentCount reads watcher_notifications_total{result="sent"} from /metrics.
func sentCount(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := sentRE.FindSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics has no watcher_notifications_total{result=\"sent\"}:\n%s", body)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

var sentRE = regexp.MustCompile(`(?m)^watcher_notifications_total\{receiver="console",result="sent"\} (\d+)$`)
