package reliability

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/fakewebhook"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// TestSecretsNeverLeak runs the daemon with every kind of secret — a Slack token, webhook
// URLs, web.auth and a source header — through failures that produce errors, and greps
// every log line, API answer, page, /metrics and command output for them.
func TestSecretsNeverLeak(t *testing.T) {
	const (
		token   = "xoxb-SECRET-token-4242"
		hookSec = "T0SECRET/B0SECRET/hooksecretpath9999"
		bearer  = "bearer-SECRET-7777"
		header  = "Basic SECRET-vendor-header-5555"
	)
	slack := fakeslack.New(fakeslack.Options{Token: token})
	defer slack.Close()
	hook := slack.WebhookURL(hookSec)
	// A receiver's webhook: its URL, signing key and header are secrets too.
	const (
		recvQuery  = "SECRET-receiver-query-3131"
		recvKey    = "SECRET-receiver-hmac-2121"
		recvHeader = "SECRET-receiver-header-1919"
	)
	receiver := fakewebhook.New(recvKey)
	defer receiver.Close()
	receiver.FailAll(fakewebhook.Fault{Status: 500, Body: "down"})

	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set([]fakepage.Incident{incident(t0, "inc1", "investigating")}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer broken.Close()

	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	addr := testbin.FreeAddr(t)
	os.WriteFile(cfg, []byte(fmt.Sprintf(`database: %s
listen: %s
web:
  auth:
    bearer_token: ${WEB_TOKEN}
slack:
  token: ${SLACK_BOT_TOKEN}
  channel: "#vendor-status"
  api_url: %s
sources:
  - name: acme
    url: %s
    kind: statuspage
    schedule: "@every 1h"
    headers:
      Authorization: ${VENDOR_HEADER}
  - name: hooked
    url: %s
    kind: statuspage
    schedule: "@every 1h"
    webhook_url: %s
    failure_threshold: 1
receivers:
  - name: hooks
    webhook: {url: "%s?token=%s", secret: %s, headers: {X-Api-Key: %s}}
routes:
  - match: {}
    receivers: [slack, hooks]
`, filepath.Join(dir, "watcher.db"), addr, slack.APIURL(), srv.URL, broken.URL, hook, receiver.URL(), recvQuery, recvKey, recvHeader)), 0o600)
	env := []string{"WATCHER_CONFIG=" + cfg, "SLACK_BOT_TOKEN=" + token, "WEB_TOKEN=" + bearer, "VENDOR_HEADER=" + header}

	// Slack refuses: the token is revoked for chat.postMessage, the webhook is gone.
	slack.Fail(100, fakeslack.Fault{Method: "chat.postMessage", Error: "token_revoked"})
	slack.Fail(100, fakeslack.Fault{Method: "webhook", Status: 404, Error: "no_service"})

	d := startDaemon(t, env)
	var seen strings.Builder
	get := func(path string) {
		req, _ := http.NewRequest(http.MethodGet, d.url(path), nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(&seen, "== GET %s %d\n%s\n%v\n", path, resp.StatusCode, b, resp.Header)
	}
	post := func(path string) {
		req, _ := http.NewRequest(http.MethodPost, d.url(path), nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(&seen, "== POST %s %d\n%s\n", path, resp.StatusCode, b)
	}
	post("/api/v1/sources/acme/poll")
	post("/api/v1/sources/hooked/poll")
	time.Sleep(3 * time.Second) // delivery attempts fail and are logged
	for _, p := range []string{"/api/v1/sources", "/api/v1/incidents", "/api/v1/incidents/acme/inc1", "/api/v1/incidents/acme/inc1/versions",
		"/api/v1/outbox", "/metrics", "/healthz", "/", "/sources/acme", "/incidents/acme/inc1", "/incidents/acme/inc1/changes/1", "/feed.atom", "/search?q=API"} {
		get(p)
	}
	for _, args := range [][]string{{"outbox", "list"}, {"incidents"}, {"check", "-slack"}, {"check", "-receivers"}, {"poll", "-source", "hooked"}} {
		r := testbin.Run(t, env, args...)
		fmt.Fprintf(&seen, "== watcher %v (exit %d)\n%s%s\n", args, r.Code, r.Stdout, r.Stderr)
	}
	d.stop(t)
	fmt.Fprintf(&seen, "== daemon log\n%s\n", d.log())

	all := seen.String()
	if !strings.Contains(all, "webhook hooks: HTTP 500") {
		t.Errorf("the receiver's failure was never reported, so this test saw no receiver error to check")
	}
	if !strings.Contains(all, "token_revoked") {
		t.Errorf("the revoked token was never reported, so this test saw no Slack error to check")
	}
	for name, secret := range map[string]string{"slack token": token, "webhook path": hookSec, "web bearer token": bearer, "vendor header": header, "vendor header value": "SECRET-vendor-header-5555",
		"receiver URL": recvQuery, "receiver signing key": recvKey, "receiver header": recvHeader} {
		if i := strings.Index(all, secret); i >= 0 {
			lo, hi := max(0, i-200), min(len(all), i+len(secret)+100)
			t.Errorf("the %s leaked:\n…%s…", name, all[lo:hi])
		}
	}
}
