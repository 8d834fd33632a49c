package reliability

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// TestFloodOfNewIncidents: a vendor whose page suddenly lists 5,000 new open incidents
// (a migration, a broken feed) gets one Slack message for that poll, not 5,000 (83
// minutes of a channel at Slack's pace), and the daemon stays responsive.
func TestFloodOfNewIncidents(t *testing.T) {
	const flood = 5000
	w := newSlackWorld(t, "acme")
	d := startDaemon(t, w.env(slackToken))
	w.open(d, "acme", "acme-1")
	w.waitDelivered(d, 1, 30*time.Second)

	at := w.at()
	for i := range flood {
		id := fmt.Sprintf("flood-%04d", i)
		w.incs["acme"] = append(w.incs["acme"], fakepage.Incident{ID: id, Name: "Degraded service " + id, Status: "investigating", Impact: "minor",
			CreatedAt: at, UpdatedAt: at, StartedAt: at,
			Updates: []fakepage.Update{{ID: id + "-u1", Status: "investigating", Body: "We are looking into " + id + ".", CreatedAt: at, UpdatedAt: at, DisplayAt: at}}})
	}
	w.pages["acme"].Set(w.incs["acme"], nil)
	start := time.Now()
	code, body := d.poll(t, "acme")
	if code != 200 || body["changes"] != float64(flood) {
		t.Fatalf("poll: %d %v, want 200 {changes: %d}", code, body, flood)
	}
	recorded := time.Since(start)
	waitUntil(t, 60*time.Second, "the flood's delivery", func() bool { return len(undelivered(t, d)) == 0 },
		func() string { return describeCalls(w.calls()) })
	delivered := time.Since(start)
	time.Sleep(1500 * time.Millisecond) // a straggler would show by now
	d.stop(t)

	posts := slackPosts(w.calls())
	if len(posts) != 2 {
		t.Fatalf("Slack got %d posts, want 2 (the first incident, then one for the flood):\n%s", len(posts), describeCalls(w.calls()))
	}
	if want := fmt.Sprintf("%d incident notifications from one poll", flood); !strings.Contains(posts[1].Text, want) {
		t.Errorf("flood post: got %q, want it to say %q", posts[1].Text, want)
	}
	sent := 0
	for _, m := range allMessages(t, w.db) {
		if m.State == "sent" {
			sent++
		}
	}
	if sent != flood+1 {
		t.Errorf("messages marked sent: got %d, want %d", sent, flood+1)
	}
	t.Logf("%d new incidents in one poll: recorded in %s, delivered as 1 Slack message %s after the poll began",
		flood, recorded.Round(time.Millisecond), delivered.Round(time.Millisecond))
}
