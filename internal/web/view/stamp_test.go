package view

import (
	"testing"
	"time"
)

func TestRelative(t *testing.T) {
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{0, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1m ago"},
		{59 * time.Minute, "59m ago"},
		{time.Hour, "1h ago"},
		{47 * time.Hour, "47h ago"},
		{48 * time.Hour, "2d ago"},
		{59 * day, "59d ago"},
		{60 * day, "2mo ago"},
		{800 * day, "2y ago"},
		{-3 * time.Hour, "in 3h"},
		{-36 * time.Hour, "in 36h"},
		{-5 * day, "in 5d"},
	}
	for _, tt := range tests {
		if got := relative(now.Add(-tt.ago), now); got != tt.want {
			t.Errorf("%v ago: got %q, want %q", tt.ago, got, tt.want)
		}
	}
}
