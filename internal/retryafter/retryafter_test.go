package retryafter

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"-3":                            0,
		"0":                             0,
		" 30 ":                          30 * time.Second,
		"Wed, 01 Jul 2026 11:59:00 GMT": 0,
		"99999999":                      6 * time.Hour,
		"Wed, 01 Jul 2026 12:00:30 GMT": 30 * time.Second,
		"Thu, 01 Jul 2027 12:00:00 GMT": 6 * time.Hour,
		"soon":                          0,
	} {
		if got := Parse(v, now); got != want {
			t.Errorf("Parse(%q): got %s, want %s", v, got, want)
		}
	}
}
