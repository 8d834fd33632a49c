package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fakepagerduty"
	"github.com/statuswatch/statuswatch/internal/fakesmtp"
	"github.com/statuswatch/statuswatch/internal/faketeams"
	"github.com/statuswatch/statuswatch/internal/fakewebhook"
)

// TestCheckReceivers checks that `watcher check -receivers` sends one signed test
// message to each receiver, and says which failed.
func TestCheckReceivers(t *testing.T) {
	good := fakewebhook.New("s1")
	defer good.Close()
	bad := fakewebhook.New("s2")
	defer bad.Close()
	bad.FailAll(fakewebhook.Fault{Status: 403})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	yml := "database: " + filepath.Join(dir, "watcher.db") + "\nlisten: ''\nsources:\n  - name: a\n    url: https://a.test\n" +
		"receivers:\n  - name: good\n    webhook: {url: " + good.URL() + ", secret: s1}\n  - name: bad\n    webhook: {url: " + bad.URL() + ", secret: s2}\n" +
		"routes:\n  - match: {}\n    receivers: [slack, good, bad]\n"
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runIn(t, "check", "-receivers", "-config", cfg)
	if code != exitError {
		t.Errorf("got exit %d, want %d", code, exitError)
	}
	if !strings.Contains(stdout, "receiver good (webhook): test message sent\n") {
		t.Errorf("stdout %q", stdout)
	}
	if want := "receiver bad: webhook bad: HTTP 403\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	ds := good.Deliveries()
	if len(ds) != 1 || ds[0].Payload["event"] != "test" || !strings.Contains(ds[0].Payload["summary"].(string), "routed to good") {
		b, _ := json.Marshal(ds)
		t.Errorf("deliveries: %s", b)
	}
	if c := bad.Calls(); len(c) != 1 || !c[0].SignatureOK {
		t.Errorf("bad receiver calls: %+v", c)
	}
}

// TestCheckReceiversEveryKind checks that `watcher check -receivers` sends a test
// message to a receiver of each kind, and that it arrives as that platform reads it:
// a signed webhook delivery, a PagerDuty trigger and its resolve, a Teams card, a mail.
func TestCheckReceiversEveryKind(t *testing.T) {
	hook := fakewebhook.New("s1")
	defer hook.Close()
	pd := fakepagerduty.New(fakepagerduty.Options{RoutingKey: "pdkey"})
	defer pd.Close()
	ms := faketeams.New(faketeams.Options{})
	defer ms.Close()
	mail, err := fakesmtp.New(fakesmtp.Options{NoTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mail.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	yml := "database: " + filepath.Join(dir, "watcher.db") + "\nlisten: ''\nsources:\n  - name: a\n    url: https://a.test\n" +
		"receivers:\n" +
		"  - name: hook\n    webhook: {url: " + hook.URL() + ", secret: s1}\n" +
		"  - name: pd\n    pagerduty: {routing_key: pdkey, api_url: '" + pd.URL() + "'}\n" +
		"  - name: ms\n    teams: {webhook_url: '" + ms.WebhookURL("ops") + "'}\n" +
		"  - name: mail\n    email: {smtp: '" + mail.Addr() + "', from: watcher@example.test, to: [sre@example.test], starttls: false}\n" +
		"routes:\n  - match: {}\n    receivers: [hook, pd, ms, mail]\n"
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runIn(t, "check", "-receivers", "-config", cfg)
	want := "receiver hook (webhook): test message sent\nreceiver pd (pagerduty): test message sent\n" +
		"receiver ms (teams): test message sent\nreceiver mail (email): test message sent\n"
	if code != exitOK || !strings.HasSuffix(stdout, "\n"+want) || stderr != "" {
		t.Fatalf("got exit %d, stdout %q, stderr %q; want %d, %q", code, stdout, stderr, exitOK, want)
	}
	if c := hook.Calls(); len(c) != 1 || !c[0].SignatureOK {
		t.Errorf("webhook calls: %+v", c)
	}
	ev := pd.Accepted()
	if len(ev) != 2 || ev[0].Action != "trigger" || ev[1].Action != "resolve" || ev[0].DedupKey != ev[1].DedupKey ||
		ev[0].Payload == nil || !strings.Contains(ev[0].Payload.Summary, "routed to pd") {
		t.Errorf("pagerduty events: %+v", ev)
	}
	if p := ms.Accepted(); len(p) != 1 || p[0].Hook != "ops" || !slices.ContainsFunc(p[0].Text(), func(s string) bool { return strings.Contains(s, "routed to ms") }) {
		t.Errorf("teams posts: %+v", p)
	}
	m := mail.Messages()
	if len(m) != 1 || !strings.Contains(m[0].Header().Get("Subject"), "routed to mail") || m[0].From != "watcher@example.test" {
		t.Errorf("mails: %+v", m)
	}
}
