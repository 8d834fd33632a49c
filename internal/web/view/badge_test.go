package view

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestStateOf(t *testing.T) {
	tests := []struct {
		name                          string
		down, paused, retired, polled bool
		worst                         model.Impact
		incident, maintenance         bool
		want                          string
	}{
		{"operational", false, false, false, true, "", false, false, "Operational"},
		{"not polled", false, false, false, false, "", false, false, "Not polled yet"},
		{"paused", false, true, false, true, "", false, false, "Paused"},
		{"down beats an incident", true, false, false, true, model.ImpactCritical, true, false, "Cannot be read"},
		{"critical", false, false, false, true, model.ImpactCritical, true, false, "Critical incident"},
		{"unknown impact", false, false, false, true, model.ImpactUnknown, true, false, "Incident"},
		{"incident beats maintenance", false, false, false, true, model.ImpactMinor, true, true, "Minor incident"},
		{"maintenance", false, false, false, true, "", false, true, "Maintenance"},
		{"retired", true, false, true, true, "", false, false, "Retired"},
	}
	for _, tt := range tests {
		got := StateOf(tt.down, tt.paused, tt.retired, tt.polled, tt.worst, tt.incident, tt.maintenance)
		if got.Label != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got.Label, tt.want)
		}
	}
}
