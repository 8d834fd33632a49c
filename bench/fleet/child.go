package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// usage is what one child process cost: CPU is user+sys over its whole life (every
// thread, from rusage), Wall from start to exit, MaxRSS its peak resident set (VmHWM).
type usage struct {
	CPU    time.Duration
	Wall   time.Duration
	MaxRSS int64 // bytes
}

// child is one command to run: its output goes to files in dir, named after name.
type child struct {
	name string // for file names and errors
	dir  string
	path string
	args []string
	env  []string // added to the environment
}

// run runs the command to its end and returns its cost. Any exit status but 0 is an error
// quoting the tail of its standard error.
//
// Peak RSS is sampled from /proc/<pid>/status (VmHWM) while the child runs, not taken from
// rusage: Go starts children with vfork, and Linux then folds the parent's own peak RSS
// into the child's ru_maxrss at exec, so every child would report this benchmark's RSS
// (hundreds of MB with 1,000 pages in memory).
func (c child) run(ctx context.Context) (usage, error) {
	cmd, stderrPath, err := c.command(ctx)
	if err != nil {
		return usage{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		closeFiles(cmd)
		return usage{}, fmt.Errorf("%s: %w", c.name, err)
	}
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() { peak <- sampleHWM(cmd.Process.Pid, done) }()
	err = cmd.Wait()
	wall := time.Since(start)
	close(done)
	closeFiles(cmd)
	u := rusage(cmd.ProcessState)
	u.Wall = wall
	u.MaxRSS = <-peak
	if err != nil {
		return u, fmt.Errorf("%s: %w%s", c.name, err, tail(stderrPath))
	}
	return u, nil
}

// sampleHWM reads pid's VmHWM every few milliseconds until done and returns the largest
// value read. VmHWM only grows, so only growth in the last interval before exit is missed.
func sampleHWM(pid int, done <-chan struct{}) int64 {
	var peak int64
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		if v, err := procHWM(pid); err == nil {
			peak = max(peak, v)
		}
		select {
		case <-done:
			return peak
		case <-t.C:
		}
	}
}

// command builds the exec.Cmd with standard output and error sent to files.
func (c child) command(ctx context.Context) (*exec.Cmd, string, error) {
	cmd := exec.CommandContext(ctx, c.path, c.args...)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Dir = c.dir
	out, err := os.Create(filepath.Join(c.dir, c.name+".stdout"))
	if err != nil {
		return nil, "", err
	}
	errPath := filepath.Join(c.dir, c.name+".stderr")
	errf, err := os.Create(errPath)
	if err != nil {
		out.Close()
		return nil, "", err
	}
	cmd.Stdout, cmd.Stderr = out, errf
	cmd.WaitDelay = 5 * time.Second
	return cmd, errPath, nil
}

func closeFiles(cmd *exec.Cmd) {
	for _, w := range []any{cmd.Stdout, cmd.Stderr} {
		if f, ok := w.(*os.File); ok {
			f.Close()
		}
	}
}

// rusage reads the CPU (user+sys, every thread) of an exited process from its rusage.
func rusage(ps *os.ProcessState) usage {
	if ps == nil {
		return usage{}
	}
	var u usage
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		u.CPU = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	} else {
		u.CPU = ps.UserTime() + ps.SystemTime()
	}
	return u
}

// tail is the last lines of a log file, for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	b = bytes.TrimSpace(b)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return "\n  " + strings.Join(lines, "\n  ")
}

// procHWM reads VmHWM, the peak resident set so far, from /proc/<pid>/status.
func procHWM(pid int) (int64, error) {
	m, err := procStatus(pid)
	if err != nil {
		return 0, err
	}
	v, ok := m["VmHWM"]
	if !ok {
		return 0, errors.New("no VmHWM in /proc status")
	}
	return v, nil
}

// procStatus reads the kB fields of /proc/<pid>/status (VmHWM, VmRSS, RssAnon, RssFile,
// …), in bytes.
func procStatus(pid int) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(rest)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			m[k] = kb * 1024
		}
	}
	return m, nil
}

// procCPU reads the user+sys CPU a live process has used so far, from /proc/<pid>/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; the fields after its ')' are fixed.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("bad /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	st, err2 := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	const clkTck = 100 // USER_HZ: 100 on every Linux architecture Go supports
	return time.Duration(ut+st) * time.Second / clkTck, nil
}
