package reliability

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepagerduty"
	"github.com/statuswatch/statuswatch/internal/fakesmtp"
	"github.com/statuswatch/statuswatch/internal/faketeams"
	"github.com/statuswatch/statuswatch/internal/fakewebhook"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// resetter stands in front of an HTTP receiver's fake and, while it has resets to give,
// answers a request by resetting its connection (RST, no answer at all).
type resetter struct {
	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	left  int
}

// newResetter starts a resetter in front of target and returns it and its URL.
func newResetter(t *testing.T, target string) (*resetter, string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	r := &resetter{proxy: proxy}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func (r *resetter) reset(n int) {
	r.mu.Lock()
	r.left += n
	r.mu.Unlock()
}

func (r *resetter) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	cut := r.left > 0
	if cut {
		r.left--
	}
	r.mu.Unlock()
	if !cut {
		r.proxy.ServeHTTP(w, req)
		return
	}
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with a RST
		}
		conn.Close()
	}
}

// receiverKind is one receiver under fault: its config, its fault injections, and what
// it took.
type receiverKind struct {
	name   string // the receiver's name in the config
	config string // its receivers: entry
	env    []string
	// rateLimit makes the next delivery answer "slow down" (429 Retry-After: 1; SMTP has
	// no Retry-After: 421, a 4xx backed off); rateResult is the failure's result label,
	// rateWait the least wait it causes.
	rateLimit  func()
	rateResult string
	rateWait   time.Duration
	// serverError makes the next n deliveries fail with a 5xx (SMTP 451).
	serverError func(n int)
	// reset makes the next delivery lose its connection.
	reset func()
	// reject refuses the next message as a message error (400; SMTP 554 at DATA), as
	// many times as it takes to park it: once when it has no other form, else twice.
	reject func()
	// auth refuses the next delivery for who we are (401/403; SMTP 535 at AUTH).
	auth func()
	// taken lists the messages accepted, in order: a key naming each, and when.
	taken func() []took
}

// TestReceiverFaults runs the daemon, for each receiver kind (webhook, PagerDuty, Teams,
// email) in parallel, with Slack and a control webhook beside it, through every fault
// kind docs/design.md §7 Delivery names, one new incident per step: a rate limit waits
// as asked, 5xx back off 2 s then 4 s, a reset connection is retried, a message error
// parks that message only (`watcher outbox list` shows it, `retry` delivers it), an auth
// error pauses that receiver only (watcher_receiver_paused) while Slack and the control
// keep delivering, until a restart. /metrics counts each result; nothing is lost or
// taken twice.
func TestReceiverFaults(t *testing.T) {
	testbin.Build(t)
	kinds := map[string]func(t *testing.T) receiverKind{
		"webhook": func(t *testing.T) receiverKind {
			h := fakewebhook.New("faults-secret")
			t.Cleanup(h.Close)
			rs, rsURL := newResetter(t, h.URL())
			return receiverKind{name: "hook",
				config:      fmt.Sprintf("  - name: hook\n    webhook: {url: \"%s/hook\", secret: faults-secret}\n", rsURL),
				rateLimit:   func() { h.Fail(1, fakewebhook.Fault{Status: 429, RetryAfter: 1}) },
				rateResult:  "rate_limited",
				rateWait:    950 * time.Millisecond,
				serverError: func(n int) { h.Fail(n, fakewebhook.Fault{Status: 503}) },
				reset:       func() { rs.reset(1) },
				reject:      func() { h.Fail(1, fakewebhook.Fault{Status: 400, Body: "bad payload"}) },
				auth:        func() { h.Fail(1, fakewebhook.Fault{Status: 401}) },
				taken: func() []took {
					var out []took
					for _, c := range h.Calls() {
						if c.Status/100 == 2 {
							out = append(out, took{c.Delivery, c.At})
						}
					}
					return out
				},
			}
		},
		"pagerduty": func(t *testing.T) receiverKind {
			pd := fakepagerduty.New(fakepagerduty.Options{RoutingKey: "faults-key"})
			t.Cleanup(pd.Close)
			rs, rsURL := newResetter(t, pd.URL())
			return receiverKind{name: "pd",
				config:      fmt.Sprintf("  - name: pd\n    pagerduty: {routing_key: faults-key, api_url: \"%s\"}\n", rsURL),
				rateLimit:   func() { pd.Fail(1, fakepagerduty.Fault{Status: 429, RetryAfter: 1}) },
				rateResult:  "rate_limited",
				rateWait:    950 * time.Millisecond,
				serverError: func(n int) { pd.Fail(n, fakepagerduty.Fault{Status: 500}) },
				reset:       func() { rs.reset(1) },
				reject:      func() { pd.Fail(2, fakepagerduty.Fault{Status: 400, Message: "Event object is invalid"}) },
				auth:        func() { pd.Fail(1, fakepagerduty.Fault{Status: 401}) },
				taken: func() []took {
					var out []took
					for _, e := range pd.Accepted() {
						out = append(out, took{e.Action + " " + e.DedupKey, e.At})
					}
					return out
				},
			}
		},
		"teams": func(t *testing.T) receiverKind {
			ms := faketeams.New(faketeams.Options{})
			t.Cleanup(ms.Close)
			rs, rsURL := newResetter(t, ms.WebhookURL("ops"))
			return receiverKind{name: "ms",
				config:      fmt.Sprintf("  - name: ms\n    teams: {webhook_url: \"%s/webhook/ops\"}\n", rsURL),
				rateLimit:   func() { ms.Fail(1, faketeams.Fault{Status: 429, RetryAfter: 1}) },
				rateResult:  "rate_limited",
				rateWait:    950 * time.Millisecond,
				serverError: func(n int) { ms.Fail(n, faketeams.Fault{Status: 502}) },
				reset:       func() { rs.reset(1) },
				reject:      func() { ms.Fail(2, faketeams.Fault{Status: 400, Code: "InvalidRequestContent"}) },
				auth:        func() { ms.Fail(1, faketeams.Fault{Status: 403}) },
				taken: func() []took {
					var out []took
					for _, p := range ms.Accepted() {
						out = append(out, took{teamsKey(p), p.At})
					}
					return out
				},
			}
		},
		"email": func(t *testing.T) receiverKind {
			m, err := fakesmtp.New(fakesmtp.Options{Username: "watcher", Password: "faults-password"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(m.Close)
			ca := filepath.Join(t.TempDir(), "smtp-ca.pem")
			if err := os.WriteFile(ca, m.CAPEM(), 0o600); err != nil {
				t.Fatal(err)
			}
			return receiverKind{name: "mail",
				config: fmt.Sprintf("  - name: mail\n    email: {smtp: \"%s\", from: watcher@example.test, to: [sre@example.test], username: watcher, password: faults-password, starttls: true}\n",
					m.Addr()),
				env:        []string{"SSL_CERT_FILE=" + ca},
				rateLimit:  func() { m.Fail(1, fakesmtp.Fault{Command: "MAIL", Code: 421, Message: "too many messages, slow down"}) },
				rateResult: "transient",
				rateWait:   1600 * time.Millisecond, // the first backoff, 2 s −20%
				serverError: func(n int) {
					m.Fail(n, fakesmtp.Fault{Command: "DATA", Code: 451, Message: "local error in processing"})
				},
				reset:  func() { m.Fail(1, fakesmtp.Fault{Command: "MAIL"}) }, // Code 0: the connection dropped
				reject: func() { m.Fail(2, fakesmtp.Fault{Command: "DATA", Code: 554, Message: "message content rejected"}) },
				auth: func() {
					m.Fail(1, fakesmtp.Fault{Command: "AUTH", Code: 535, Message: "authentication credentials invalid"})
				},
				taken: func() []took {
					var out []took
					for _, msg := range m.Messages() {
						out = append(out, took{msg.Header().Get("Message-Id"), msg.At})
					}
					return out
				},
			}
		},
	}
	for _, kind := range []string{"webhook", "pagerduty", "teams", "email"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			receiverFaults(t, kinds[kind](t))
		})
	}
}

func receiverFaults(t *testing.T, k receiverKind) {
	started := time.Now()
	w := newSlackWorld(t, "acme")
	ctl := fakewebhook.New("control-secret")
	t.Cleanup(ctl.Close)
	appendConfig(t, w.cfg, "receivers:\n"+k.config+"  - name: ctl\n    webhook: {url: \""+ctl.URL()+"\", secret: control-secret}\n"+
		"routes:\n  - match: {}\n    receivers: [slack, "+k.name+", ctl]\n")
	env := append(w.env(slackToken), k.env...)
	d := startDaemon(t, env)
	defer func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s\nSlack calls:\n%s", d.log(), describeCalls(w.calls()))
		}
	}()
	result := func(r string) float64 {
		return metricValue(t, d, fmt.Sprintf(`watcher_notifications_total{receiver="%s",result="%s"}`, k.name, r))
	}
	ctlTaken := func() int {
		n := 0
		for _, c := range ctl.Calls() {
			if c.Status/100 == 2 {
				n++
			}
		}
		return n
	}
	// took waits until the receiver under fault has taken n messages and returns when it
	// took the last; everyone else must have taken them too.
	opened := 0
	took := func(n int, within time.Duration) time.Time {
		t.Helper()
		waitUntil(t, within, fmt.Sprintf("%s taking %d messages", k.name, n), func() bool {
			return len(k.taken()) >= n
		}, func() string { return fmt.Sprintf("%s took %+v; outbox %+v", k.name, k.taken(), undelivered(t, d)) })
		return k.taken()[n-1].at
	}
	others := func(n int) {
		t.Helper()
		waitUntil(t, 10*time.Second, fmt.Sprintf("Slack and the control taking %d messages", n), func() bool {
			return len(slackPosts(w.calls())) >= n && ctlTaken() >= n
		}, func() string { return fmt.Sprintf("Slack %d, control %d", len(slackPosts(w.calls())), ctlTaken()) })
	}
	open := func() time.Time {
		t.Helper()
		opened++
		at := time.Now()
		w.open(d, "acme", fmt.Sprintf("acme-%d", opened))
		return at
	}
	counter := func(r string, want float64) {
		t.Helper()
		if v := result(r); v != want {
			t.Errorf(`watcher_notifications_total{receiver=%q,result=%q} = %v, want %v`, k.name, r, v, want)
		}
	}

	// No fault: a baseline.
	open()
	took(1, 10*time.Second)
	others(1)

	// A rate limit: the retry waits as asked.
	k.rateLimit()
	at := open()
	if got := took(2, 15*time.Second); got.Sub(at) < k.rateWait {
		t.Errorf("rate limit: taken %s after the poll, want at least %s", got.Sub(at), k.rateWait)
	}
	counter(k.rateResult, 1)

	// Server errors: backoff 2 s then 4 s (each −20% at worst), while Slack and the
	// control take the message at once.
	k.serverError(2)
	at = open()
	others(3)
	othersAt := time.Now()
	got := took(3, 20*time.Second)
	if got.Sub(at) < 4800*time.Millisecond {
		t.Errorf("server errors: taken %s after the poll, want a backoff of 2 s then 4 s", got.Sub(at))
	}
	if !othersAt.Before(got) {
		t.Errorf("Slack and the control took the message only after %s recovered", k.name)
	}
	serverTransient := 2.0
	if k.rateResult == "transient" {
		serverTransient++
	}
	counter("transient", serverTransient)

	// A reset connection: retried after the first backoff.
	k.reset()
	at = open()
	if got := took(4, 15*time.Second); got.Sub(at) < 1600*time.Millisecond {
		t.Errorf("reset: taken %s after the poll, want a backoff of 2 s", got.Sub(at))
	}
	counter("transient", serverTransient+1)

	// A message error parks that message only: the next incident's message goes through.
	k.reject()
	open()
	var parked string
	waitUntil(t, 15*time.Second, "the rejected message parked", func() bool {
		for _, m := range undelivered(t, d) {
			if m.Receiver == k.name && m.State == "parked" {
				parked = fmt.Sprint(m.ID)
			}
		}
		return parked != ""
	}, func() string { return fmt.Sprintf("%+v", undelivered(t, d)) })
	open()
	took(5, 10*time.Second)
	others(6)
	if v := result("rejected"); v < 1 {
		t.Errorf(`watcher_notifications_total{receiver=%q,result="rejected"} = %v, want at least 1`, k.name, v)
	}
	r := testbin.Must(t, 0, env, "outbox", "list")
	var line string
	for _, l := range strings.Split(r.Stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == parked {
			line = l
		}
	}
	if f := strings.Fields(line); len(f) < 3 || f[1] != "parked" || f[2] != k.name || strings.Count(r.Stdout, "\n") != 2 {
		t.Errorf("watcher outbox list: want only message %s, parked for %s:\n%s", parked, k.name, r.Stdout)
	}
	if r := testbin.Must(t, 0, env, "outbox", "retry", parked); !strings.Contains(r.Stdout, "queued again") {
		t.Errorf("watcher outbox retry %s:\n%s", parked, r.Stdout)
	}
	took(6, 10*time.Second)

	// An auth error pauses this receiver only: Slack and the control keep delivering,
	// its messages wait (pending, not parked) until a restart.
	k.auth()
	open()
	waitUntil(t, 10*time.Second, "the pause", func() bool {
		return metricValue(t, d, fmt.Sprintf(`watcher_receiver_paused{receiver="%s"}`, k.name)) == 1
	}, func() string { return "" })
	open()
	others(8)
	time.Sleep(500 * time.Millisecond) // a call while paused would show by now
	if n := len(k.taken()); n != 6 {
		t.Errorf("while paused %s took %d messages, want the 6 from before", k.name, n)
	}
	if v := metricValue(t, d, `watcher_receiver_paused{receiver="ctl"}`); v != 0 {
		t.Errorf("the control receiver is paused too: %v", v)
	}
	counter("auth", 1)
	pending := 0
	for _, m := range undelivered(t, d) {
		if m.Receiver != k.name || m.State != "pending" {
			t.Errorf("while %s is paused, message %d of %q is %s", k.name, m.ID, m.Receiver, m.State)
		}
		pending++
	}
	if pending != 2 {
		t.Errorf("while paused: %d messages pending, want 2", pending)
	}
	d.stop(t)
	d = startDaemon(t, env)
	took(8, 15*time.Second)
	waitUntil(t, 10*time.Second, "an empty outbox", func() bool { return len(undelivered(t, d)) == 0 }, func() string { return "" })
	if v := metricValue(t, d, fmt.Sprintf(`watcher_receiver_paused{receiver="%s"}`, k.name)); v != 0 {
		t.Errorf("watcher_receiver_paused{receiver=%q} %v after the restart, want 0", k.name, v)
	}
	time.Sleep(500 * time.Millisecond) // a repeat would show by now
	d.stop(t)

	// Nothing lost, nothing twice, for anyone.
	keys := map[string]int{}
	for _, x := range k.taken() {
		if keys[x.key]++; keys[x.key] == 2 || x.key == "" {
			t.Errorf("%s took %q twice (or unnamed)", k.name, x.key)
		}
	}
	if len(keys) != opened || len(slackPosts(w.calls())) != opened || ctlTaken() != opened {
		t.Errorf("%d incidents: %s took %d distinct messages, Slack %d, the control %d", opened, k.name, len(keys), len(slackPosts(w.calls())), ctlTaken())
	}
	for _, dl := range ctl.Deliveries() {
		if dl.Repeat > 0 {
			t.Errorf("the control took delivery %s again", dl.ID)
		}
	}
	w.checkExactlyOnce()
	t.Logf("%s: %d messages through a rate limit, 2 server errors, a reset, a parked message, an auth pause and a restart, in %s",
		k.name, opened, time.Since(started).Round(100*time.Millisecond))
}
