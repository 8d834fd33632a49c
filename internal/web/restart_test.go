package web

import (
	"strings"
	"testing"
	"time"
)

// A last successful poll saved before the daemon restarted is shown as such, on the
// dashboard and the source page, until the new process polls.
func TestLastSuccessBeforeRestartIsSaidSo(t *testing.T) {
	for _, c := range []struct {
		name   string
		before bool
		want   bool
	}{
		{"polled by this process", false, false},
		{"saved before the restart", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.daemon.SourcesFn = func() []SourceStatus {
				return []SourceStatus{{Name: "acme", Title: "Acme", URL: "https://status.acme.test", Kind: "statuspage",
					LastPollAt: now.Add(-3 * time.Hour), LastSuccessAt: now.Add(-3 * time.Hour), LastSuccessBeforeRestart: c.before}}
			}
			for _, path := range []string{"/", "/sources/acme"} {
				body := string(e.htmlGet(path, 200).body)
				if got := strings.Contains(body, "(3h ago, before restart)"); got != c.want {
					t.Errorf("GET %s: says \"(3h ago, before restart)\": got %v, want %v", path, got, c.want)
				}
			}
		})
	}
}
