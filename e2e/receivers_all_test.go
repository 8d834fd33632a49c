package e2e

// TestEveryReceiverEndToEnd is the end-to-end test of the five destinations on the built
// binary: an incident's life (new → update, retitled → resolved) on a local Statuspage
// page, one route sending everything to Slack, a webhook, PagerDuty, Teams and email
// (SMTP with STARTTLS and a login, the server's CA trusted through SSL_CERT_FILE):
//
//   - Teams answers 500 for the first two steps: the other four take each message at
//     once (one failing receiver delays no other);
//   - the daemon is killed (SIGKILL) with Teams' two cards queued, started again, Teams
//     heals: it gets both cards, nobody gets anything twice;
//   - the daemon is killed again the moment the resolution is archived, deliveries in
//     flight: after the restart every receiver gets the resolution, and a message is
//     repeated only if its answer came before the kill (the outbox could not record it);
//   - the payloads: the webhook's signed, of exactly what the archive says; PagerDuty one
//     trigger and one resolve under dedup_key acme/inc1 and nothing for the update; one
//     mail thread (Message-ID, In-Reply-To, References) under the first title, text and
//     HTML parts with the change marked; Teams' cards with the word diff and the links.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakepagerduty"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/fakesmtp"
	"github.com/statuswatch/statuswatch/internal/faketeams"
	"github.com/statuswatch/statuswatch/internal/fakewebhook"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

const (
	allPDKey    = "e2e-pagerduty-routing-key"
	allSMTPUser = "watcher@example.test"
	allSMTPPass = "e2e-smtp-password"
)

func TestEveryReceiverEndToEnd(t *testing.T) {
	bin := testbin.Build(t)
	slack := fakeslack.New(fakeslack.Options{Token: recvToken})
	defer slack.Close()
	hook := fakewebhook.New(recvSecret)
	defer hook.Close()
	pd := fakepagerduty.New(fakepagerduty.Options{RoutingKey: allPDKey})
	defer pd.Close()
	ms := faketeams.New(faketeams.Options{})
	defer ms.Close()
	mail, err := fakesmtp.New(fakesmtp.Options{Username: allSMTPUser, Password: allSMTPPass})
	if err != nil {
		t.Fatal(err)
	}
	defer mail.Close()
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(nil, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()

	dir := t.TempDir()
	for name, text := range map[string]string{"hook-secret": recvSecret, "pd-key": allPDKey, "teams-url": ms.WebhookURL("sre"),
		"smtp-password": allSMTPPass, "smtp-ca.pem": string(mail.CAPEM())} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath, base := writeAcmeConfig(t, dir, slack.APIURL(), srv.URL, fmt.Sprintf(`receivers:
  - name: hooks
    webhook: {url: %s, secret_file: hook-secret}
  - name: oncall
    pagerduty: {routing_key_file: pd-key, api_url: "%s"}
  - name: ops-channel
    teams: {webhook_url_file: teams-url}
  - name: sre-mail
    email:
      smtp: "%s"
      from: watcher@example.test
      to: [sre@example.test]
      username: %s
      password_file: smtp-password
      starttls: true
routes:
  - match: {}
    receivers: [slack, hooks, oncall, ops-channel, sre-mail]
`, hook.URL(), pd.URL(), mail.Addr(), allSMTPUser))
	env := []string{"WATCHER_CONFIG=" + cfgPath, "SLACK_BOT_TOKEN=" + recvToken, "SSL_CERT_FILE=" + filepath.Join(dir, "smtp-ca.pem")}
	testbin.Must(t, 0, env, "check")
	d := testbin.StartDaemon(t, bin, env)
	poll := func() { t.Helper(); pollAcme(t, d) }
	// counts are what each receiver took so far; want waits (bounded) for them.
	counts := func() [5]int {
		return [5]int{len(slackPosts(slack)), len(hook.Deliveries()), len(pd.Accepted()), len(ms.Accepted()), len(mail.Messages())}
	}
	want := func(what string, w [5]int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for counts() != w {
			if time.Now().After(deadline) {
				for _, p := range slackPosts(slack) {
					t.Logf("slack post %s %s: %.100q", p.At.Format(time.StampMicro), p.TS, p.Text)
				}
				t.Fatalf("%s: slack, webhook, pagerduty, teams, email took %v within 10s, want %v:\n%s", what, counts(), w, d.Log())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	poll() // the empty page: nothing to say

	// Step 1: a new incident, Teams down; the other four take it at once.
	ms.Fail(1000, faketeams.Fault{Status: 500})
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	u1 := fakepage.Update{ID: "inc1-u1", Status: "investigating", Body: "We are looking into API errors.", CreatedAt: at, UpdatedAt: at, DisplayAt: at}
	inc := fakepage.Incident{ID: "inc1", Name: "Elevated API errors", Status: "investigating", Impact: "major",
		CreatedAt: at, UpdatedAt: at, StartedAt: at, Shortlink: "https://stspg.test/inc1", Updates: []fakepage.Update{u1}}
	page.Set([]fakepage.Incident{inc}, nil)
	start := time.Now()
	poll()
	want("the new incident", [5]int{1, 1, 1, 0, 1})
	newTook := time.Since(start)

	// Step 2: an update that also retitles it, Teams still down.
	at2 := at.Add(10 * time.Minute)
	u2 := fakepage.Update{ID: "inc1-u2", Status: "identified", Body: "We found the cause in the EU region.", CreatedAt: at2, UpdatedAt: at2, DisplayAt: at2}
	inc.Name, inc.Status, inc.UpdatedAt, inc.Updates = "Elevated API errors in EU", "identified", at2, []fakepage.Update{u2, u1}
	page.Set([]fakepage.Incident{inc}, nil)
	poll()
	want("the update", [5]int{2, 2, 1, 0, 2}) // no page for an update
	if newTook > 5*time.Second {
		t.Errorf("with Teams failing, the others took the new incident in %s", newTook)
	}
	failed := ms.Posts()
	if len(failed) == 0 || slices.ContainsFunc(failed, faketeams.Post.OK) {
		t.Fatalf("Teams was never tried, or took a card: %+v\n%s", failed, d.Log())
	}

	// SIGKILL #1 with Teams' two cards queued, once the outbox has recorded every other
	// delivery (a message killed between its answer and that record is sent again, by
	// design); a new daemon; Teams heals.
	settle(t, d, 2)
	kill(t, d)
	ms.Reset()
	d = testbin.StartDaemon(t, bin, env)
	want("Teams' queued cards after the restart", [5]int{2, 2, 1, 2, 2})
	settle(t, d, 0)

	// Step 3: resolved, and SIGKILL #2 the moment it is archived, deliveries in flight.
	at3 := at.Add(40 * time.Minute)
	u3 := fakepage.Update{ID: "inc1-u3", Status: "resolved", Body: "Errors are back to normal.", CreatedAt: at3, UpdatedAt: at3, DisplayAt: at3}
	inc.Status, inc.UpdatedAt, inc.ResolvedAt, inc.Updates = "resolved", at3, &at3, []fakepage.Update{u3, u2, u1}
	page.Set([]fakepage.Incident{inc}, nil)
	resolving := time.Now()
	poll()
	kill(t, d)
	killed := time.Now()
	t.Logf("at the second kill: %v taken", counts())
	d = testbin.StartDaemon(t, bin, env)

	// Every receiver gets the resolution; a repeat only of what was answered before the
	// kill. The outbox is checked through what each receiver took: distinct messages in
	// order, each at most twice, the second copy only after a first answered pre-kill.
	deadline := time.Now().Add(10 * time.Second)
	for {
		sp, wd, pe, tp, em := distinct(t, slackPosts(slack), func(c fakeslack.Call) string { return c.Text }, func(c fakeslack.Call) time.Time { return c.At }),
			distinct(t, hook.Calls(), func(c fakewebhook.Call) string { return okKey(c.Status < 300, c.Delivery) }, func(c fakewebhook.Call) time.Time { return c.At }),
			distinct(t, pd.Accepted(), func(e fakepagerduty.Event) string { return e.Action }, func(e fakepagerduty.Event) time.Time { return e.At }),
			distinct(t, ms.Accepted(), func(p faketeams.Post) string { return string(p.Body) }, func(p faketeams.Post) time.Time { return p.At }),
			distinct(t, mail.Messages(), func(m fakesmtp.Message) string { return m.Header().Get("Message-Id") }, func(m fakesmtp.Message) time.Time { return m.At })
		got := [5]int{len(sp), len(wd), len(pe), len(tp), len(em)}
		if got == [5]int{3, 3, 2, 3, 3} {
			for i, rep := range [][]time.Time{sp, wd, pe, tp, em} {
				for _, first := range rep {
					if !first.IsZero() && (first.Before(resolving) || first.After(killed)) {
						t.Errorf("receiver %d: a message taken at %s was taken again (only one answered between %s and the kill at %s may be)", i, first, resolving, killed)
					}
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the second kill: slack, webhook, pagerduty, teams, email took %v distinct messages within 10s, want [3 3 2 3 3]:\n%s", got, d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Slack: a root, the update's reply and the resolution in its thread.
	posts := slackPosts(slack)
	if posts[0].ThreadTS != "" || posts[1].ThreadTS != posts[0].TS || posts[len(posts)-1].ThreadTS != posts[0].TS ||
		!strings.Contains(posts[len(posts)-1].Text, "Resolved: Elevated API errors in EU") {
		t.Errorf("Slack posts: %+v", posts)
	}

	// Webhook: signed, one id per message, each payload what the archive says.
	var ds []fakewebhook.Delivery
	for _, dl := range hook.Deliveries() {
		if dl.Repeat == 0 {
			ds = append(ds, dl)
		}
	}
	for _, c := range hook.Calls() {
		if !c.SignatureOK {
			t.Errorf("delivery %s: bad signature %q", c.Delivery, c.Header.Get(fakewebhook.HeaderSignature))
		}
	}
	wantPayload(t, d, ds[0].Body, "new", 1, "investigating", "Elevated API errors", base)
	wantPayload(t, d, ds[1].Body, fmt.Sprint(ds[1].Payload["event"]), 2, "identified", "Elevated API errors in EU", base)
	wantPayload(t, d, ds[2].Body, "resolved", 3, "resolved", "Elevated API errors in EU", base)

	// PagerDuty: one alert, triggered once with the incident's fields, resolved once.
	alerts := pd.Alerts()
	if len(alerts) != 1 || alerts[0].DedupKey != "acme/inc1" || alerts[0].Open || alerts[0].Severity != "error" {
		t.Errorf("PagerDuty alerts: %+v", alerts)
	}
	var trigger, resolve *fakepagerduty.Event
	for _, e := range pd.Accepted() {
		switch e.Action {
		case "trigger":
			trigger = &e
		case "resolve":
			resolve = &e
		}
		if e.RoutingKey != allPDKey || e.DedupKey != "acme/inc1" || e.ClientURL != base+"/incidents/acme/inc1" {
			t.Errorf("PagerDuty event %s: key %q, dedup_key %q, client_url %q", e.Action, e.RoutingKey, e.DedupKey, e.ClientURL)
		}
	}
	if trigger == nil || resolve == nil || trigger.Payload == nil || trigger.Payload.Source != "acme" || trigger.Payload.Severity != "error" ||
		!strings.Contains(trigger.Payload.Summary, "Elevated API errors") || trigger.Payload.Group != "Acme" ||
		trigger.Payload.Details["status"] != "investigating" || trigger.Payload.Details["latest_update"] != "We are looking into API errors." ||
		len(trigger.Links) != 2 || trigger.Links[0].Href != base+"/incidents/acme/inc1" || trigger.Links[1].Href != "https://stspg.test/inc1" {
		t.Errorf("PagerDuty trigger %+v, resolve %+v", trigger, resolve)
	}

	// Email: one thread under the first title, over STARTTLS, logged in.
	msgs := mail.Messages()
	root := "<incident.acme.inc1@example.test>"
	for i, m := range msgs {
		h := m.Header()
		subject, reply := "Re: Acme: Elevated API errors", root
		if h.Get("Message-Id") == root {
			subject, reply = "Acme: Elevated API errors", ""
		} else if i == 0 {
			t.Errorf("the first mail's Message-ID is %q, want %q", h.Get("Message-Id"), root)
		}
		if h.Get("Subject") != subject || h.Get("In-Reply-To") != reply || h.Get("References") != reply || !m.TLS || m.User != allSMTPUser ||
			m.From != "watcher@example.test" || !slices.Equal(m.To, []string{"sre@example.test"}) {
			t.Errorf("mail %d: TLS %v, user %q, from %q, to %v, headers %v", i, m.TLS, m.User, m.From, m.To, h)
		}
		parts, err := m.Parts()
		if err != nil || parts["text/plain"] == "" || parts["text/html"] == "" {
			t.Errorf("mail %d parts: %v %v", i, parts, err)
		}
	}
	if parts, _ := msgs[1].Parts(); !strings.Contains(parts["text/html"], "<del style=") || !strings.Contains(parts["text/html"], "<ins style=") ||
		!strings.Contains(parts["text/plain"], "We found the cause in the EU region.") {
		t.Errorf("the update's mail does not mark the change:\n%s", parts["text/html"])
	}

	// Teams: three cards, the update's with the word diff marked, links to our pages.
	cards := ms.Accepted()
	for i, p := range cards {
		if p.Hook != "sre" || len(p.Cards) != 1 || !slices.ContainsFunc(p.Text(), func(s string) bool { return strings.Contains(s, "Elevated API errors") }) {
			t.Errorf("Teams post %d: %+v", i, p)
		}
	}
	var struck, underlined bool
	for _, e := range cards[1].Cards[0].Body {
		for _, r := range e.Inlines {
			struck = struck || r.Strikethrough
			underlined = underlined || r.Underline
		}
	}
	if !struck || !underlined {
		t.Errorf("the update's card marks no removed or no added words: %s", cards[1].Body)
	}
	if a := cards[0].Cards[0].Actions; !slices.ContainsFunc(a, func(a faketeams.Action) bool { return a.URL == base+"/incidents/acme/inc1" }) {
		t.Errorf("the new incident's card links to %+v", a)
	}
}

// okKey is a call's key when it was taken, "" when it was refused.
func okKey(ok bool, key string) string {
	if ok {
		return key
	}
	return ""
}

// distinct checks what a receiver took in order: each message (by key; "" is not one)
// once, or twice. It returns, per distinct message, the zero time, or for a repeated
// one the time its first copy was taken.
func distinct[T any](t *testing.T, took []T, key func(T) string, at func(T) time.Time) []time.Time {
	t.Helper()
	first := map[string]time.Time{}
	var order []string
	repeated := map[string]int{}
	for _, x := range took {
		k := key(x)
		if k == "" {
			continue
		}
		if _, seen := first[k]; seen {
			if repeated[k]++; repeated[k] == 2 {
				t.Errorf("a message was taken three times: %.80q", k)
			}
			continue
		}
		first[k] = at(x)
		order = append(order, k)
	}
	out := make([]time.Time, len(order))
	for i, k := range order {
		if repeated[k] > 0 {
			out[i] = first[k]
		}
	}
	return out
}

// writeAcmeConfig writes the config the receiver tests share to dir/config.yaml: the
// archive in dir, a free listen address (base_url on it), Slack's fake at slackAPI, the
// one Statuspage source acme at pageURL, polled only when asked; rest follows (receivers,
// routes). It returns the config's path and the base URL.
func writeAcmeConfig(t *testing.T, dir, slackAPI, pageURL, rest string) (path, base string) {
	t.Helper()
	listen := testbin.FreeAddr(t)
	base = "http://" + listen
	path = filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`database: %s
listen: %s
base_url: %s
slack:
  token: ${SLACK_BOT_TOKEN}
  channel: "#acme"
  api_url: %s
sources:
  - name: acme
    title: Acme
    url: %s
    kind: statuspage
    schedule: "@every 1h"
    timeout: 10s
`, filepath.Join(dir, "watcher.db"), listen, base, slackAPI, pageURL) + rest
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, base
}

// pollAcme polls acme at once through d's API.
func pollAcme(t *testing.T, d *testbin.Daemon) {
	t.Helper()
	if code, body := d.PollNow(t, "acme"); code != http.StatusOK {
		t.Fatalf("poll: HTTP %d %v\n%s", code, body, d.Log())
	}
}

// kill ends d with SIGKILL and waits for it to be gone.
func kill(t *testing.T, d *testbin.Daemon) {
	t.Helper()
	if err := d.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.Done()
}

// settle waits (bounded) until the outbox of d has recorded every delivery: nothing
// pending for any receiver but Teams (ops-channel), which has teams pending.
func settle(t *testing.T, d *testbin.Daemon, teams int) {
	t.Helper()
	busy := regexp.MustCompile(`watcher_receiver_messages\{receiver="[^"]+",state="pending"\} [1-9]`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := get(t, d.URL("/metrics"))
		if strings.Contains(m, fmt.Sprintf(`watcher_receiver_messages{receiver="ops-channel",state="pending"} %d`+"\n", teams)) &&
			!busy.MatchString(strings.ReplaceAll(m, `receiver="ops-channel"`, "")) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbox did not settle within 10s:\n%s", m)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
