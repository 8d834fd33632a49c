package reliability

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// TestRedirectsIntoPrivateRanges: a public status page that redirects the poller at this
// host (the daemon's own API, any loopback service), the cloud metadata address or a
// private network is refused, on the built binary; a page on loopback redirecting within
// loopback is still followed.
//
// No traffic leaves loopback: the "public" sources live on documentation addresses
// (203.0.113.0/24) reached through an HTTP proxy on loopback that the daemon is pointed at
// with HTTP_PROXY. The proxy answers every request itself and records it, so a redirect
// to 169.254.169.254 or 10.0.0.5 that were followed would show up there, never on a
// network.
func TestRedirectsIntoPrivateRanges(t *testing.T) {
	var canaryHits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		canaryHits.Add(1)
		w.Write([]byte(`{"page":{"name":"Leaked"},"incidents":[]}`))
	}))
	defer canary.Close()

	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set([]fakepage.Incident{incident(t0, "inc1", "investigating")}, nil)
	pageSrv := httptest.NewServer(page)
	defer pageSrv.Close()

	addr := testbin.FreeAddr(t)
	// Where each public-looking source redirects to.
	targets := map[string]string{
		"203.0.113.10": canary.URL + "/api/v2/incidents.json",
		"203.0.113.11": "http://" + addr + "/api/v1/backup",
		"203.0.113.12": "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
		"203.0.113.13": "http://10.0.0.5/internal/api/v2/incidents.json",
		"203.0.113.14": "http://[::1]:9/api/v2/incidents.json",
	}
	var mu sync.Mutex
	var proxied []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		proxied = append(proxied, r.URL.Host)
		mu.Unlock()
		if to, ok := targets[r.URL.Hostname()]; ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		http.Error(w, "not for this proxy", http.StatusBadGateway)
	}))
	defer proxy.Close()

	// A loopback page redirecting within loopback: followed.
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, pageSrv.URL+r.URL.Path, http.StatusFound)
	}))
	defer local.Close()

	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nlisten: %s\nsources:\n", filepath.Join(dir, "watcher.db"), addr)
	names := map[string]string{
		"loop": "203.0.113.10", "self": "203.0.113.11", "metadata": "203.0.113.12", "private": "203.0.113.13", "loop6": "203.0.113.14",
	}
	for _, n := range []string{"loop", "self", "metadata", "private", "loop6"} {
		fmt.Fprintf(&b, "  - name: %s\n    url: http://%s/\n    kind: statuspage\n    schedule: \"@every 1h\"\n    maintenance: false\n", n, names[n])
	}
	fmt.Fprintf(&b, "  - name: local\n    url: %s\n    kind: statuspage\n    schedule: \"@every 1h\"\n    maintenance: false\n", local.URL)
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"WATCHER_CONFIG=" + cfg, "HTTP_PROXY=" + proxy.URL, "http_proxy=" + proxy.URL, "NO_PROXY=", "no_proxy="}
	d := startDaemon(t, env)

	for _, n := range []string{"loop", "self", "metadata", "private", "loop6"} {
		t.Run(n, func(t *testing.T) {
			code, body := d.poll(t, n)
			msg, _ := body["error"].(string)
			if code != http.StatusBadGateway || !strings.Contains(msg, "redirect to") || !strings.Contains(msg, "refused") {
				t.Errorf("poll %s (redirected to %s): got %d %v, want 502 with the redirect refused", n, targets[names[n]], code, body)
			}
		})
	}
	if n := canaryHits.Load(); n != 0 {
		t.Errorf("the loopback canary got %d requests, want 0", n)
	}
	mu.Lock()
	for _, h := range proxied {
		if !strings.HasPrefix(h, "203.0.113.") {
			t.Errorf("the proxy was asked for %s: a redirect into a private range was followed", h)
		}
	}
	mu.Unlock()

	code, body := d.poll(t, "local")
	if code != http.StatusOK {
		t.Errorf("poll local (loopback to loopback): got %d %v, want 200", code, body)
	}
	if strings.Contains(d.log(), "Leaked") {
		t.Errorf("the canary's answer reached the daemon")
	}
}
