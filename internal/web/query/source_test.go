package query

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestMatches(t *testing.T) {
	inc := &model.Incident{Title: "Database latency", Updates: []model.Update{{Body: "Replica lag"}},
		Postmortem: &model.Postmortem{Body: "A bad config"}}
	tests := []struct {
		words []string
		want  bool
	}{
		{[]string{"data"}, true}, // inside a longer word
		{[]string{"latency", "replica", "config"}, true},
		{[]string{"latency", "missing"}, false},
		{nil, true},
	}
	for _, tt := range tests {
		if got := Matches(inc, tt.words); got != tt.want {
			t.Errorf("Matches(%q): got %v, want %v", tt.words, got, tt.want)
		}
	}
}
