package reliability

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/testbin"
)

// TestSIGHUPRotatesTheTokenAndRefusesANewListen: a SIGHUP with a new bearer token makes
// the old one fail from the next request on; one with a new listen address is refused,
// with its reason on one "reload refused" line, and the running config stays whole.
func TestSIGHUPRotatesTheTokenAndRefusesANewListen(t *testing.T) {
	dir := t.TempDir()
	listen := testbin.FreeAddr(t)
	path := filepath.Join(dir, "config.yaml")
	write := func(token, listen string) {
		t.Helper()
		cfg := fmt.Sprintf("database: %s\nlisten: %s\nweb:\n  auth:\n    bearer_token: %s\nsources:\n  - name: acme\n    url: http://127.0.0.1:1/\n    kind: statuspage\n    schedule: \"@every 1h\"\n",
			filepath.Join(dir, "watcher.db"), listen, token)
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("old-token", listen)
	d := startDaemon(t, []string{"WATCHER_CONFIG=" + path})
	status := func(token string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", d.url("/api/v1/sources"), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// hup sends SIGHUP and waits for the log line it must produce.
	hup := func(want string) {
		t.Helper()
		before := strings.Count(d.log(), want)
		d.Cmd.Process.Signal(syscall.SIGHUP)
		waitUntil(t, 10*time.Second, fmt.Sprintf("%q in the log", want), func() bool { return strings.Count(d.log(), want) > before }, d.log)
	}
	steps := []struct {
		name, token, listen, wantLog string
		want                         map[string]int
	}{
		{"start", "", "", "", map[string]int{"old-token": 200, "new-token": 401}},
		{"token rotated", "new-token", listen, "config reloaded", map[string]int{"old-token": 401, "new-token": 200}},
		{"listen changed", "third-token", "127.0.0.1:1", "which needs a restart of the daemon", map[string]int{"new-token": 200, "third-token": 401}},
	}
	for _, s := range steps {
		if s.token != "" {
			write(s.token, s.listen)
			hup(s.wantLog)
		}
		for token, code := range s.want {
			if got := status(token); got != code {
				t.Errorf("%s: GET /api/v1/sources with %s: got %d, want %d", s.name, token, got, code)
			}
		}
	}
	for _, line := range strings.Split(d.log(), "\n") {
		if strings.Contains(line, "which needs a restart") && !strings.Contains(line, "reload refused") {
			t.Errorf("refusal not logged as one \"reload refused\" line: %s", line)
		}
	}
	d.stop(t)
}
