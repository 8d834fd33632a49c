package config

import (
	"strings"
	"testing"
	"time"
)

// TestRetentionBounds: retention.raw_snapshots takes 0 up to 100 years and refuses more,
// with a line that says how to keep raw snapshots forever.
func TestRetentionBounds(t *testing.T) {
	tests := []struct {
		raw     string
		want    time.Duration
		wantErr string
	}{
		{"0", 0, ""},
		{"1d", 24 * time.Hour, ""},
		{"36500d", MaxRawSnapshots, ""},
		{"36501d", 0, "retention.raw_snapshots (line 2): must be at most 36500d (100 years), found 36501d (0 keeps raw snapshots forever)"},
		{"100000d", 0, "must be at most 36500d"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			cfg, err := Parse([]byte("retention:\n  raw_snapshots: "+tt.raw+"\n"+src), "config.yaml")
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("got %v, want an error containing %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.wantErr == "" && cfg.Retention.RawSnapshots != tt.want:
				t.Errorf("got %s, want %s", cfg.Retention.RawSnapshots, tt.want)
			}
		})
	}
}
