package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// TestCheckRefusesAReceiverKindNotBuiltIn checks that a receiver kind the config knows but
// this build cannot deliver to fails every command up front, naming the receiver.
func TestCheckRefusesAReceiverKindNotBuiltIn(t *testing.T) {
	var missing string
	for _, k := range []string{"pagerduty", "teams", "email"} {
		if _, ok := receiverKinds[k]; !ok {
			missing = k
			break
		}
	}
	if missing == "" {
		t.Skip("every receiver kind is built in")
	}
	blocks := map[string]string{"pagerduty": "{routing_key: k}", "teams": "{webhook_url: 'https://t.test'}", "email": "{smtp: 'm.test:25', from: a@b.test, to: [c@d.test]}"}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	yml := "database: " + filepath.Join(dir, "watcher.db") + "\nlisten: ''\nsources:\n  - name: a\n    url: https://a.test\n" +
		"receivers:\n  - name: x\n    " + missing + ": " + blocks[missing] + "\nroutes:\n  - match: {}\n    receivers: [x]\n"
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runIn(t, "check", "-config", cfg)
	want := "error: receivers[0]." + missing + ": receiver x: kind " + missing + " is not available in this build of watcher\n"
	if code != exitError || stdout != "" || stderr != want {
		t.Errorf("got exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, exitError, want)
	}
}
