package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCorrelation: correlation.window defaults to 30m and takes 0 up to 7d; depends_on
// names other configured sources, and a name that is none is an error on its line.
func TestCorrelation(t *testing.T) {
	const two = "sources:\n  - name: gcp\n    url: https://status.cloud.google.com\n  - name: twingate\n    url: https://status.twingate.com\n"
	tests := []struct {
		name, yaml string
		window     time.Duration
		deps       []string
		wantErr    string
	}{
		{"defaults", two, 30 * time.Minute, nil, ""},
		{"window", "correlation:\n  window: 1h\n" + two, time.Hour, nil, ""},
		{"window zero", "correlation:\n  window: 0\n" + two, 0, nil, ""},
		{"window too long", "correlation:\n  window: 8d\n" + two, 0, nil, "correlation.window (line 2): must be between 0 and 7d, found 8d"},
		{"unknown key", "correlation:\n  windows: 1h\n" + two, 0, nil, "correlation.windows"},
		{"depends_on", two + "    depends_on: [gcp]\n", 30 * time.Minute, []string{"gcp"}, ""},
		{"depends_on unknown", two + "    depends_on:\n      - gpc\n", 0, nil, `sources[1].depends_on[0] (line 7): no source named "gpc" (did you mean gcp?)`},
		{"depends_on itself", two + "    depends_on: [twingate]\n", 0, nil, "sources[1].depends_on[0] (line 6): a source cannot depend on itself"},
		{"depends_on empty name", two + "    depends_on: [\"\"]\n", 0, nil, "empty source name"},
		{"depends_on not a list", two + "    depends_on: gcp\n", 0, nil, "sources[1].depends_on (line 6): expected a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.yaml), "config.yaml")
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("got %v, want an error containing %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.wantErr == "" && cfg.Correlation.Window != tt.window:
				t.Errorf("window %s, want %s", cfg.Correlation.Window, tt.window)
			case tt.wantErr == "" && !slices.Equal(cfg.Sources[1].DependsOn, tt.deps):
				t.Errorf("depends_on %q, want %q", cfg.Sources[1].DependsOn, tt.deps)
			}
		})
	}
}

func TestCorrelateOptions(t *testing.T) {
	cfg, err := Parse([]byte("correlation:\n  window: 0\nsources:\n  - name: gcp\n    url: https://status.cloud.google.com\n  - name: twingate\n    url: https://status.twingate.com\n    depends_on: [gcp]\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.CorrelateOptions()
	if o.Window >= 0 {
		t.Errorf("window 0 gave %s, want negative (none) for correlate", o.Window)
	}
	if len(o.DependsOn) != 1 || !slices.Equal(o.DependsOn["twingate"], []string{"gcp"}) {
		t.Errorf("depends_on %v", o.DependsOn)
	}
}
