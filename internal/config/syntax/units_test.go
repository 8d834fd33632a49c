package syntax

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"20s", 20 * time.Second},
		{"1h30m", 90 * time.Minute},
		{"30d", 30 * 24 * time.Hour},
		{"1d12h", 36 * time.Hour},
		{"12h1d", 36 * time.Hour},
		{"1.5d", 36 * time.Hour},
		{"2d30m", 48*time.Hour + 30*time.Minute},
		{" 90d ", 90 * 24 * time.Hour},
		{"-1d", -24 * time.Hour},
		{"500ms", 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "d", "1", "1x", "1dd", "d1", ".d", "1e3d", "99999999999d", "1d-1h", "--1d", "1 d"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if got, err := ParseDuration(bad); err == nil {
				t.Errorf("got %v, want an error", got)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"1048576", 1 << 20},
		{"32MiB", 32 << 20},
		{"512KiB", 512 << 10},
		{"1GB", 1e9},
		{"1gib", 1 << 30},
		{"10 MB", 10e6},
		{"1.5KiB", 1536},
		{"100B", 100},
		{"2TiB", 2 << 40},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("got %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "MiB", "1XB", "-1", "1e6", "99999999999TiB", "1.2.3MB", "32 MiB extra"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if got, err := ParseSize(bad); err == nil {
				t.Errorf("got %d, want an error", got)
			}
		})
	}
}
