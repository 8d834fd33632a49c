package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/fakewebhook"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// TestMaintenanceReminderEndToEnd: a maintenance scheduled to start in 10 minutes on a
// Statuspage page, with maintenance_reminder 1h, is posted by the built binary to a
// fake Slack as a root, then reminded once in its thread ("Maintenance starts in 10m");
// another a week ahead is not. After a restart of the daemon, a new update and the
// window moved 10 minutes later: a reply each, and one new reminder for the new start —
// the first never again. A route sends the reminders, and nothing else, to a webhook
// too. Each "never again" is checked by the message after it: the outbox delivers in
// order, and the daemon writes a due reminder before its poll returns.
func TestMaintenanceReminderEndToEnd(t *testing.T) {
	const token = "xoxb-e2e-reminder"
	slack := fakeslack.New(fakeslack.Options{Token: token})
	t.Cleanup(slack.Close)
	hook := fakewebhook.New("e2e-reminder-secret")
	t.Cleanup(hook.Close)
	page := &fakepage.Statuspage{Name: "Acme"}
	srv := httptest.NewServer(page)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	text := fmt.Sprintf("database: %s\nlisten: %s\nslack:\n  token: ${SLACK_BOT_TOKEN}\n  channel: \"#acme\"\n  api_url: %s\n"+
		"defaults:\n  maintenance_reminder: 1h\n"+
		"sources:\n  - name: acme\n    title: Acme\n    url: %q\n    kind: statuspage\n    schedule: \"@every 1h\"\n    timeout: 10s\n"+
		"receivers:\n  - name: hooks\n    webhook: {url: %q, secret: e2e-reminder-secret}\n"+
		"routes:\n  - match: {events: [maintenance_soon]}\n    receivers: [hooks]\n    continue: true\n  - match: {}\n    receivers: [slack]\n",
		filepath.Join(dir, "watcher.db"), testbin.FreeAddr(t), slack.APIURL(), srv.URL+"/", hook.URL())
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := testbin.Build(t)
	env := []string{"WATCHER_CONFIG=" + cfg, "SLACK_BOT_TOKEN=" + token}

	now := time.Now().UTC().Truncate(time.Second)
	mnt := func(id, name string, start time.Time, updates ...string) fakepage.Incident {
		until := start.Add(2 * time.Hour)
		created := now.Add(-time.Hour)
		m := fakepage.Incident{ID: id, Name: name, Status: "scheduled", Impact: "maintenance",
			CreatedAt: created, UpdatedAt: created, StartedAt: start, ScheduledFor: &start, ScheduledUntil: &until}
		for i, body := range updates {
			at := created.Add(time.Duration(i) * time.Minute)
			m.Updates = append([]fakepage.Update{{ID: fmt.Sprintf("%supd%04d", id[:4], i), Status: "scheduled", Body: body,
				CreatedAt: at, UpdatedAt: at, DisplayAt: at}}, m.Updates...)
		}
		return m
	}
	start := now.Add(10 * time.Minute)
	soon := mnt("soon0window1", "Database upgrade <b>now</b>", start, "We will upgrade the primary database.")
	far := mnt("far00window1", "Network change", now.Add(7*24*time.Hour), "Routers.")
	page.Set(nil, []fakepage.Incident{soon, far})

	d := testbin.StartDaemon(t, bin, env)
	poll := func() {
		t.Helper()
		if code, body := d.PollNow(t, "acme"); code != http.StatusOK {
			t.Fatalf("poll: HTTP %d %v\n%s", code, body, d.Log())
		}
	}
	// wait returns the thread of the root whose text names title once it has n
	// replies, failing after 10 s.
	wait := func(step, title string, n int) []fakeslack.Message {
		t.Helper()
		var replies []fakeslack.Message
		deadline := time.Now().Add(10 * time.Second)
		for {
			for _, root := range slack.Messages("#acme") {
				if strings.Contains(root.Text, title) {
					replies = slack.Replies("#acme", root.TS)
				}
			}
			if len(replies) >= n || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(replies) != n {
			t.Fatalf("%s: got %d replies in the thread of %q, want %d: %+v\ncalls: %+v\n%s", step, len(replies), title, n, replies, slack.Calls(), d.Log())
		}
		return replies
	}
	reminder := regexp.MustCompile(`^Acme · Maintenance starts in (\d+)m: Database upgrade &lt;b&gt;now&lt;/b&gt; — (.+)$`)
	check := func(step string, m fakeslack.Message, minutes int, window string) {
		t.Helper()
		got := reminder.FindStringSubmatch(m.Text)
		if got == nil || got[1] != fmt.Sprint(minutes) || got[2] != window {
			t.Errorf("%s: got reply %q, want a reminder of %dm with the window %s", step, m.Text, minutes, window)
		}
	}
	window := func(start time.Time) string {
		return start.Format("2006-01-02 15:04 UTC") + " → " + start.Add(2*time.Hour).Format("2006-01-02 15:04 UTC")
	}

	poll()
	replies := wait("first poll", "Database upgrade", 1)
	check("first poll", replies[0], 10, window(start))
	if len(slack.Messages("#acme")) != 2 {
		t.Errorf("roots: got %+v, want the two maintenances", slack.Messages("#acme"))
	}

	// A restart: the reminder is not written again.
	d.Stop(t)
	d = testbin.StartDaemon(t, bin, env)
	soon = mnt("soon0window1", soon.Name, start, "We will upgrade the primary database.", "Still on.")
	page.Set(nil, []fakepage.Incident{soon, far})
	poll()
	replies = wait("a new update after the restart", "Database upgrade", 2)
	if !strings.Contains(replies[1].Text, "New update") {
		t.Errorf("after the restart: got reply %q, want the new update", replies[1].Text)
	}

	// The window moves: a reply for the change, then a reminder for the new start.
	later := start.Add(10 * time.Minute)
	soon = mnt("soon0window1", soon.Name, later, "We will upgrade the primary database.", "Still on.")
	page.Set(nil, []fakepage.Incident{soon, far})
	poll()
	replies = wait("moved", "Database upgrade", 4)
	if strings.Contains(replies[2].Text, "starts in") {
		t.Errorf("moved: got reply %q, want the change first", replies[2].Text)
	}
	check("moved", replies[3], 20, window(later))
	if n := len(wait("far", "Network change", 0)); n != 0 {
		t.Errorf("the maintenance a week ahead: got %d replies, want none", n)
	}

	// The route sent the two reminders, and nothing else, to the webhook too: in its own
	// queue, in order, so a repeat of the first would have come before the second.
	deadline := time.Now().Add(10 * time.Second)
	for len(hook.Deliveries()) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	ds := hook.Deliveries()
	if len(ds) != 2 {
		t.Fatalf("webhook: got %d deliveries, want the two reminders: %+v", len(ds), ds)
	}
	for i, win := range []string{window(start), window(later)} {
		p := ds[i].Payload
		summary, _ := p["summary"].(string)
		changes, _ := p["changes"].([]any)
		if p["event"] != "maintenance_soon" || !strings.HasPrefix(summary, "Acme: Maintenance starts in ") ||
			!strings.HasSuffix(summary, "("+win+")") || changes == nil || len(changes) != 0 {
			t.Errorf("webhook delivery %d: got %s, want a maintenance_soon for the window %s", i+1, ds[i].Body, win)
		}
	}
}
