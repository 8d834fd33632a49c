package e2e

// TestComponentListReload: a SIGHUP that changes a source's components list on the
// running binary. Watching API, then "Web UI" after a reload: a degradation of API is not
// told and one of Web UI is; then, after a reload without a list, API's getting worse is
// told in the thread Web UI opened. watcher_component_status follows each reload, before
// any poll.

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/testbin"
)

// reload rewrites the config with old replaced by new and sends SIGHUP, waiting for the
// daemon to say it reloaded.
func (w *compWorld) reload(old, new string) {
	w.t.Helper()
	if !strings.Contains(w.cfgText, old) {
		w.t.Fatalf("the config has no %q:\n%s", old, w.cfgText)
	}
	w.cfgText = strings.Replace(w.cfgText, old, new, 1)
	if err := os.WriteFile(w.cfg, []byte(w.cfgText), 0o600); err != nil {
		w.t.Fatal(err)
	}
	const done = `msg="config reloaded"`
	before := strings.Count(w.d.Log(), done)
	if err := w.d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		w.t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(w.d.Log(), done) == before {
		if time.Now().After(deadline) {
			w.t.Fatalf("no %s within 10s of SIGHUP:\n%s", done, w.d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestComponentListReload(t *testing.T) {
	testbin.Build(t)
	list := func(name string) string { return fmt.Sprintf("    components: [%q]\n", name) }
	w := newCompWorld(t, list("API"))
	w.wantGauge("watching API", map[string]string{"API": "0"})

	w.reload(list("API"), list("Web UI"))
	w.wantGauge("reloaded to watch Web UI", map[string]string{"Web UI": "0"})
	w.set(apiID, "degraded_performance")
	w.wantQuietPolls() // API is no longer watched: nothing told
	w.set(webID, "degraded_performance")
	c := w.calls(1)
	wantCall(t, "Web UI degraded", c[0], "chat.postMessage", "", "Acme: Web UI degraded — no incident posted")
	root := c[0].TS
	w.wantGauge("Web UI degraded", map[string]string{"Web UI": "2"})
	w.wantQuietPolls()

	w.reload(list("Web UI"), "")
	w.wantGauge("reloaded without a list", map[string]string{"API": "2", "Web UI": "2"})
	w.set(apiID, "major_outage")
	wantReplyAndEdit(t, "API worse, watched again", w.calls(2), root, "Acme · API: degraded → major outage",
		"Acme: API in major outage, Web UI degraded — no incident posted")
	w.wantGauge("API worse", map[string]string{"API": "4", "Web UI": "2"})
	w.wantQuietPolls()
	w.wantHistory("API operational→degraded", "Web UI operational→degraded", "API degraded→major_outage")
}
