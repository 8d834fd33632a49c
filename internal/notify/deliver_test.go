package notify_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// TestIncidentLife checks the exact Slack calls of an incident's life: the root, then per
// change set one reply in its thread followed by the root's update, with resolution and
// postmortem also sent to the channel.
func TestIncidentLife(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	a := inc("a1", model.StatusInvestigating, "We are investigating.")

	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{"new incident: the root", func() {}, []string{
			"chat.postMessage #status → m1",
		}},
		{"an update and a status change: one reply, then the root updated", func() {
			a.Status = model.StatusIdentified
			a.Updates = append(a.Updates, model.Update{ID: "a1-u2", Status: model.StatusIdentified, Body: "Found it.", PostedAt: t0.Add(time.Hour)})
		}, []string{
			"chat.postMessage C0001 thread=m1 → m2",
			"chat.update C0001 ts=m1",
		}},
		{"an edited update", func() {
			a.Updates = slices.Clone(a.Updates)
			a.Updates[0].Body = "We are investigating errors in eu-west-1."
		}, []string{
			"chat.postMessage C0001 thread=m1 → m3",
			"chat.update C0001 ts=m1",
		}},
		{"resolved: broadcast", func() {
			a.Status, a.ResolvedAt = model.StatusResolved, t0.Add(2*time.Hour)
			a.Updates = append(slices.Clone(a.Updates), model.Update{ID: "a1-u3", Status: model.StatusResolved, Body: "Fixed.", PostedAt: t0.Add(2 * time.Hour)})
		}, []string{
			"chat.postMessage C0001 thread=m1 broadcast → m4",
			"chat.update C0001 ts=m1",
		}},
		{"postmortem: broadcast", func() {
			a.Status = model.StatusPostmortem
			a.Postmortem = &model.Postmortem{Body: "Root cause: a bad deploy.", Format: model.FormatText, PublishedAt: t0.Add(72 * time.Hour)}
		}, []string{
			"chat.postMessage C0001 thread=m1 broadcast → m5",
			"chat.update C0001 ts=m1",
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change()
			e.poll("acme", a)
			sent, queued, err := e.drain(d)
			if err != nil || sent != 1 || queued != 0 {
				t.Errorf("Drain: got sent %d, queued %d, %v; want 1, 0, nil", sent, queued, err)
			}
			wantCalls(t, st.name, e.calls(), st.want...)
		})
	}

	ch, ts, err := e.store.Thread("acme", "a1")
	if err != nil || ch != "C0001" || e.label(ts) != "m1" {
		t.Errorf("Thread: got %s %s (%s), %v; want C0001 m1", ch, ts, e.label(ts), err)
	}
	root, _ := e.fs.Message(ch, ts)
	if !strings.Contains(root.Text, "Resolved, postmortem published") || root.Edits != 4 {
		t.Errorf("root: got %q after %d edits, want the postmortem state after 4", root.Text, root.Edits)
	}
	if len(e.fs.Replies(ch, ts)) != 4 {
		t.Errorf("replies: got %d, want 4", len(e.fs.Replies(ch, ts)))
	}
}

// failingOutbox is an archive whose MarkSent fails for chosen messages, as a crash right
// after Slack's answer would leave them.
type failingOutbox struct {
	notify.Outbox
	fail map[uint64]bool
}

func (f *failingOutbox) MarkSent(id uint64) error {
	if f.fail[id] {
		return errors.New("disk on fire")
	}
	return f.Outbox.MarkSent(id)
}

func TestRestart(t *testing.T) {
	t.Run("threads come from the archive", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		a := inc("a1", model.StatusInvestigating, "Investigating.")
		e.poll("acme", a)
		e.drain(e.deliverer())
		e.calls()

		e.restart()
		a.Status = model.StatusMonitoring
		e.poll("acme", a)
		if _, _, err := e.drain(e.deliverer()); err != nil {
			t.Fatal(err)
		}
		wantCalls(t, "after restart", e.calls(),
			"chat.postMessage C0001 thread=m1 → m2",
			"chat.update C0001 ts=m1",
		)
	})

	t.Run("a root update owed at a restart is done by the next run", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		a := inc("a1", model.StatusInvestigating, "Investigating.")
		e.poll("acme", a)
		e.drain(e.deliverer())
		e.calls()

		// The reply goes; Slack refuses every update of the root, and the process stops.
		e.fs.Fail(100, fakeslack.Fault{Method: "chat.update", Status: 500})
		a.Status = model.StatusMonitoring
		e.poll("acme", a)
		e.drain(e.deliverer())
		calls := e.calls()
		if len(calls) < 2 || calls[0] != "chat.postMessage C0001 thread=m1 → m2" || !strings.HasPrefix(calls[1], "chat.update C0001 ✗") {
			t.Fatalf("first run: got %q", calls)
		}
		e.fs.Reset()

		e.restart()
		if _, _, err := e.drain(e.deliverer()); err != nil {
			t.Fatal(err)
		}
		wantCalls(t, "after restart", e.calls(), "chat.update C0001 ts=m1")
		ch, ts, _ := e.store.Thread("acme", "a1")
		if root, _ := e.fs.Message(ch, ts); !strings.Contains(root.Text, "(monitoring") {
			t.Errorf("root after restart: %q, want it to show monitoring", root.Text)
		}
		if owed, err := e.store.RootEdits(); err != nil || len(owed) != 0 {
			t.Errorf("still owed after the update: %+v, %v", owed, err)
		}

		// And a third run owes nothing.
		e.restart()
		e.drain(e.deliverer())
		wantCalls(t, "third run", e.calls())
	})

	t.Run("a root posted but not marked sent is not posted again", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		e.poll("acme", inc("a1", model.StatusInvestigating, "Investigating."))
		d := e.deliverer()
		d.Outbox = &failingOutbox{Outbox: e.store, fail: map[uint64]bool{1: true}}
		if _, _, err := e.drain(d); err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("Drain: got %v, want the MarkSent error", err)
		}
		wantCalls(t, "first run", e.calls(), "chat.postMessage #status → m1")
		if got := len(e.messages(model.MessagePending)); got != 1 {
			t.Fatalf("pending: got %d, want 1", got)
		}

		e.restart()
		sent, queued, err := e.drain(e.deliverer())
		if err != nil || sent != 1 || queued != 0 {
			t.Errorf("Drain: got %d, %d, %v; want 1, 0, nil", sent, queued, err)
		}
		wantCalls(t, "second run", e.calls())
	})
}

// TestRetryAfterAndServerErrors: a 429 and a burst of 500s in the middle of a queue lose
// nothing and repeat nothing, and the waits are Slack's and the backoff's, exactly.
func TestRetryAfterAndServerErrors(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	e.poll("acme", inc("a1", model.StatusInvestigating, "One."), inc("a2", model.StatusInvestigating, "Two."), inc("a3", model.StatusInvestigating, "Three."))
	e.fs.Fail(1, fakeslack.Fault{Skip: 1, Status: 429, RetryAfter: 5})
	e.fs.Fail(3, fakeslack.Fault{Status: 500})
	start := e.clock.Now()

	sent, queued, err := e.drain(e.deliverer())
	if sent != 3 || queued != 0 || err != nil {
		t.Errorf("Drain: got sent %d, queued %d, %v; want 3, 0, nil", sent, queued, err)
	}
	calls := e.fs.Calls()
	wantCalls(t, "drain", e.calls(),
		"chat.postMessage #status → m1",
		"chat.postMessage #status ✗ Too Many Requests",
		"chat.postMessage #status ✗ Internal Server Error",
		"chat.postMessage #status ✗ Internal Server Error",
		"chat.postMessage #status ✗ Internal Server Error",
		"chat.postMessage #status → m2",
		"chat.postMessage #status → m3",
	)
	// Pacing, Retry-After, then backoff 2 s, 4 s, 8 s, then pacing.
	var gaps []time.Duration
	for i := 1; i < len(calls); i++ {
		gaps = append(gaps, calls[i].At.Sub(calls[i-1].At))
	}
	want := []time.Duration{time.Second, 5 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, time.Second}
	if !slices.Equal(gaps, want) {
		t.Errorf("gaps: got %v, want %v", gaps, want)
	}
	if calls[0].At != start {
		t.Errorf("first call at %v, want %v", calls[0].At, start)
	}
	titles := map[string]int{}
	for _, m := range e.fs.Messages("#status") {
		titles[m.Text[:strings.Index(m.Text, " (")]]++
	}
	for _, id := range []string{"a1", "a2", "a3"} {
		if n := titles["Acme · New incident: Incident "+id]; n != 1 {
			t.Errorf("%s posted %d times, want once", id, n)
		}
	}
	if got := e.messages(model.MessagePending, model.MessageParked); len(got) != 0 {
		t.Errorf("left in the outbox: %+v", got)
	}
}

// TestDrainIsBounded: a Retry-After beyond Drain's budget is left to the next run.
func TestDrainIsBounded(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	e.poll("acme", inc("a1", model.StatusInvestigating, "One."), inc("a2", model.StatusInvestigating, "Two."))
	e.fs.Fail(1, fakeslack.Fault{Status: 429, RetryAfter: 120})
	d := e.deliverer()
	sent, queued, _ := e.drain(d)
	if sent != 0 || queued != 2 {
		t.Errorf("Drain: got sent %d, queued %d; want 0, 2", sent, queued)
	}
	if s := e.clock.sleeps(); len(s) != 0 {
		t.Errorf("slept %v, want no sleep past the budget", s)
	}
	e.calls()
	e.clock.advance(2 * time.Minute)
	if sent, queued, err := e.drain(d); sent != 2 || queued != 0 || err != nil {
		t.Errorf("Drain after the wait: got %d, %d, %v; want 2, 0, nil", sent, queued, err)
	}
}

func TestErrorClasses(t *testing.T) {
	t.Run("auth pauses everything and drops nothing", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status", "beta": "#other"})
		e.poll("acme", inc("a1", model.StatusInvestigating, "One."))
		e.poll("beta", inc("b1", model.StatusInvestigating, "Two."))
		e.fs.Fail(1, fakeslack.Fault{Error: "invalid_auth"})
		d := e.deliverer()
		sent, queued, err := e.drain(d)
		if sent != 0 || queued != 2 || err == nil {
			t.Errorf("Drain: got %d, %d, %v; want 0, 2 and an error", sent, queued, err)
		}
		wantCalls(t, "paused", e.calls(), "chat.postMessage #status ✗ invalid_auth")
		if paused, why := d.Paused(); !paused || !strings.Contains(why, "invalid_auth") {
			t.Errorf("Paused: got %t %q, want true and the reason", paused, why)
		}
		pending := e.messages(model.MessagePending)
		if len(pending) != 2 || len(e.messages(model.MessageParked)) != 0 {
			t.Errorf("outbox: got %d pending, want 2 and none parked", len(pending))
		}
		if !strings.Contains(pending[0].LastError, "invalid_auth") {
			t.Errorf("last error: got %q, want invalid_auth", pending[0].LastError)
		}
		e.drain(d)
		wantCalls(t, "still paused", e.calls())

		d.Resume()
		if paused, _ := d.Paused(); paused {
			t.Error("still paused after Resume")
		}
		if sent, _, _ := e.drain(d); sent != 2 {
			t.Errorf("after Resume: sent %d, want 2", sent)
		}
		// #status is paced by its failed call, so #other goes first.
		wantCalls(t, "resumed", e.calls(), "chat.postMessage #other → m1", "chat.postMessage #status → m2")
	})

	t.Run("a gone channel parks only its own messages", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#gone", "beta": "#ok"})
		e.poll("acme", inc("a1", model.StatusInvestigating, "One."), inc("a2", model.StatusInvestigating, "Two."))
		e.poll("beta", inc("b1", model.StatusInvestigating, "Three."))
		e.fs.Fail(1, fakeslack.Fault{Channel: "#gone", Error: "channel_not_found"})
		d := e.deliverer()
		sent, queued, _ := e.drain(d)
		if sent != 1 || queued != 2 {
			t.Errorf("Drain: got sent %d, queued %d; want 1, 2", sent, queued)
		}
		wantCalls(t, "drain", e.calls(), "chat.postMessage #gone ✗ channel_not_found", "chat.postMessage #ok → m1")
		qs, err := d.Queues()
		if want := []notify.Queue{{Destination: "#gone", Parked: 2}}; err != nil || !slices.Equal(qs, want) {
			t.Errorf("Queues: got %+v, %v; want %+v", qs, err, want)
		}
		for _, m := range e.messages(model.MessageParked) {
			if err := e.store.Retry(m.ID); err != nil {
				t.Fatal(err)
			}
		}
		if sent, queued, err := e.drain(d); sent != 2 || queued != 0 || err != nil {
			t.Errorf("after retry: got %d, %d, %v; want 2, 0, nil", sent, queued, err)
		}
		wantCalls(t, "after retry", e.calls(), "chat.postMessage #gone → m2", "chat.postMessage #gone → m3")
	})

	t.Run("a rejected message is retried once as plain text", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		e.poll("acme", inc("a1", model.StatusInvestigating, "One."))
		e.fs.Fail(1, fakeslack.Fault{Error: "invalid_blocks"})
		if sent, queued, err := e.drain(e.deliverer()); sent != 1 || queued != 0 || err != nil {
			t.Errorf("Drain: got %d, %d, %v; want 1, 0, nil", sent, queued, err)
		}
		wantCalls(t, "drain", e.calls(), "chat.postMessage #status ✗ invalid_blocks", "chat.postMessage #status plain → m1")
	})

	t.Run("rejected as plain text too: parked, the next goes on", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		e.poll("acme", inc("a1", model.StatusInvestigating, "One."), inc("a2", model.StatusInvestigating, "Two."))
		e.fs.Fail(2, fakeslack.Fault{Error: "msg_too_long"})
		sent, queued, _ := e.drain(e.deliverer())
		if sent != 1 || queued != 1 {
			t.Errorf("Drain: got sent %d, queued %d; want 1, 1", sent, queued)
		}
		wantCalls(t, "drain", e.calls(),
			"chat.postMessage #status ✗ msg_too_long",
			"chat.postMessage #status plain ✗ msg_too_long",
			"chat.postMessage #status → m1",
		)
		parked := e.messages(model.MessageParked)
		if len(parked) != 1 || parked[0].IncidentID != "a1" || !strings.Contains(parked[0].LastError, "msg_too_long") {
			t.Errorf("parked: got %+v, want a1 with its error", parked)
		}
	})

	t.Run("a reply waits for its parked root while another incident proceeds", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		a := inc("a1", model.StatusInvestigating, "One.")
		e.poll("acme", a)
		e.fs.Fail(2, fakeslack.Fault{Error: "invalid_blocks"})
		d := e.deliverer()
		e.drain(d)
		e.calls()
		a.Status = model.StatusIdentified
		e.poll("acme", a, inc("a2", model.StatusInvestigating, "Two."))
		sent, queued, _ := e.drain(d)
		if sent != 1 || queued != 1 {
			t.Errorf("Drain: got sent %d, queued %d; want 1, 1", sent, queued)
		}
		wantCalls(t, "root parked", e.calls(), "chat.postMessage #status → m1")
		pending, parked := e.messages(model.MessagePending), e.messages(model.MessageParked)
		if len(pending) != 1 || pending[0].IncidentID != "a1" || pending[0].Attempts != 0 || len(parked) != 1 {
			t.Errorf("outbox: got pending %+v, parked %+v; want a1's reply untried and its root parked", pending, parked)
		}
		qs, _ := d.Queues()
		if want := []notify.Queue{{Destination: "#status", Pending: 1, Waiting: 1, Parked: 1}}; !slices.Equal(qs, want) {
			t.Errorf("Queues: got %+v, want %+v", qs, want)
		}

		if err := e.store.Retry(parked[0].ID); err != nil {
			t.Fatal(err)
		}
		if sent, queued, err := e.drain(d); sent != 2 || queued != 0 || err != nil {
			t.Errorf("after retry: got %d, %d, %v; want 2, 0, nil", sent, queued, err)
		}
		wantCalls(t, "after retry", e.calls(),
			"chat.postMessage #status → m2",
			"chat.postMessage C0001 thread=m2 → m3",
			"chat.update C0001 ts=m2",
		)
	})

	t.Run("a parked reply holds nothing back", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		a := inc("a1", model.StatusInvestigating, "One.")
		e.poll("acme", a)
		d := e.deliverer()
		e.drain(d)
		e.calls()
		a.Status = model.StatusIdentified
		e.poll("acme", a)
		a.Status = model.StatusMonitoring
		e.poll("acme", a)
		e.fs.Fail(2, fakeslack.Fault{Error: "invalid_blocks"})
		sent, queued, err := e.drain(d)
		if sent != 1 || queued != 1 || err == nil {
			t.Errorf("Drain: got %d, %d, %v; want 1, 1 and the parked message's error", sent, queued, err)
		}
		wantCalls(t, "drain", e.calls(),
			"chat.postMessage C0001 thread=m1 ✗ invalid_blocks",
			"chat.postMessage C0001 thread=m1 plain ✗ invalid_blocks",
			"chat.postMessage C0001 thread=m1 → m2",
			"chat.update C0001 ts=m1",
		)
	})

	t.Run("a failed root update is retried, the reply is not", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		a := inc("a1", model.StatusInvestigating, "One.")
		e.poll("acme", a)
		d := e.deliverer()
		e.drain(d)
		e.calls()
		a.Status = model.StatusMonitoring
		e.poll("acme", a)
		e.fs.Fail(1, fakeslack.Fault{Method: "chat.update", Status: 503})
		if sent, queued, _ := e.drain(d); sent != 1 || queued != 0 {
			t.Errorf("Drain: got %d, %d; want 1, 0", sent, queued)
		}
		wantCalls(t, "drain", e.calls(),
			"chat.postMessage C0001 thread=m1 → m2",
			"chat.update C0001 ✗ Service Unavailable",
			"chat.update C0001 ts=m1",
		)
	})
}

// TestPacing: about one message a second per channel, each channel on its own clock.
func TestPacing(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#a", "beta": "#b"})
	e.poll("acme", inc("a1", model.StatusInvestigating, "x"), inc("a2", model.StatusInvestigating, "x"), inc("a3", model.StatusInvestigating, "x"))
	e.poll("beta", inc("b1", model.StatusInvestigating, "x"), inc("b2", model.StatusInvestigating, "x"))
	start := e.clock.Now()
	if sent, _, err := e.drain(e.deliverer()); sent != 5 || err != nil {
		t.Fatalf("Drain: got %d, %v", sent, err)
	}
	got := map[string][]time.Duration{}
	for _, c := range e.fs.Calls() {
		got[c.Channel] = append(got[c.Channel], c.At.Sub(start))
	}
	want := map[string][]time.Duration{
		"#a": {0, time.Second, 2 * time.Second},
		"#b": {0, time.Second},
	}
	for ch, w := range want {
		if !slices.Equal(got[ch], w) {
			t.Errorf("%s: posted at %v, want %v", ch, got[ch], w)
		}
	}
	if s := e.clock.sleeps(); !slices.Equal(s, []time.Duration{time.Second, time.Second}) {
		t.Errorf("sleeps: got %v, want two 1s waits shared by both channels", s)
	}
}

// TestMaxQueueAge: messages older than max_queue_age become one digest per channel, are
// marked sent, and a later change of an incident whose root was skipped starts its
// thread with a catch-up.
func TestMaxQueueAge(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status", "beta": "#other"})
	a := inc("a1", model.StatusInvestigating, "One.")
	e.poll("acme", a, inc("a2", model.StatusInvestigating, "Two."))
	e.poll("beta", inc("b1", model.StatusInvestigating, "Three."))
	e.clock.advance(25 * time.Hour)
	a.Status = model.StatusMonitoring
	e.poll("acme", a, inc("a2", model.StatusInvestigating, "Two."))

	d := e.deliverer()
	sent, queued, err := e.drain(d)
	if sent != 4 || queued != 0 || err != nil {
		t.Errorf("Drain: got %d, %d, %v; want 4, 0, nil", sent, queued, err)
	}
	calls := e.fs.Calls()
	wantCalls(t, "drain", e.calls(),
		"chat.postMessage #status → m1",
		"chat.postMessage #other → m2",
		"chat.postMessage #status → m3",
	)
	wantText := []string{
		"2 notifications skipped (older than 24h): Acme (2)",
		"1 notification skipped (older than 24h): Beta (1)",
		"Acme · Status monitoring: Incident a1",
	}
	for i, w := range wantText {
		if !strings.HasPrefix(calls[i].Text, w) {
			t.Errorf("call %d: text %q, want it to start with %q", i, calls[i].Text, w)
		}
	}
	if !strings.Contains(string(calls[2].Blocks), "First seen 2026-07-01 12:00 UTC; now 2 versions; status monitoring.") {
		t.Errorf("late root: no catch-up line in %s", calls[2].Blocks)
	}
	if n := len(e.messages(model.MessageSent)); n != 4 {
		t.Errorf("sent: got %d messages, want 4", n)
	}
	// The late root started the thread: the next change replies in it.
	a.Status = model.StatusResolved
	e.poll("acme", a, inc("a2", model.StatusInvestigating, "Two."))
	e.drain(d)
	wantCalls(t, "next change", e.calls(), "chat.postMessage C0001 thread=m3 broadcast → m4", "chat.update C0001 ts=m3")
}

// TestWebhooks: one self-contained message per change set, no threads; a per-source
// webhook routes that source only, and a gone webhook parks only its messages.
func TestWebhooks(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "hook:acme", "beta": "#status", "gamma": "hook:gone"})
	a := inc("a1", model.StatusInvestigating, "One.")
	e.poll("acme", a)
	e.poll("beta", inc("b1", model.StatusInvestigating, "Two."))
	e.poll("gamma", inc("g1", model.StatusInvestigating, "Three."))
	e.fs.Fail(1, fakeslack.Fault{Channel: "gone", Status: 404, Error: "no_service"})
	d := e.deliverer()
	e.drain(d)
	a.Status = model.StatusResolved
	e.poll("acme", a)
	e.drain(d)
	got := e.calls()
	wantCalls(t, "life", got,
		"webhook acme → m1",
		"chat.postMessage #status → m2",
		"webhook gone ✗ no_service",
		"webhook acme → m3",
	)
	for _, m := range e.fs.Messages("webhook/acme") {
		if !strings.Contains(m.Text, "Incident a1") {
			t.Errorf("webhook message %q does not name the incident", m.Text)
		}
	}
	parked := e.messages(model.MessageParked)
	if len(parked) != 1 || parked[0].Source != "gamma" {
		t.Errorf("parked: got %+v, want gamma's message", parked)
	}
	qs, _ := d.Queues()
	if len(qs) != 1 || !strings.HasPrefix(qs[0].Destination, "webhook-") || qs[0].Parked != 1 {
		t.Errorf("Queues: got %+v, want the gone webhook, by name, with 1 parked", qs)
	}
	if _, _, err := e.store.Thread("acme", "a1"); err != nil {
		t.Errorf("Thread: %v", err)
	}
	if ch, ts, _ := e.store.Thread("acme", "a1"); ch != "" || ts != "" {
		t.Errorf("webhook incident got a thread: %s %s", ch, ts)
	}
}

// TestSecretsStayOut: the token and the webhook's URL appear in no error Drain returns
// and in no error stored with a message.
func TestSecretsStayOut(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status", "beta": "hook:T000/B000/SECRETHOOK"})
	for _, f := range []fakeslack.Fault{
		{Status: 500}, {Status: 429, RetryAfter: 1}, {Error: "invalid_blocks"}, {Error: "invalid_blocks"}, {Error: "channel_not_found"}, {Error: "invalid_auth"},
	} {
		e.fs.Fail(1, f)
	}
	e.poll("acme", inc("a1", model.StatusInvestigating, "x"), inc("a2", model.StatusInvestigating, "x"))
	e.poll("beta", inc("b1", model.StatusInvestigating, "x"))
	var errs []string
	d := e.deliverer()
	for range 4 {
		_, _, err := e.drain(d)
		if err != nil {
			errs = append(errs, err.Error())
		}
		d.Resume()
	}
	for _, m := range e.messages() {
		errs = append(errs, m.LastError)
	}
	e.fs.Close() // the webhook now fails at the network level, quoting its URL
	e.poll("beta", inc("b1", model.StatusInvestigating, "x"), inc("b2", model.StatusInvestigating, "x"))
	if _, _, err := e.drain(d); err != nil {
		errs = append(errs, err.Error())
	}
	network := false
	for _, m := range e.messages() {
		errs = append(errs, m.LastError)
		network = network || m.Source == "beta" && strings.Contains(m.LastError, "connect")
	}
	if !network {
		t.Errorf("the webhook's network error was not exercised: %q", errs)
	}
	if len(errs) == 0 {
		t.Fatal("no errors to check")
	}
	for _, s := range errs {
		if strings.Contains(s, "SECRET") {
			t.Errorf("secret in %q", s)
		}
	}
}

func TestConsole(t *testing.T) {
	e := newEnv(t, nil)
	e.poll("acme", inc("a1", model.StatusInvestigating, "We are investigating."))
	if _, err := e.store.RecordFailure("acme", "connection refused", 1); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	if sent, queued, err := e.drain(d); sent != 2 || queued != 0 || err != nil {
		t.Errorf("Drain: got %d, %d, %v; want 2, 0, nil", sent, queued, err)
	}
	for _, want := range []string{"== Acme: New incident: Incident a1", "== Acme: cannot read the status page\nconnection refused"} {
		if strings.Count(out.String(), want) != 1 {
			t.Errorf("output: want %q once in:\n%s", want, out.String())
		}
	}
	if s := e.clock.sleeps(); len(s) != 0 {
		t.Errorf("console paced: slept %v", s)
	}
	out.Reset()
	e.drain(d)
	if out.Len() != 0 {
		t.Errorf("second drain printed:\n%s", out.String())
	}
}

// TestRun drives the daemon's loop: woken after each poll, it delivers, waits out a
// Retry-After longer than Drain would, and returns when its context ends.
func TestRun(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	wake := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	result := make(chan error, 1)
	go func() { result <- d.Run(ctx, wake) }()

	a := inc("a1", model.StatusInvestigating, "One.")
	e.fs.Fail(1, fakeslack.Fault{Status: 429, RetryAfter: 45})
	e.poll("acme", a)
	wake <- struct{}{}
	waitFor(t, func() bool { return len(e.messages(model.MessageSent)) == 1 })
	// Run is running: a Drain now could send a message twice, so it is refused.
	if _, _, err := d.Drain(ctx); !errors.Is(err, notify.ErrBusy) {
		t.Errorf("Drain during Run: got %v, want ErrBusy", err)
	}
	a.Status = model.StatusResolved
	e.poll("acme", a)
	wake <- struct{}{}
	waitFor(t, func() bool { return len(e.messages(model.MessageSent)) == 2 && len(e.fs.Calls()) == 4 })
	cancel()
	if err := <-result; err != nil {
		t.Errorf("Run: got %v, want nil", err)
	}
	wantCalls(t, "run", e.calls(),
		"chat.postMessage #status ✗ Too Many Requests",
		"chat.postMessage #status → m1",
		"chat.postMessage C0001 thread=m1 broadcast → m2",
		"chat.update C0001 ts=m1",
	)
	if s := e.clock.sleeps(); !slices.Contains(s, 45*time.Second) {
		t.Errorf("sleeps: got %v, want the 45s Retry-After", s)
	}
}

// waitFor waits for a condition that another goroutine makes true. It is no timed
// assertion: the deadline only keeps a broken test from hanging.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met")
		}
		time.Sleep(time.Millisecond)
	}
}
