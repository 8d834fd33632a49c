package main

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"syscall"
	"testing"

	"github.com/statuswatch/statuswatch/internal/config"
)

// The soft open-file limit is raised to the hard one; where that is refused (the systemd
// unit filters setrlimit) the limit stays, and a limit too low for the config is logged.
func TestRaiseFileLimit(t *testing.T) {
	saved := rlimitCalls
	t.Cleanup(func() { rlimitCalls = saved })
	cfg := &config.Config{HTTP: config.HTTP{Concurrency: 32}, Sources: make([]config.Source, 5000)}
	for _, tc := range []struct {
		name      string
		cur, max  uint64
		setErr    error
		want      uint64
		wantWarn  bool
		wantRaise bool
	}{
		{name: "raised", cur: 1024, max: 65536, want: 65536, wantRaise: true},
		{name: "already at the hard limit", cur: 65536, max: 65536, want: 65536},
		{name: "refused, too low", cur: 1024, max: 65536, setErr: syscall.EPERM, want: 1024, wantWarn: true, wantRaise: true},
		{name: "hard limit too low", cur: 512, max: 1024, want: 1024, wantWarn: true, wantRaise: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raised := false
			rlimitCalls.get = func(r *syscall.Rlimit) error { r.Cur, r.Max = tc.cur, tc.max; return nil }
			rlimitCalls.set = func(r *syscall.Rlimit) error {
				raised = true
				if r.Cur != tc.max || r.Max != tc.max {
					return errors.New("not to the hard limit")
				}
				return tc.setErr
			}
			var log bytes.Buffer
			got := raiseFileLimit(slog.New(slog.NewTextHandler(&log, nil)), cfg)
			if got != tc.want || raised != tc.wantRaise {
				t.Errorf("limit %d (raise asked: %v), want %d (%v)", got, raised, tc.want, tc.wantRaise)
			}
			if warned := strings.Contains(log.String(), "open-file limit is low"); warned != tc.wantWarn {
				t.Errorf("warned %v, want %v: %s", warned, tc.wantWarn, log.String())
			}
		})
	}
}
