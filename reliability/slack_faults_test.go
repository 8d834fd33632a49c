package reliability

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// The Slack suites (this file and crash_test.go) run the daemon with a bot token and one
// channel per source, "#<source>", and with base_url set: every message then links the
// version it announces, which is how a Slack call is matched to its outbox message.
const (
	slackToken = "xoxb-reliability-token"
	uiBase     = "https://watch.example.com"
)

// writeSlackConfig writes a config whose sources are Statuspage pages at pagesURL/<name>,
// each routed to "#<name>" through the fake Slack at apiURL. It returns the config's and
// the archive's paths.
func writeSlackConfig(t *testing.T, dir, listen, pagesURL, apiURL string, sources []string) (cfg, db string) {
	t.Helper()
	db = filepath.Join(dir, "watcher.db")
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nlisten: %q\nbase_url: %s\nslack:\n  token: ${SLACK_BOT_TOKEN}\n  channel: \"#vendor-status\"\n  api_url: %s\nsources:\n",
		db, listen, uiBase, apiURL)
	for _, s := range sources {
		fmt.Fprintf(&b, "  - name: %s\n    url: %s/%s\n    kind: statuspage\n    schedule: \"@every 1h\"\n    timeout: 10s\n    channel: \"#%s\"\n", s, pagesURL, s, s)
	}
	cfg = filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, db
}

// slackEnv is the environment of a daemon of such a config. WATCHDOG_USEC makes the
// scheduler tick every second (half the watchdog interval; no NOTIFY_SOCKET, so nothing
// is sent).
func slackEnv(cfg, token string) []string {
	return []string{"WATCHER_CONFIG=" + cfg, "SLACK_BOT_TOKEN=" + token, "WATCHDOG_USEC=2000000", "NOTIFY_SOCKET="}
}

var linkRE = regexp.MustCompile(regexp.QuoteMeta(uiBase) + `/incidents/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)(?:/changes/(\d+))?`)

// callKey names the outbox message a chat.postMessage delivered: "root acme/acme-1" for
// an incident's root card (the first message of its thread), "acme/acme-1 v3" for the
// reply announcing version 3. "" for a call that names no incident.
func callKey(c fakeslack.Call) string {
	m := linkRE.FindStringSubmatch(c.Text + "\n" + string(c.Blocks))
	switch {
	case m == nil:
		return ""
	case c.ThreadTS == "":
		return "root " + m[1] + "/" + m[2]
	case m[3] == "":
		return "reply " + m[1] + "/" + m[2] // a removal links the incident, not a version
	}
	return m[1] + "/" + m[2] + " v" + m[3]
}

// messageKey is callKey's name for an outbox message.
func messageKey(m model.Message) string {
	switch {
	case m.IncidentID == "":
		return "source " + m.Source + " " + string(m.Event)
	case m.Event == model.EventNew:
		return "root " + m.Source + "/" + m.IncidentID
	case m.Event == model.EventRemoved:
		return "reply " + m.Source + "/" + m.IncidentID
	}
	return fmt.Sprintf("%s/%s v%d", m.Source, m.IncidentID, m.Version)
}

// slackPosts returns the successful chat.postMessage calls, in order.
func slackPosts(calls []fakeslack.Call) []fakeslack.Call {
	var out []fakeslack.Call
	for _, c := range calls {
		if c.Method == "chat.postMessage" && c.OK() {
			out = append(out, c)
		}
	}
	return out
}

// describeCalls lists calls one a line, for failure messages.
func describeCalls(calls []fakeslack.Call) string {
	var b strings.Builder
	for _, c := range calls {
		blocks := "blocks"
		if len(c.Blocks) == 0 || string(c.Blocks) == "[]" {
			blocks = "no blocks"
		}
		fmt.Fprintf(&b, "  %s %s ch=%s thread=%s status=%d err=%q %s key=%q %q\n", c.At.Format("15:04:05.000"), c.Method, c.Channel,
			c.ThreadTS, c.Status, c.Error, blocks, callKey(c), textHead(c.Text))
	}
	return b.String()
}

func textHead(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// waitUntil polls cond every 50 ms until it holds, failing the test after timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool, detail func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s never happened\n%s", timeout, what, detail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// allMessages opens a stopped daemon's archive read-only and returns every outbox message,
// delivered or not.
func allMessages(t *testing.T, db string) []model.Message {
	t.Helper()
	store, err := archive.Open(db, archive.Options{ReadOnly: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	msgs, err := store.Messages()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// slackWorld is one daemon's surroundings for a Slack fault: a Statuspage page per source
// and a fake Slack.
type slackWorld struct {
	t       *testing.T
	cfg, db string
	slack   *fakeslack.Server
	pages   map[string]*fakepage.Statuspage
	incs    map[string][]fakepage.Incident
	t0      time.Time
	n       int
	// before holds the calls of the fake Slack from before a Reset.
	before []fakeslack.Call
}

func newSlackWorld(t *testing.T, sources ...string) *slackWorld {
	w := &slackWorld{
		t:     t,
		slack: fakeslack.New(fakeslack.Options{Token: slackToken}),
		pages: map[string]*fakepage.Statuspage{},
		incs:  map[string][]fakepage.Incident{},
		t0:    time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC),
	}
	t.Cleanup(w.slack.Close)
	mux := http.NewServeMux()
	for _, s := range sources {
		p := &fakepage.Statuspage{Name: s}
		p.Set(nil, nil)
		w.pages[s] = p
		mux.Handle("/"+s+"/", http.StripPrefix("/"+s, p))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	w.cfg, w.db = writeSlackConfig(t, t.TempDir(), testbin.FreeAddr(t), srv.URL, w.slack.APIURL(), sources)
	return w
}

func (w *slackWorld) env(token string) []string { return slackEnv(w.cfg, token) }

// calls returns every call the fake Slack answered, those from before a Reset included.
func (w *slackWorld) calls() []fakeslack.Call {
	return append(slices.Clone(w.before), w.slack.Calls()...)
}

// clearFaults forgets the pending faults of the fake Slack, keeping its call log here.
func (w *slackWorld) clearFaults() {
	w.before = w.calls()
	w.slack.Reset()
}

func (w *slackWorld) at() time.Time {
	w.n++
	return w.t0.Add(time.Duration(w.n) * time.Minute)
}

// open puts a new incident on a source's page and has the daemon poll it: one root.
func (w *slackWorld) open(d *daemon, source, id string) {
	w.t.Helper()
	at := w.at()
	in := fakepage.Incident{ID: id, Name: "Elevated errors " + id, Status: "investigating", Impact: "major", CreatedAt: at, UpdatedAt: at, StartedAt: at,
		Updates: []fakepage.Update{{ID: id + "-u1", Status: "investigating", Body: "We are looking into errors on " + id + ".", CreatedAt: at, UpdatedAt: at, DisplayAt: at}}}
	w.incs[source] = append([]fakepage.Incident{in}, w.incs[source]...)
	w.publish(d, source)
}

// update adds an update to an incident and has the daemon poll it: one reply.
func (w *slackWorld) update(d *daemon, source, id, status string) {
	w.t.Helper()
	at := w.at()
	for i := range w.incs[source] {
		in := &w.incs[source][i]
		if in.ID != id {
			continue
		}
		u := fakepage.Update{ID: fmt.Sprintf("%s-u%d", id, len(in.Updates)+1), Status: status, Body: fmt.Sprintf("Update %d on %s: %s.", len(in.Updates)+1, id, status),
			CreatedAt: at, UpdatedAt: at, DisplayAt: at}
		in.Updates = append([]fakepage.Update{u}, in.Updates...)
		in.Status, in.UpdatedAt = status, at
		if status == "resolved" {
			in.ResolvedAt = &at
		}
		w.publish(d, source)
		return
	}
	w.t.Fatalf("no incident %s on %s", id, source)
}

func (w *slackWorld) publish(d *daemon, source string) {
	w.t.Helper()
	w.pages[source].Set(w.incs[source], nil)
	if code, body := d.poll(w.t, source); code != 200 || body["changes"] != float64(1) {
		w.t.Fatalf("poll %s: %d %v, want 200 {changes: 1}\n%s", source, code, body, d.log())
	}
}

// undelivered returns the daemon's undelivered messages.
func undelivered(t *testing.T, d *daemon) []model.Message {
	t.Helper()
	var msgs []model.Message
	if code := d.get(t, "/api/v1/outbox", &msgs); code != 200 {
		t.Fatalf("GET /api/v1/outbox: HTTP %d", code)
	}
	return msgs
}

// waitDelivered waits until the outbox is empty and Slack took want messages.
func (w *slackWorld) waitDelivered(d *daemon, want int, timeout time.Duration) {
	w.t.Helper()
	waitUntil(w.t, timeout, fmt.Sprintf("delivery of %d messages", want), func() bool {
		return len(undelivered(w.t, d)) == 0 && len(slackPosts(w.calls())) >= want
	}, func() string {
		return fmt.Sprintf("outbox: %+v\ncalls:\n%s\ndaemon log:\n%s", undelivered(w.t, d), describeCalls(w.calls()), d.log())
	})
}

// metricValue reads one sample of the daemon's /metrics, -1 when it is absent.
func metricValue(t *testing.T, d *daemon, series string) float64 {
	t.Helper()
	resp, err := http.Get(d.url("/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(b)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// uiPage fetches one of the daemon's pages.
func uiPage(t *testing.T, d *daemon, path string) string {
	t.Helper()
	resp, err := http.Get(d.url(path))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// checkExactlyOnce reads the outbox of a stopped daemon's archive: every message must be
// delivered, by exactly one successful chat.postMessage; every reply must sit in its
// incident's thread; and no successful post may stand for no message. It returns the
// number of messages.
func (w *slackWorld) checkExactlyOnce() int {
	w.t.Helper()
	t := w.t
	calls := w.calls()
	byKey := map[string][]fakeslack.Call{}
	for _, c := range slackPosts(calls) {
		byKey[callKey(c)] = append(byKey[callKey(c)], c)
	}
	msgs := allMessages(t, w.db)
	known := map[string]bool{}
	roots := map[string]string{} // source/incident → root ts
	for _, m := range msgs {
		k := messageKey(m)
		known[k] = true
		if m.State != model.MessageSent {
			t.Errorf("message %d (%s) is %s, want sent: %s", m.ID, k, m.State, m.LastError)
		}
		switch n := len(byKey[k]); {
		case n == 0:
			t.Errorf("message %d (%s) never reached Slack: LOST", m.ID, k)
		case n > 1:
			t.Errorf("message %d (%s) posted %d times: REPEATED", m.ID, k, n)
		}
		if m.Event == model.EventNew && len(byKey[k]) > 0 {
			roots[m.Source+"/"+m.IncidentID] = byKey[k][0].TS
		}
	}
	for k, cs := range byKey {
		if !known[k] {
			t.Errorf("Slack got %d posts (%q) for no outbox message", len(cs), k)
		}
		for _, c := range cs {
			if c.ThreadTS == "" {
				continue
			}
			if m := linkRE.FindStringSubmatch(c.Text + string(c.Blocks)); m != nil && roots[m[1]+"/"+m[2]] != c.ThreadTS {
				t.Errorf("%s was posted in thread %s, want its root %s", k, c.ThreadTS, roots[m[1]+"/"+m[2]])
			}
		}
	}
	if t.Failed() {
		t.Logf("calls:\n%s", describeCalls(calls))
	}
	return len(msgs)
}

// TestSlackFaults runs the daemon against a Slack that fails in each way docs/design.md §7 Delivery
// names, and checks each is handled as it says: nothing lost, nothing repeated, parked
// messages shown and recoverable. Two sources post to two channels, so a fault of one
// channel can be seen not to hold up the other.
func TestSlackFaults(t *testing.T) {
	testbin.Build(t) // once, before the first subtest's clock starts
	// The cases run side by side: each has its own daemon, pages and fake Slack, and
	// spends most of its time waiting out a Retry-After, a backoff or a timeout.

	// A storm of 429s: each one holds its channel for exactly the Retry-After Slack asked.
	t.Run("429 storm", func(t *testing.T) {
		t.Parallel()
		w := newSlackWorld(t, "acme", "beta")
		d := startDaemon(t, w.env(slackToken))
		const storm = 8
		w.slack.Fail(storm, fakeslack.Fault{Method: "chat.postMessage", Status: http.StatusTooManyRequests, RetryAfter: 1})
		w.open(d, "acme", "acme-1")
		w.open(d, "beta", "beta-1")
		w.update(d, "acme", "acme-1", "identified")
		w.update(d, "beta", "beta-1", "identified")
		w.waitDelivered(d, 4, 60*time.Second)
		time.Sleep(1500 * time.Millisecond) // a repeat would show by now
		d.stop(t)

		calls := w.calls()
		limited := 0
		for i, c := range calls {
			if c.Status != http.StatusTooManyRequests {
				continue
			}
			limited++
			// The next call to that channel comes no sooner than Retry-After.
			for _, next := range calls[i+1:] {
				if sameDest(next, c, calls) {
					if gap := next.At.Sub(c.At); gap < 950*time.Millisecond {
						t.Errorf("a call to %s %s after a 429 with Retry-After: 1", c.Channel, gap)
					}
					break
				}
			}
		}
		if limited != storm {
			t.Errorf("Slack answered %d 429s, want the %d injected", limited, storm)
		}
		n := w.checkExactlyOnce()
		t.Logf("%d 429s with Retry-After 1; %d messages delivered once each", limited, n)
	})

	// Bursts of 5xx on one channel: it backs off (2 s, then 4 s, ±20%) while the other
	// channel keeps flowing.
	t.Run("500 bursts", func(t *testing.T) {
		t.Parallel()
		w := newSlackWorld(t, "acme", "beta")
		d := startDaemon(t, w.env(slackToken))
		w.slack.Fail(1, fakeslack.Fault{Method: "chat.postMessage", Channel: "#acme", Status: http.StatusInternalServerError})
		w.slack.Fail(1, fakeslack.Fault{Method: "chat.postMessage", Channel: "#acme", Status: http.StatusServiceUnavailable})
		w.open(d, "acme", "acme-1")
		w.open(d, "beta", "beta-1")
		w.update(d, "beta", "beta-1", "identified")
		w.update(d, "acme", "acme-1", "identified")
		w.waitDelivered(d, 4, 60*time.Second)
		time.Sleep(1500 * time.Millisecond)
		d.stop(t)

		calls := w.calls()
		var failedAt []time.Time
		var acmeOK, betaDone time.Time
		for _, c := range calls {
			switch {
			case c.Status >= 500:
				failedAt = append(failedAt, c.At)
			case c.Method == "chat.postMessage" && c.OK() && c.Channel == "#acme" && acmeOK.IsZero():
				acmeOK = c.At
			case c.Method == "chat.postMessage" && c.OK() && c.ChannelID != "" && strings.Contains(c.Text, "beta"):
				betaDone = c.At
			}
		}
		if len(failedAt) != 2 {
			t.Fatalf("Slack answered %d 5xx, want 2:\n%s", len(failedAt), describeCalls(calls))
		}
		// Backoff 2 s then 4 s, each −20% at worst, before the next try.
		if gap := failedAt[1].Sub(failedAt[0]); gap < 1600*time.Millisecond {
			t.Errorf("retried %s after the first 5xx, want a backoff of 2 s ±20%%", gap)
		}
		if gap := acmeOK.Sub(failedAt[1]); gap < 3200*time.Millisecond {
			t.Errorf("retried %s after the second 5xx, want a backoff of 4 s ±20%%", gap)
		}
		if !betaDone.Before(acmeOK) {
			t.Errorf("#beta's last message went at %s, after #acme recovered at %s: a failing channel held up another",
				betaDone.Format("15:04:05.000"), acmeOK.Format("15:04:05.000"))
		}
		n := w.checkExactlyOnce()
		t.Logf("#acme backed off %s and %s; #beta delivered meanwhile; %d messages once each",
			failedAt[1].Sub(failedAt[0]).Round(time.Millisecond), acmeOK.Sub(failedAt[1]).Round(time.Millisecond), n)
	})

	// A Slack that stops answering: the client's ResponseHeaderTimeout (20 s, before the
	// 30 s overall timeout of kit.NewHTTPClient) gives up, the message is tried again
	// after a backoff. One such timeout costs 20 s, the longest case of this suite.
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		w := newSlackWorld(t, "acme")
		d := startDaemon(t, w.env(slackToken))
		w.slack.Fail(1, fakeslack.Fault{Method: "chat.postMessage", Delay: 40 * time.Second})
		w.open(d, "acme", "acme-1")
		w.update(d, "acme", "acme-1", "identified")
		w.waitDelivered(d, 2, 90*time.Second)
		time.Sleep(1500 * time.Millisecond)
		d.stop(t)

		calls := w.calls()
		var gaveUp, retried time.Time
		for _, c := range calls {
			if c.Error == "client gave up" {
				gaveUp = c.At
			} else if !gaveUp.IsZero() && retried.IsZero() && c.Method == "chat.postMessage" {
				retried = c.At
			}
		}
		if gaveUp.IsZero() {
			t.Fatalf("no call timed out:\n%s", describeCalls(calls))
		}
		if gap := retried.Sub(gaveUp); gap < 1600*time.Millisecond {
			t.Errorf("retried %s after the timeout, want a backoff of 2 s ±20%%", gap)
		}
		if !strings.Contains(d.log(), "timeout") {
			t.Errorf("the daemon's log does not mention the timeout:\n%s", d.log())
		}
		n := w.checkExactlyOnce()
		t.Logf("the client gave up at %s; retried %s later; %d messages once each",
			gaveUp.Format("15:04:05.000"), retried.Sub(gaveUp).Round(time.Millisecond), n)
	})

	// A refused token pauses delivery: one call, then nothing is sent and nothing is
	// dropped; after a restart with the right token everything arrives.
	t.Run("invalid_auth", func(t *testing.T) {
		t.Parallel()
		w := newSlackWorld(t, "acme", "beta")
		d := startDaemon(t, w.env("xoxb-revoked-token"))
		w.open(d, "acme", "acme-1")
		w.open(d, "beta", "beta-1")
		waitUntil(t, 15*time.Second, "the pause after invalid_auth", func() bool {
			return metricValue(t, d, "watcher_delivery_paused") == 1
		}, func() string { return describeCalls(w.calls()) + d.log() })
		w.update(d, "acme", "acme-1", "identified") // queued while paused
		time.Sleep(2 * time.Second)
		calls := w.calls()
		if len(calls) != 1 || calls[0].Error != "invalid_auth" {
			t.Errorf("while paused Slack got %d calls, want the one answered invalid_auth:\n%s", len(calls), describeCalls(calls))
		}
		if q := undelivered(t, d); len(q) != 3 {
			t.Errorf("outbox while paused: %d messages, want the 3 pending", len(q))
		} else {
			for _, m := range q {
				if m.State != model.MessagePending {
					t.Errorf("message %d is %s while paused, want pending", m.ID, m.State)
				}
			}
		}
		if !strings.Contains(d.log(), "delivery paused") {
			t.Errorf("the pause is not logged:\n%s", d.log())
		}
		d.stop(t)

		d = startDaemon(t, w.env(slackToken))
		w.waitDelivered(d, 3, 30*time.Second)
		time.Sleep(1500 * time.Millisecond)
		if v := metricValue(t, d, "watcher_delivery_paused"); v != 0 {
			t.Errorf("watcher_delivery_paused %v after the restart with a good token, want 0", v)
		}
		d.stop(t)
		n := w.checkExactlyOnce()
		t.Logf("paused after 1 call; %d messages delivered once each after the restart", n)
	})

	// A channel that is gone parks its messages (a reply waits behind its parked root),
	// which /metrics, the log, `watcher outbox list` and the UI's banner show; the other
	// channel keeps flowing; `watcher outbox retry` brings them back.
	t.Run("channel_not_found", func(t *testing.T) {
		t.Parallel()
		w := newSlackWorld(t, "acme", "beta")
		env := w.env(slackToken)
		d := startDaemon(t, env)
		w.slack.Fail(1000, fakeslack.Fault{Method: "chat.postMessage", Channel: "#acme", Error: "channel_not_found"})
		w.open(d, "acme", "acme-1")
		w.open(d, "acme", "acme-2")
		w.open(d, "beta", "beta-1")
		w.update(d, "acme", "acme-1", "identified")
		w.update(d, "beta", "beta-1", "identified")

		waitUntil(t, 30*time.Second, "#beta delivered and #acme parked", func() bool {
			parked := 0
			for _, m := range undelivered(t, d) {
				if m.State == model.MessageParked {
					parked++
				}
			}
			return parked == 2 && len(slackPosts(w.calls())) == 2
		}, func() string { return fmt.Sprintf("%+v\n%s", undelivered(t, d), describeCalls(w.calls())) })
		waitUntil(t, 15*time.Second, `watcher_outbox_messages{state="parked"} 2`, func() bool {
			return metricValue(t, d, `watcher_outbox_messages{state="parked"}`) == 2
		}, func() string { return "" })

		waitUntil(t, 15*time.Second, "the UI's banner of 2 parked messages", func() bool {
			return strings.Contains(uiPage(t, d, "/"), "2 Slack messages are parked")
		}, func() string { return uiPage(t, d, "/") })

		r := testbin.Must(t, 0, env, "outbox", "list")
		var parked []string
		for _, line := range strings.Split(r.Stdout, "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[1] == "parked" {
				parked = append(parked, f[0])
				if !strings.Contains(line, "channel_not_found") {
					t.Errorf("a parked message does not say why: %q", line)
				}
			}
		}
		if len(parked) != 2 || !strings.Contains(r.Stdout, "pending") {
			t.Errorf("watcher outbox list: want the 2 roots parked and the reply pending behind them:\n%s", r.Stdout)
		}
		if !strings.Contains(d.log(), "parking") {
			t.Errorf("the parking is not logged:\n%s", d.log())
		}

		// The channel is back (the bot was invited): retry the parked messages.
		w.clearFaults()
		r = testbin.Must(t, 0, env, append([]string{"outbox", "retry"}, parked...)...)
		if strings.Count(r.Stdout, "queued again") != len(parked) {
			t.Errorf("watcher outbox retry %v:\n%s", parked, r.Stdout)
		}
		w.waitDelivered(d, 5, 30*time.Second)
		waitUntil(t, 15*time.Second, `watcher_outbox_messages{state="parked"} 0`, func() bool {
			return metricValue(t, d, `watcher_outbox_messages{state="parked"}`) == 0
		}, func() string { return "" })
		if r := testbin.Must(t, 0, env, "outbox", "list"); !strings.Contains(r.Stdout, "outbox empty") {
			t.Errorf("outbox list after the retry:\n%s", r.Stdout)
		}
		waitUntil(t, 15*time.Second, "the UI's banner gone", func() bool {
			return !strings.Contains(uiPage(t, d, "/"), "parked.</strong>")
		}, func() string { return uiPage(t, d, "/") })
		time.Sleep(1500 * time.Millisecond)
		d.stop(t)
		n := w.checkExactlyOnce()
		t.Logf("2 roots parked (and 1 reply held) while #beta delivered; after retry %d messages once each", n)
	})

	// Slack rejects the blocks: the message goes once more as plain text, and is
	// delivered.
	t.Run("invalid_blocks", func(t *testing.T) {
		t.Parallel()
		w := newSlackWorld(t, "acme")
		d := startDaemon(t, w.env(slackToken))
		w.open(d, "acme", "acme-1")
		w.waitDelivered(d, 1, 30*time.Second)
		w.slack.Fail(1, fakeslack.Fault{Method: "chat.postMessage", Error: "invalid_blocks"})
		w.update(d, "acme", "acme-1", "identified")
		w.waitDelivered(d, 2, 30*time.Second)
		time.Sleep(1500 * time.Millisecond)
		d.stop(t)

		calls := w.calls()
		var rejected, plain *fakeslack.Call
		for i := range calls {
			c := &calls[i]
			switch {
			case c.Error == "invalid_blocks":
				rejected = c
			case rejected != nil && plain == nil && c.Method == "chat.postMessage":
				plain = c
			}
		}
		switch {
		case rejected == nil || plain == nil:
			t.Fatalf("want a rejected post and its retry:\n%s", describeCalls(calls))
		case len(rejected.Blocks) == 0:
			t.Errorf("the rejected post carried no blocks")
		case len(plain.Blocks) != 0 && string(plain.Blocks) != "[]":
			t.Errorf("the retry carried blocks again: %s", plain.Blocks)
		case !plain.OK() || callKey(*plain) != callKey(*rejected) || !strings.Contains(plain.Text, "Update 2 on acme-1"):
			t.Errorf("the retry is not the same message as plain text:\nrejected: %q\nretry: %q", rejected.Text, plain.Text)
		}
		n := w.checkExactlyOnce()
		t.Logf("rejected once, delivered as plain text; %d messages once each", n)
	})
}

// sameDest reports whether two calls went to one channel, by name or by the ID the fake
// Slack gave it.
func sameDest(a, b fakeslack.Call, calls []fakeslack.Call) bool {
	if a.Channel == b.Channel {
		return true
	}
	id := func(c fakeslack.Call) string {
		if c.ChannelID != "" {
			return c.ChannelID
		}
		for _, o := range calls {
			if o.Channel == c.Channel && o.ChannelID != "" {
				return o.ChannelID
			}
		}
		return c.Channel
	}
	return id(a) == id(b)
}
