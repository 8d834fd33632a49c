package e2e

// TestReceiversEndToEnd is the end-to-end test of receivers and routes on the built
// binary: an incident's life (new → update → resolved) on a local Statuspage page,
// routed by two routes — new and resolved to the webhook "hooks" (continue: true),
// everything to Slack — with the webhook answering 500 for the first two steps:
//
//   - Slack gets the root and the update's reply while the webhook fails: one failing
//     receiver delays no other;
//   - `watcher outbox` and /metrics show the webhook's queue and failures by receiver;
//   - the daemon is killed (SIGKILL) with the webhook's messages still queued, started
//     again, the webhook heals: it gets exactly its two deliveries, each once, with the
//     delivery id every failed try carried, signed, of exactly the payload the archive's
//     versions say; Slack gets the resolution and nothing twice.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/fakewebhook"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

const (
	recvToken  = "xoxb-e2e-receivers"
	recvSecret = "e2e-hook-secret"
)

func TestReceiversEndToEnd(t *testing.T) {
	bin := testbin.Build(t)
	slack := fakeslack.New(fakeslack.Options{Token: recvToken})
	defer slack.Close()
	hook := fakewebhook.New(recvSecret)
	defer hook.Close()
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(nil, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook-secret"), []byte(recvSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgPath, base := writeAcmeConfig(t, dir, slack.APIURL(), srv.URL, fmt.Sprintf(`receivers:
  - name: hooks
    webhook:
      url: %s
      secret_file: hook-secret
      headers: {X-Team: sre}
routes:
  - match: {sources: [acme], events: [new, resolved]}
    receivers: [hooks]
    continue: true
  - match: {}
    receivers: [slack]
`, hook.URL()))
	env := []string{"WATCHER_CONFIG=" + cfgPath, "SLACK_BOT_TOKEN=" + recvToken}
	testbin.Must(t, 0, env, "check")
	d := testbin.StartDaemon(t, bin, env)
	poll := func() { t.Helper(); pollAcme(t, d) }
	poll() // the empty page: nothing to say

	// Step 1: a new incident, the webhook down.
	hook.FailAll(fakewebhook.Fault{Status: 500, Body: "down for maintenance"})
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	u1 := fakepage.Update{ID: "inc1-u1", Status: "investigating", Body: "We are looking into API errors.", CreatedAt: at, UpdatedAt: at, DisplayAt: at}
	inc := fakepage.Incident{ID: "inc1", Name: "Elevated API errors", Status: "investigating", Impact: "major",
		CreatedAt: at, UpdatedAt: at, StartedAt: at, Shortlink: "https://stspg.test/inc1",
		Updates: []fakepage.Update{u1}}
	page.Set([]fakepage.Incident{inc}, nil)
	poll()
	posts := waitPosts(t, d, slack, 1)
	root := posts[0]
	if root.ThreadTS != "" || !strings.Contains(root.Text, "Elevated API errors") {
		t.Errorf("root: got thread %q, %q", root.ThreadTS, root.Text)
	}

	// Step 2: an update, the webhook still down; Slack replies in the thread.
	at2 := at.Add(10 * time.Minute)
	u2 := fakepage.Update{ID: "inc1-u2", Status: "identified", Body: "We found the cause.", CreatedAt: at2, UpdatedAt: at2, DisplayAt: at2}
	inc.Status, inc.UpdatedAt, inc.Updates = "identified", at2, []fakepage.Update{u2, u1}
	page.Set([]fakepage.Incident{inc}, nil)
	poll()
	posts = waitPosts(t, d, slack, 2)
	if reply := posts[1]; reply.ThreadTS != root.TS || !strings.Contains(reply.Text, "investigating → identified") {
		t.Errorf("reply: got thread %q (root %q), %q", reply.ThreadTS, root.TS, reply.Text)
	}
	if n := len(hook.Deliveries()); n != 0 {
		t.Fatalf("the failing webhook took %d deliveries", n)
	}
	failed := hook.Calls()
	if len(failed) == 0 {
		t.Fatalf("the webhook was never tried:\n%s", d.Log())
	}
	firstID := failed[0].Delivery

	// The queue of the webhook, by receiver: the new incident still pending, tried.
	out := testbin.Must(t, 0, env, "outbox")
	if !regexp.MustCompile(`(?m)^\d+\s+pending\s+.*\bhooks\b`).MatchString(out.Stdout) || strings.Contains(out.Stdout, "slack") {
		t.Errorf("watcher outbox:\n%s", out.Stdout)
	}
	metrics := get(t, d.URL("/metrics"))
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`watcher_notifications_total\{receiver="hooks",result="transient"\} [1-9]`),
		regexp.MustCompile(`watcher_notifications_total\{receiver="slack",result="sent"\} [2-9]`),
		regexp.MustCompile(`watcher_notifications_total\{receiver="hooks",result="sent"\} 0`),
		regexp.MustCompile(`watcher_receiver_messages\{receiver="hooks",state="pending"\} [12]\n`),
		regexp.MustCompile(`watcher_receiver_messages\{receiver="slack",state="pending"\} 0\n`),
		regexp.MustCompile(`watcher_receiver_paused\{receiver="hooks"\} 0\n`),
	} {
		if !want.MatchString(metrics) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// A SIGKILL with the webhook's message queued; a new daemon; the webhook heals.
	kill(t, d)
	hook.Heal()
	d = testbin.StartDaemon(t, bin, env)
	at3 := at.Add(40 * time.Minute)
	u3 := fakepage.Update{ID: "inc1-u3", Status: "resolved", Body: "Errors are back to normal.", CreatedAt: at3, UpdatedAt: at3, DisplayAt: at3}
	inc.Status, inc.UpdatedAt, inc.ResolvedAt, inc.Updates = "resolved", at3, &at3, []fakepage.Update{u3, u2, u1}
	page.Set([]fakepage.Incident{inc}, nil)
	poll()
	posts = waitPosts(t, d, slack, 3)
	if res := posts[2]; res.ThreadTS != root.TS || !strings.Contains(res.Text, "Resolved: Elevated API errors") {
		t.Errorf("resolution: got thread %q, %q", res.ThreadTS, res.Text)
	}
	ds := waitDeliveries(t, d, hook, 2)

	// Exactly once each, signed, with the id the failed tries carried.
	for _, c := range hook.Calls() {
		if !c.SignatureOK {
			t.Errorf("delivery %s: bad signature %q", c.Delivery, c.Header.Get(fakewebhook.HeaderSignature))
		}
		if c.Header.Get("X-Team") != "sre" {
			t.Errorf("delivery %s: headers %v", c.Delivery, c.Header)
		}
	}
	for _, c := range failed {
		if c.Delivery != firstID {
			t.Errorf("a retry carried delivery id %q, want %q", c.Delivery, firstID)
		}
	}
	if ds[0].ID != firstID || ds[1].ID == firstID {
		t.Errorf("delivery ids %q, %q; the failed tries carried %q", ds[0].ID, ds[1].ID, firstID)
	}
	for _, dl := range ds {
		if dl.Repeat != 0 {
			t.Errorf("delivery %s repeated", dl.ID)
		}
	}
	wantPayload(t, d, ds[0].Body, "new", 1, "investigating", "Elevated API errors", base)
	wantPayload(t, d, ds[1].Body, "resolved", 3, "resolved", "Elevated API errors", base)

	// Nothing more comes: Slack's three posts (and root edits) and the webhook's two.
	time.Sleep(300 * time.Millisecond)
	if n := len(posts); n != 3 || len(slackPosts(slack)) != 3 {
		t.Errorf("Slack got %d posts, want 3", len(slackPosts(slack)))
	}
	if n := len(hook.Deliveries()); n != 2 {
		t.Errorf("the webhook got %d deliveries, want 2", n)
	}
}

// wantPayload checks a webhook body against what the archive says of version n.
func wantPayload(t *testing.T, d *testbin.Daemon, body []byte, event string, n int, status, title, base string) {
	t.Helper()
	var v struct {
		ObservedAt string `json:"observed_at"`
	}
	if err := json.Unmarshal([]byte(get(t, d.URL(fmt.Sprintf("/api/v1/incidents/acme/inc1/versions/%d", n)))), &v); err != nil {
		t.Fatal(err)
	}
	var df struct {
		Summary string `json:"summary"`
		Changes []struct {
			Field  string  `json:"field"`
			Before *string `json:"before"`
			After  *string `json:"after"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(get(t, d.URL(fmt.Sprintf("/api/v1/incidents/acme/inc1/diff?from=%d&to=%d", n-1, n)))), &df); err != nil {
		t.Fatal(err)
	}
	changes, _ := json.Marshal(df.Changes)
	want := fmt.Sprintf(`{"version":1,"event":%q,"source":"acme","incident":{"id":"inc1","title":%s,"status":%q,"impact":"major","url":"https://stspg.test/inc1","ui_url":"%s/incidents/acme/inc1"},"summary":%s,"changes":%s,"observed_at":%q}`,
		event, mustJSON(title), status, base, mustJSON(df.Summary), changes, v.ObservedAt)
	if string(body) != want {
		t.Errorf("%s payload:\ngot  %s\nwant %s", event, body, want)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d %v %s", url, resp.StatusCode, err, b)
	}
	return string(b)
}

// slackPosts are the chat.postMessage calls Slack took.
func slackPosts(s *fakeslack.Server) []fakeslack.Call {
	var out []fakeslack.Call
	for _, c := range s.Calls() {
		if c.Method == "chat.postMessage" && c.OK() {
			out = append(out, c)
		}
	}
	return out
}

// waitPosts waits (bounded, and well within the webhook's backoff) for Slack to have
// taken n posts, and returns them.
func waitPosts(t *testing.T, d *testbin.Daemon, s *fakeslack.Server, n int) []fakeslack.Call {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if p := slackPosts(s); len(p) >= n {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("Slack took %d posts within 10s, want %d:\n%s", len(slackPosts(s)), n, d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDeliveries waits (bounded) for the webhook to have taken n deliveries.
func waitDeliveries(t *testing.T, d *testbin.Daemon, h *fakewebhook.Server, n int) []fakewebhook.Delivery {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if ds := h.Deliveries(); len(ds) >= n {
			return ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook took %d deliveries within 15s, want %d:\n%s", len(h.Deliveries()), n, d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookFaultsEndToEnd runs the webhook's fault kinds through the built binary: a
// 403 pauses the receiver (no retry) until a SIGHUP reload; a 429's Retry-After is
// waited out; a 400 parks that message alone, the incident's next one still going.
func TestWebhookFaultsEndToEnd(t *testing.T) {
	bin := testbin.Build(t)
	hook := fakewebhook.New(recvSecret)
	defer hook.Close()
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(nil, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf("database: %s\nlisten: %s\nsources:\n  - name: acme\n    url: %s\n    kind: statuspage\n    schedule: \"@every 1h\"\n"+
		"receivers:\n  - name: hooks\n    webhook: {url: %s, secret: %s}\nroutes:\n  - match: {}\n    receivers: [hooks]\n",
		filepath.Join(dir, "watcher.db"), testbin.FreeAddr(t), srv.URL, hook.URL(), recvSecret)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"WATCHER_CONFIG=" + cfgPath}
	d := testbin.StartDaemon(t, bin, env)
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	inc := fakepage.Incident{ID: "inc1", Name: "Elevated API errors", Status: "investigating", Impact: "minor", CreatedAt: at, UpdatedAt: at, StartedAt: at}
	step := func(n int) {
		t.Helper()
		ts := at.Add(time.Duration(n) * time.Minute)
		inc.UpdatedAt = ts
		inc.Updates = append([]fakepage.Update{{ID: fmt.Sprintf("u%d", n), Status: "investigating", Body: fmt.Sprintf("Update %d.", n), CreatedAt: ts, UpdatedAt: ts, DisplayAt: ts}}, inc.Updates...)
		page.Set([]fakepage.Incident{inc}, nil)
		if code, body := d.PollNow(t, "acme"); code != http.StatusOK {
			t.Fatalf("poll: HTTP %d %v\n%s", code, body, d.Log())
		}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("no %s within 10s:\n%s", what, d.Log())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// 403: paused, not retried, until a reload.
	hook.FailAll(fakewebhook.Fault{Status: 403})
	step(1)
	waitFor("pause", func() bool {
		return strings.Contains(get(t, d.URL("/metrics")), `watcher_receiver_paused{receiver="hooks"} 1`)
	})
	time.Sleep(2500 * time.Millisecond) // past a transient error's first backoff (2 s ±20%)
	if n := len(hook.Calls()); n != 1 {
		t.Errorf("a paused receiver was called %d times, want 1", n)
	}
	hook.Heal()
	if err := d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("the delivery after the reload", func() bool { return len(hook.Deliveries()) == 1 })

	// 429 with Retry-After: 2: the next try waits at least that.
	hook.Fail(1, fakewebhook.Fault{Status: 429, RetryAfter: 2})
	step(2)
	waitFor("the update's delivery", func() bool { return len(hook.Deliveries()) == 2 })
	calls := hook.Calls()
	refused, took := calls[len(calls)-2], calls[len(calls)-1]
	if refused.Status != 429 || took.Delivery != refused.Delivery || took.At.Sub(refused.At) < 1900*time.Millisecond {
		t.Errorf("after a 429 with Retry-After 2: retried %s later (%d then %d, ids %s %s)", took.At.Sub(refused.At), refused.Status, took.Status, refused.Delivery, took.Delivery)
	}

	// 400: that message parked, the next one of the incident goes.
	hook.Fail(1, fakewebhook.Fault{Status: 400, Body: "unknown field"})
	step(3)
	waitFor("the refusal", func() bool { return len(hook.Calls()) == len(calls)+1 })
	step(4)
	waitFor("the next update's delivery", func() bool { return len(hook.Deliveries()) == 3 })
	out := testbin.Must(t, 0, env, "outbox")
	if !regexp.MustCompile(`(?m)^\d+\s+parked\s+hooks\s.*HTTP 400: unknown field`).MatchString(out.Stdout) {
		t.Errorf("watcher outbox:\n%s", out.Stdout)
	}
	if got := hook.Deliveries()[2].Payload["summary"]; !strings.Contains(fmt.Sprint(got), "1 update added") {
		t.Errorf("the delivery after the parked one: summary %v", got)
	}
}
