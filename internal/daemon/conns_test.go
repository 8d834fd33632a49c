package daemon

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/config"
)

// The client keeps idle connections as long as the longest schedule waits between polls
// (plus a margin), and sizes its TLS session cache to the hosts polled.
func TestClientOptionsFromSchedules(t *testing.T) {
	cfg, err := config.Parse([]byte(`listen: ""
http:
  concurrency: 8
sources:
  - name: a
    url: https://a.example.com
    kind: statuspage
    schedule: "@every 1m"
  - name: b
    url: https://b.example.com
    kind: statuspage
    schedule: "*/5 * * * *"
  - name: b2
    url: https://b.example.com/other
    kind: statuspage
  - name: c
    url: https://c.example.com
    kind: statuspage
    schedule: "0 * * * *"
    paused: true
`), filepath.Join(t.TempDir(), "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o := ClientOptions(cfg)
	if want := 5*time.Minute + idleMargin; o.IdleTimeout != want {
		t.Errorf("idle timeout %v, want %v (the longest unpaused interval plus the margin)", o.IdleTimeout, want)
	}
	if o.Sessions != 3 || o.MaxIdle != 16 {
		t.Errorf("%d sessions, %d idle connections; want 3 (one per host) and 16 (2 × concurrency)", o.Sessions, o.MaxIdle)
	}
}
