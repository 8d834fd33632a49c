package recent

import (
	"testing"
	"time"
)

func TestSummaryOf(t *testing.T) {
	first := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		n         int
		at        time.Time
		summary   string
		firstPoll time.Time
		want      string
	}{
		{"of the first poll", 1, first, "New incident: resolved, minor impact.", first, "Archived on first sight: resolved, minor impact."},
		{"maintenance of the first poll", 1, first, "New maintenance: scheduled.", first, "Archived on first sight: scheduled."},
		{"a later poll", 1, first.Add(time.Minute), "New incident: open.", first, "New incident: open."},
		{"a later version", 2, first, "Resolved.", first, "Resolved."},
		{"first poll unknown", 1, first, "New incident: open.", time.Time{}, "New incident: open."},
	}
	for _, tt := range tests {
		if got := SummaryOf(tt.n, tt.at, tt.summary, tt.firstPoll); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
