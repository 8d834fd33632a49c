package reliability

import (
	"bufio"
	"encoding/json"
	"flag"
	"io"
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

	"github.com/statuswatch/statuswatch/internal/testbin"
)

// long runs the suites for longer before a release: `go test ./reliability/ -long`
// multiplies the crash loops' rounds.
var long = flag.Bool("long", false, "run the reliability suites for longer")

// daemon is a running `watcher run` under test.
type daemon struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	logs strings.Builder
	out  strings.Builder
	done chan struct{}
}

var listenRE = regexp.MustCompile(`msg="watcher running".* listen=(\S+)`)

// startDaemon runs `watcher run` with env and waits until it serves.
func startDaemon(t *testing.T, env []string) *daemon {
	t.Helper()
	cmd := exec.Command(testbin.Build(t), "run")
	cmd.Env = append(append(os.Environ(), "SLACK_BOT_TOKEN=", "STATE_DIRECTORY="), env...)
	stderr, _ := cmd.StderrPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, done: make(chan struct{})}
	addrCh := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stdout)
		d.mu.Lock()
		d.out.Write(b)
		d.mu.Unlock()
	}()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			d.mu.Lock()
			d.logs.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				addrCh <- m[1]
			}
		}
		cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		<-d.done
	})
	select {
	case d.addr = <-addrCh:
	case <-d.done:
		t.Fatalf("daemon exited early:\n%s", d.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("daemon did not start:\n%s", d.log())
	}
	return d
}

func (d *daemon) log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.logs.String()
}

func (d *daemon) url(path string) string { return "http://" + d.addr + path }

// poll asks the daemon to poll a source; it returns the status code and the answer.
func (d *daemon) poll(t *testing.T, source string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(d.url("/api/v1/sources/"+source+"/poll"), "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
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

// stop sends SIGTERM and waits for a clean exit.
func (d *daemon) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("daemon did not stop within 30s")
	}
}

// freeAddr is a loopback address nobody listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
