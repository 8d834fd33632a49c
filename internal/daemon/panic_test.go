package daemon

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// panicPolls counts the polls of the "panictest" platform, each of which panics.
var panicPolls atomic.Int32

func init() {
	fetch.Register(fetch.Platform{Kind: "panictest", Poll: func(*fetch.Poll, context.Context) (*model.Snapshot, error) {
		panicPolls.Add(1)
		panic("a page no fuzzer made")
	}})
}

// A poll that panics is a failed poll: the source records the error and backs off, its
// slot and its poll in progress are released (the next poll runs rather than waiting on
// it for ever), and the process goes on, whether a cron tick, a runner of the due queue
// or PollNow ran it.
func TestAPanickingPollFailsTheSourceOnly(t *testing.T) {
	clk := &clock{t: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)}
	d, _ := newDaemonWith(t, "listen: \"\"\nhttp:\n  concurrency: 1\nsources:\n  - name: boom\n    url: https://boom.test\n    kind: panictest\n    schedule: \"@every 1m\"\n", clk)
	before := panicPolls.Load()

	d.job("boom")() // a cron tick
	st := d.Sources()[0]
	if !strings.Contains(st.LastError, "poll panicked: a page no fuzzer made") || st.ConsecutiveFailures != 1 {
		t.Fatalf("after a panicking poll: last error %q, %d failures; want the panic as the error, 1 failure", st.LastError, st.ConsecutiveFailures)
	}
	if n := len(d.slots); n != 0 {
		t.Errorf("%d poll slots still taken after the panic, want 0", n)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := d.PollNow(ctx, "boom"); err == nil || !strings.Contains(err.Error(), "poll panicked") {
		t.Fatalf("PollNow after the panic: %v, want the next poll's own panic as its error (not a wait on the first)", err)
	}
	if got := panicPolls.Load() - before; got != 2 {
		t.Errorf("%d polls ran, want 2", got)
	}
	if st := d.Sources()[0]; st.ConsecutiveFailures != 2 {
		t.Errorf("%d failures after two panicking polls, want 2", st.ConsecutiveFailures)
	}
	// Past the backoff, the schedule polls it again.
	clk.Add(time.Hour)
	d.job("boom")()
	if got := panicPolls.Load() - before; got != 3 {
		t.Errorf("%d polls after a tick past the backoff, want 3", got)
	}
}
