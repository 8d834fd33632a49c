package notify_test

import (
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/model"
)

// TestRetryAfterOutlivesARestart: a 429 counts as an attempt, and Slack's Retry-After is
// kept with the row, so a new process (a restart, the next `watcher poll`) waits it out
// instead of calling Slack at once.
func TestRetryAfterOutlivesARestart(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	e.poll("acme", inc("a1", model.StatusInvestigating, "One."))
	e.fs.Fail(1, fakeslack.Fault{Status: 429, RetryAfter: 120})
	start := e.clock.Now()

	if sent, queued, _ := e.drain(e.deliverer()); sent != 0 || queued != 1 {
		t.Errorf("first Drain: got sent %d, queued %d; want 0, 1", sent, queued)
	}
	wantCalls(t, "first run", e.calls(), "chat.postMessage #status ✗ Too Many Requests")
	msgs := e.messages(model.MessagePending)
	if len(msgs) != 1 {
		t.Fatalf("pending: got %d messages, want 1", len(msgs))
	}
	if m := msgs[0]; m.Attempts != 1 || !m.NotBefore.Equal(start.Add(120*time.Second)) || m.LastError == "" {
		t.Errorf("after the 429: got attempts %d, not before %v, last error %q; want 1, %v and the error",
			m.Attempts, m.NotBefore, m.LastError, start.Add(120*time.Second))
	}

	steps := []struct {
		name       string
		advance    time.Duration
		wantSent   int
		wantQueued int
		wantCalls  []string
	}{
		{"restart inside the wait", 30 * time.Second, 0, 1, nil},
		{"restart after the wait", 2 * time.Minute, 1, 0, []string{"chat.postMessage #status → m1"}},
	}
	for _, s := range steps {
		e.restart()
		e.clock.advance(s.advance)
		sent, queued, err := e.drain(e.deliverer())
		if sent != s.wantSent || queued != s.wantQueued {
			t.Errorf("%s: Drain got sent %d, queued %d (%v); want %d, %d", s.name, sent, queued, err, s.wantSent, s.wantQueued)
		}
		wantCalls(t, s.name, e.calls(), s.wantCalls...)
	}
}
