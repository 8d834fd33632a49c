package main

// The end-to-end test of issue 3: the real daemon against a vendor page and a recording
// fake of Slack's Web API, through an incident's life, Slack faults and a SIGKILL.

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
)

// okPosts returns the successful chat.postMessage and chat.update calls, in order.
func okPosts(s *fakeslack.Server) []fakeslack.Call {
	var out []fakeslack.Call
	for _, c := range s.Calls() {
		if c.OK() && (c.Method == "chat.postMessage" || c.Method == "chat.update") {
			out = append(out, c)
		}
	}
	return out
}

// waitCalls waits until Slack has n successful post/update calls.
func waitCalls(t *testing.T, s *fakeslack.Server, n int, d *daemonProc) []fakeslack.Call {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		if calls := okPosts(s); len(calls) >= n {
			return calls
		}
		time.Sleep(50 * time.Millisecond)
	}
	calls := okPosts(s)
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "  %s ch=%s ts=%s thread=%s broadcast=%v %q\n", c.Method, c.Channel, c.TS, c.ThreadTS, c.ReplyBroadcast, firstLine(c.Text))
	}
	t.Fatalf("Slack got %d successful calls, want %d:\n%s\ndaemon log:\n%s", len(calls), n, b.String(), d.log())
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestSlackThreadsThroughFaultsAndKill(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	srv := httptest.NewServer(page)
	defer srv.Close()
	slack := fakeslack.New(fakeslack.Options{Token: "xoxb-test-token"})
	defer slack.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`database: %s
listen: %s
base_url: https://watch.example.com
slack:
  token: ${SLACK_BOT_TOKEN}
  channel: "#vendor-status"
  api_url: %s
sources:
  - name: acme
    title: Acme Cloud
    url: %s
    kind: statuspage
    schedule: "@every 1h"
`, filepath.Join(dir, "watcher.db"), freeAddr(t, dir), slack.APIURL(), srv.URL)), 0o600)
	env := []string{"SLACK_BOT_TOKEN=xoxb-test-token"}

	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	inc := fakepage.Incident{
		ID: "abc123", Name: "Elevated API errors", Status: "investigating", Impact: "major",
		CreatedAt: at(0), UpdatedAt: at(0), StartedAt: at(0),
		Components: []fakepage.Component{{ID: "c1", Name: "API", Status: "major_outage"}},
		Updates:    []fakepage.Update{{ID: "u1", Status: "investigating", Body: "We are investigating <!channel> errors & timeouts.", CreatedAt: at(0), UpdatedAt: at(0), DisplayAt: at(0)}},
	}
	page.Set(nil, nil)
	d := startDaemon(t, cfg, env...)
	poll := func(d *daemonProc, want int) {
		t.Helper()
		page.Set([]fakepage.Incident{inc}, nil)
		if code, body := postPoll(t, d, "acme"); code != 200 || body["changes"] != float64(want) {
			t.Fatalf("POST poll: %d %v, want 200 {changes: %d}\n%s", code, body, want, d.log())
		}
	}
	// The source's first poll: an empty page.
	if code, body := postPoll(t, d, "acme"); code != 200 || body["changes"] != float64(0) {
		t.Fatalf("first POST poll: %d %v", code, body)
	}

	// 1. New incident: the root.
	poll(d, 1)
	calls := waitCalls(t, slack, 1, d)
	root := calls[0]
	if root.Method != "chat.postMessage" || root.ThreadTS != "" || root.Channel != "#vendor-status" {
		t.Fatalf("first call: %+v, want a root chat.postMessage to #vendor-status", root)
	}
	if strings.Contains(root.Text+string(root.Blocks), "<!channel>") {
		t.Errorf("vendor text reached Slack unescaped: %s", root.Text)
	}

	// 2. A new update, with a 429 and a burst of 500s on the way.
	slack.Fail(1, fakeslack.Fault{Method: "chat.postMessage", Status: 429, RetryAfter: 1})
	slack.Fail(3, fakeslack.Fault{Method: "chat.postMessage", Status: 500})
	inc.Status, inc.UpdatedAt = "identified", at(20)
	inc.Updates = append([]fakepage.Update{{ID: "u2", Status: "identified", Body: "We identified a faulty deploy.", CreatedAt: at(20), UpdatedAt: at(20), DisplayAt: at(20)}}, inc.Updates...)
	poll(d, 1)
	waitCalls(t, slack, 3, d)

	// 3. A silent edit of the first update.
	inc.Updates[1].Body = "We are investigating errors and timeouts in eu-west-1."
	inc.Updates[1].UpdatedAt = at(25)
	poll(d, 1)
	waitCalls(t, slack, 5, d)

	// 4. Resolved; then SIGKILL 300 ms after Slack answered, and a restart.
	inc.Status, inc.UpdatedAt = "resolved", at(90)
	end := at(90)
	inc.ResolvedAt = &end
	inc.Updates = append([]fakepage.Update{{ID: "u3", Status: "resolved", Body: "This incident has been resolved.", CreatedAt: at(90), UpdatedAt: at(90), DisplayAt: at(90)}}, inc.Updates...)
	poll(d, 1)
	waitCalls(t, slack, 6, d) // the reply; the root's edit may or may not follow before the kill
	time.Sleep(300 * time.Millisecond)
	d.Cmd.Process.Signal(syscall.SIGKILL)
	<-d.Done()
	d = startDaemon(t, cfg, env...)

	// 5. Postmortem, after the restart: still in the same thread.
	inc.Status, inc.UpdatedAt = "postmortem", at(3000)
	inc.PostmortemBody = "## Root cause\nA bad deploy."
	pm := at(3000)
	inc.PostmortemPublishedAt = &pm
	poll(d, 1)
	waitCalls(t, slack, 9, d)
	time.Sleep(1500 * time.Millisecond) // anything repeated would show by now
	d.stop(t)

	// The whole sequence: one root, then per change set a reply in its thread followed by
	// the root's edit; resolution and postmortem broadcast. Nothing lost, nothing twice.
	var got []string
	for _, c := range okPosts(slack) {
		switch {
		case c.Method == "chat.update":
			if c.TS != root.TS {
				t.Errorf("chat.update of %s, want the root %s", c.TS, root.TS)
			}
			got = append(got, "update-root")
		case c.ThreadTS == "":
			got = append(got, "root")
		default:
			if c.ThreadTS != root.TS {
				t.Errorf("reply in thread %s, want the root's %s", c.ThreadTS, root.TS)
			}
			kind := "reply"
			if c.ReplyBroadcast {
				kind = "reply+broadcast"
			}
			got = append(got, kind)
		}
	}
	want := []string{"root", "reply", "update-root", "reply", "update-root", "reply+broadcast", "update-root", "reply+broadcast", "update-root"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Slack calls:\n got %v\nwant %v", got, want)
	}
	replies := slack.Replies(root.ChannelID, root.TS)
	if len(replies) != 4 {
		t.Errorf("thread has %d replies, want 4 (update, edit, resolved, postmortem)", len(replies))
	}
	var faults int
	for _, c := range slack.Calls() {
		if !c.OK() {
			faults++
		}
	}
	if faults != 4 {
		t.Errorf("Slack answered %d faults, want the 4 injected (one 429, three 500s)", faults)
	}
	edit := replies[1].Text + string(replies[1].Blocks)
	if !strings.Contains(edit, "edited") || !strings.Contains(edit, "~") {
		t.Errorf("the edit reply lacks \"edited\" and a word diff: %s", edit)
	}
}

func TestCheckSlackPostsATestMessage(t *testing.T) {
	slack := fakeslack.New(fakeslack.Options{Token: "xoxb-test-token"})
	defer slack.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`listen: ""
slack:
  token: ${SLACK_BOT_TOKEN}
  channel: "#vendor-status"
  api_url: %s
sources:
  - name: acme
    url: https://status.acme.example
  - name: beta
    url: https://status.beta.example
    channel: "#beta"
`, slack.APIURL())), 0o600)
	cmd := exec.Command(binary, "check", "-slack", "-config", cfg)
	cmd.Env = append(os.Environ(), "SLACK_BOT_TOKEN=xoxb-test-token")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("check -slack: %v\n%s", err, out)
	}
	var channels []string
	for _, c := range slack.Calls() {
		if c.Method == "chat.postMessage" && c.OK() {
			channels = append(channels, c.Channel)
		}
	}
	if strings.Join(channels, ",") != "#vendor-status,#beta" {
		t.Errorf("test messages went to %v, want #vendor-status and #beta", channels)
	}
	if strings.Contains(string(out), "xoxb-test-token") {
		t.Errorf("check -slack printed the token:\n%s", out)
	}

	cmd = exec.Command(binary, "check", "-slack", "-config", cfg)
	cmd.Env = append(os.Environ(), "SLACK_BOT_TOKEN=xoxb-wrong")
	out, _ = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != exitError || !strings.Contains(string(out), "invalid_auth") || strings.Contains(string(out), "xoxb-wrong") {
		t.Errorf("check -slack with a bad token: exit %d\n%s\nwant exit 1 naming invalid_auth, never the token", cmd.ProcessState.ExitCode(), out)
	}
}
