package notify_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// incidents builds n open incidents named <prefix>1 … <prefix>n.
func incidents(prefix string, n int) []model.Incident {
	out := make([]model.Incident, n)
	for i := range out {
		out[i] = inc(fmt.Sprintf("%s%d", prefix, i+1), model.StatusInvestigating, "Looking into it.")
	}
	return out
}

// TestFloodIsOneMessagePerSourceAndPoll: past DefaultMaxPerPoll incident messages from one
// poll of a source, one message stands for them all, naming the first few with links;
// at the threshold they still go one by one, and another source's poll is not affected.
func TestFloodIsOneMessagePerSourceAndPoll(t *testing.T) {
	for _, c := range []struct {
		name      string
		acme      int // incidents the poll of acme lists
		wantCalls int // Slack posts for acme
	}{
		{"at the threshold", notify.DefaultMaxPerPoll, notify.DefaultMaxPerPoll},
		{"past the threshold", 500, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"acme": "#status", "beta": "#status"})
			e.poll("acme", incidents("a", c.acme)...)
			e.clock.advance(time.Second)
			e.poll("beta", incidents("b", 2)...)
			sent, queued, err := e.d(t).Drain(t.Context())
			if sent != c.acme+2 || queued != 0 || err != nil {
				t.Errorf("Drain: got sent %d, queued %d, %v; want %d, 0, nil", sent, queued, err, c.acme+2)
			}
			posts := e.fs.Messages("#status")
			if got := len(posts); got != c.wantCalls+2 {
				t.Fatalf("posts: got %d, want %d", got, c.wantCalls+2)
			}
			if c.wantCalls != 1 {
				return
			}
			text := posts[0].Text
			if want := "Acme: 500 incident notifications from one poll, too many to post one by one"; text != want {
				t.Errorf("flood text: got %q, want %q", text, want)
			}
			blocks := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(posts[0].Blocks))
			// The outbox has them in the order the archive recorded them: by id.
			for _, want := range []string{"<https://watch.example.com/incidents/acme/a1|Incident a1>", "/incidents/acme/a102|Incident a102>",
				"<https://watch.example.com/sources/acme|…and 495 more in statuswatch>"} {
				if !strings.Contains(blocks, want) {
					t.Errorf("flood blocks lack %q:\n%s", want, blocks)
				}
			}
			if got := strings.Count(blocks, "• New incident: "); got != notify.FloodShown {
				t.Errorf("flood names %d incidents, want %d:\n%s", got, notify.FloodShown, blocks)
			}
			if !strings.HasPrefix(posts[1].Text, "Beta · New incident: Incident b1") {
				t.Errorf("beta's first post: got %q, want its own incident", posts[1].Text)
			}

			// A later change of a flooded incident starts its thread, as a late root.
			e.calls()
			a3 := inc("a3", model.StatusResolved, "Looking into it.", "Fixed.")
			all := incidents("a", c.acme)
			all[2] = a3
			e.clock.advance(time.Minute)
			e.poll("acme", all...)
			if sent, _, err := e.d(t).Drain(t.Context()); sent != 1 || err != nil {
				t.Errorf("Drain after the update: sent %d, %v; want 1, nil", sent, err)
			}
			wantCalls(t, "update of a flooded incident", e.calls(), "chat.postMessage #status → m4")
		})
	}
}

// d is the env's deliverer (a new one per call, as a restart would build).
func (e *env) d(t *testing.T) *notify.Deliverer {
	t.Helper()
	return e.deliverer()
}

// TestConsolePrintsAFlood: the console prints a flood as its line, the incidents it
// names with their links, and how many more.
func TestConsolePrintsAFlood(t *testing.T) {
	var b strings.Builder
	c := &notify.Console{W: &b}
	n := &notify.Notification{Message: model.Message{Source: "acme"}, SourceTitle: "Acme",
		Flood: &notify.Flood{Count: 30, Link: "https://watch.example.com/sources/acme", Items: []notify.FloodItem{
			{What: "New incident", Title: "API errors", Link: "https://watch.example.com/incidents/acme/i1"},
			{What: "Resolved", Title: "Slow logins", VendorURL: "https://status.acme.example/i2"},
		}}}
	if _, err := c.Send(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	want := "== Acme: 30 incident notifications from one poll, too many to post one by one\n" +
		"- New incident: API errors https://watch.example.com/incidents/acme/i1\n" +
		"- Resolved: Slow logins https://status.acme.example/i2\n" +
		"…and 28 more: https://watch.example.com/sources/acme\n\n"
	if b.String() != want {
		t.Errorf("console:\ngot:\n%s\nwant:\n%s", b.String(), want)
	}
}
