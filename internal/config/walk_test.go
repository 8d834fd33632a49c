package config

import "testing"

// TestNearest: the suggestion for an unknown key or endpoint name is the closest known
// word within two edits, the first in order among equally close ones.
func TestNearest(t *testing.T) {
	for _, tt := range []struct {
		word  string
		known []string
		want  string
	}{
		{"timout", []string{"schedule", "timeout"}, "timeout"},
		{"TIMEOUT", []string{"timeout"}, "timeout"},
		{"ab", []string{"aa", "ac"}, "aa"}, // a tie: the first
		{"ab", []string{"ac", "aa"}, "ac"},
		{"incidnets", []string{"incident", "incidents"}, "incidents"},
		{"nothing-like-it", []string{"feed"}, ""},
		{"x", nil, ""},
	} {
		if got := nearest(tt.word, tt.known); got != tt.want {
			t.Errorf("nearest(%q, %q): got %q, want %q", tt.word, tt.known, got, tt.want)
		}
	}
}
