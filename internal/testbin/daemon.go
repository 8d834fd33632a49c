package testbin

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Daemon is a running `watcher run`, started by StartDaemon.
type Daemon struct {
	Cmd  *exec.Cmd
	Addr string // host:port of its API, from its "watcher running" log line
	mu   sync.Mutex
	logs strings.Builder
	done chan struct{}
}

var listenRE = regexp.MustCompile(`msg="watcher running".* listen=(\S+)`)

// StartDaemon runs `bin run args…` with env added to the environment (after the Slack
// token, STATE_DIRECTORY and WATCHER_CONFIG are emptied) and waits, up to 20 s, until it
// serves its API. The test's cleanup kills it.
func StartDaemon(tb testing.TB, bin string, env []string, args ...string) *Daemon {
	tb.Helper()
	cmd := exec.Command(bin, append([]string{"run"}, args...)...)
	cmd.Env = append(append(os.Environ(), "SLACK_BOT_TOKEN=", "STATE_DIRECTORY=", "WATCHER_CONFIG="), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	d := &Daemon{Cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			d.mu.Lock()
			d.logs.WriteString(line + "\n")
			d.mu.Unlock()
			if m := listenRE.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		cmd.Wait()
		close(d.done)
	}()
	tb.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		<-d.done
	})
	select {
	case d.Addr = <-addr:
	case <-d.done:
		tb.Fatalf("daemon exited early:\n%s", d.Log())
	case <-time.After(20 * time.Second):
		tb.Fatalf("daemon did not start within 20s:\n%s", d.Log())
	}
	return d
}

// FreeAddr is a loopback address nobody listens on right now: a fixed listen for a daemon
// that other processes must reach (the CLI reads through its API only at a fixed port).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Log is everything the daemon logged so far.
func (d *Daemon) Log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.logs.String()
}

// URL is the address of path on the daemon's API.
func (d *Daemon) URL(path string) string { return "http://" + d.Addr + path }

// PollNow asks the daemon, through its API, to poll source now; it returns the status
// code and the decoded answer.
func (d *Daemon) PollNow(tb testing.TB, source string) (int, map[string]any) {
	tb.Helper()
	resp, err := http.Post(d.URL("/api/v1/sources/"+source+"/poll"), "application/json", nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// Done is closed once the process has exited.
func (d *Daemon) Done() <-chan struct{} { return d.done }

// Stop sends SIGTERM and waits up to 30 s for the daemon to exit; it returns the exit
// code.
func (d *Daemon) Stop(tb testing.TB) int {
	tb.Helper()
	d.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
		return d.Cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		tb.Fatalf("daemon did not stop within 30s of SIGTERM")
		return -1
	}
}
