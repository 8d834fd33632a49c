// Package testbin builds the watcher binary once per test binary and runs it as a user
// would, for the end-to-end and reliability suites.
package testbin

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Build compiles ./cmd/watcher (a normal build, not -race, so memory figures are real) once
// and returns the binary's path. The binary lives until the test process exits.
func Build(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "watcher-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "watcher")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/watcher")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return binPath
}

// Result is one finished run of the binary.
type Result struct {
	Stdout, Stderr string
	Code           int
	// MaxRSS is the peak resident set size of the run, in bytes.
	MaxRSS int64
	// CPU is user + system time.
	CPU time.Duration
}

// Run runs the binary with args and the extra environment, and waits for it.
func Run(tb testing.TB, env []string, args ...string) Result {
	tb.Helper()
	cmd := exec.Command(Build(tb), args...)
	cmd.Env = append(append(os.Environ(), "SLACK_BOT_TOKEN=", "STATE_DIRECTORY=", "WATCHER_CONFIG="), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		tb.Fatalf("run watcher %v: %v", args, err)
	}
	r := Result{Stdout: out.String(), Stderr: errb.String(), Code: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = ru.Maxrss * 1024 // Linux reports kilobytes
		r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return r
}

// Must runs the binary and fails the test unless it exits with want.
func Must(tb testing.TB, want int, env []string, args ...string) Result {
	tb.Helper()
	r := Run(tb, env, args...)
	if r.Code != want {
		tb.Fatalf("watcher %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, want, r.Stdout, r.Stderr)
	}
	return r
}
