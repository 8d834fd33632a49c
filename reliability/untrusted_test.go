package reliability

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// TestUntrustedTextIntoEverySink serves an incident whose every field is hostile —
// mrkdwn mentions and links, HTML and script, an oversized body, invalid UTF-8 and
// terminal control characters — and checks what Slack, the console, the UI, the Atom feed
// and the API make of it.
func TestUntrustedTextIntoEverySink(t *testing.T) {
	attack := `<!channel> <!here> <@U123> <https://evil.example|click me> & <script>alert(1)</script><img src=x onerror=alert(2)> ` + "\x1b[31mred\x1b[0m \xff\xfe bad-utf8"
	huge := strings.Repeat("overflow ", 60000) // ~540 KB
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	body := fmt.Sprintf(`{"page":{"id":"fkpg0acme001","name":"Acme"},"incidents":[{"id":"evil1","name":%s,"status":"investigating","impact":"major",
"created_at":"2026-11-02T14:00:00Z","updated_at":"2026-11-02T14:00:00Z","started_at":"2026-11-02T14:00:00Z","shortlink":"javascript:alert(3)",
"components":[{"id":"c1","name":%s}],
"incident_updates":[{"id":"u1","status":"investigating","body":%s,"created_at":"2026-11-02T14:00:00Z","updated_at":"2026-11-02T14:00:00Z","display_at":"2026-11-02T14:00:00Z"},
{"id":"u2","status":"investigating","body":%s,"created_at":"2026-11-02T14:05:00Z","updated_at":"2026-11-02T14:05:00Z","display_at":"2026-11-02T14:05:00Z"}]}]}`,
		q(attack), q(attack), q(attack), q(huge))
	// json.Marshal replaced the invalid bytes; put them back raw, as a careless vendor would
	// send them. (Control characters stay escaped as \u001b: raw, they are not JSON.)
	body = strings.ReplaceAll(body, "\ufffd\ufffd bad-utf8", "\xff\xfe bad-utf8")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v2/incidents.json":
			io.WriteString(w, body)
		case "/api/v2/summary.json":
			io.WriteString(w, `{"page":{"id":"fkpg0acme001","name":"Acme"},"components":[],"incidents":[],"scheduled_maintenances":[],"status":{"indicator":"major","description":"x"}}`)
		case "/api/v2/scheduled-maintenances.json":
			io.WriteString(w, `{"page":{"id":"fkpg0acme001","name":"Acme"},"scheduled_maintenances":[]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	slack := fakeslack.New(fakeslack.Options{Token: "xoxb-test"})
	defer slack.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("database: %s\nlisten: %s\nbase_url: https://watch.example.com\nslack:\n  token: xoxb-test\n  channel: \"#status\"\n  api_url: %s\nsources:\n  - name: acme\n    url: %s\n    kind: statuspage\n    schedule: \"@every 1h\"\n",
		filepath.Join(dir, "watcher.db"), testbin.FreeAddr(t), slack.APIURL(), srv.URL)), 0o600)
	d := startDaemon(t, []string{"WATCHER_CONFIG=" + cfg})
	if code, res := d.poll(t, "acme"); code != 200 {
		t.Fatalf("poll: %d %v\n%s", code, res, d.log())
	}

	// Slack: delivered within its limits, nothing live.
	deadline := time.Now().Add(30 * time.Second)
	var posted []fakeslack.Call
	for time.Now().Before(deadline) && len(posted) == 0 {
		for _, c := range slack.Calls() {
			if c.Method == "chat.postMessage" && c.OK() {
				posted = append(posted, c)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(posted) == 0 {
		t.Fatalf("nothing reached Slack; calls: %+v\n%s", slack.Calls(), d.log())
	}
	for _, c := range posted {
		payload := c.Text + string(c.Blocks)
		for _, live := range []string{"<!channel>", "<!here>", "<@U123>", "<https://evil.example|", "<script>", "\x1b"} {
			if strings.Contains(payload, live) {
				t.Errorf("Slack got %q live", live)
			}
		}
		if len(c.Text) > 4000 || len(c.Blocks) > 13000 {
			t.Errorf("Slack payload over its limits: text %d, blocks %d bytes", len(c.Text), len(c.Blocks))
		}
	}

	// UI, Atom and API: served, escaped.
	for _, path := range []string{"/", "/incidents/acme/evil1", "/incidents/acme/evil1/changes/1", "/feed.atom", "/api/v1/incidents/acme/evil1", "/search?q=overflow"} {
		resp, err := http.Get(d.url(path))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
			continue
		}
		page := string(b)
		for _, live := range []string{"<script>alert", "<img", `href="javascript:`, "\x1b", "\xff"} {
			if strings.Contains(page, live) {
				t.Errorf("GET %s: %q came out live", path, live)
			}
		}
	}
	d.stop(t)
}
