package reliability

import (
	"encoding/json"
	"flag"
	"net/http"
	"testing"

	"github.com/statuswatch/statuswatch/internal/testbin"
)

// long runs the suites for longer before a release: `go test ./reliability/ -long`
// multiplies the crash loops' rounds.
var long = flag.Bool("long", false, "run the reliability suites for longer")

// daemon is a running `watcher run` under test (internal/testbin).
type daemon struct{ *testbin.Daemon }

// startDaemon runs `watcher run` with env and waits until it serves.
func startDaemon(t *testing.T, env []string) *daemon {
	t.Helper()
	return &daemon{testbin.StartDaemon(t, testbin.Build(t), env)}
}

func (d *daemon) log() string { return d.Log() }

func (d *daemon) url(path string) string { return d.URL(path) }

// poll asks the daemon to poll a source; it returns the status code and the answer.
func (d *daemon) poll(t *testing.T, source string) (int, map[string]any) {
	t.Helper()
	return d.PollNow(t, source)
}

// get fetches path and decodes its JSON answer into v (when not nil).
func (d *daemon) get(t *testing.T, path string, v any) int {
	t.Helper()
	resp, err := http.Get(d.url(path))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil {
		json.NewDecoder(resp.Body).Decode(v)
	}
	return resp.StatusCode
}

// stop sends SIGTERM and waits for the daemon to exit.
func (d *daemon) stop(t *testing.T) {
	t.Helper()
	d.Stop(t)
}
