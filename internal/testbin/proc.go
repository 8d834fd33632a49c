package testbin

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// ProcStatus is a field of /proc/PID/status in bytes ("RssFile", "VmHWM"); the test is
// skipped where the kernel does not report it.
func ProcStatus(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	n, err := ReadProcStatus(pid, field)
	if err != nil {
		tb.Skip(err)
	}
	return n
}

// ReadProcStatus is a field of /proc/PID/status in bytes, for a test that fails rather
// than skips without it.
func ReadProcStatus(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %q: %w", field, line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
