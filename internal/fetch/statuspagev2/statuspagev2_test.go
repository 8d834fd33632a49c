package statuspagev2

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestStatuspageNormaliseMaps(t *testing.T) {
	for _, tc := range []struct {
		raw      string
		kind     model.Kind
		resolved bool
		want     model.Status
	}{
		{"investigating", model.KindIncident, false, model.StatusInvestigating},
		{"identified", model.KindIncident, false, model.StatusIdentified},
		{"monitoring", model.KindIncident, false, model.StatusMonitoring},
		{"resolved", model.KindIncident, true, model.StatusResolved},
		{"postmortem", model.KindIncident, true, model.StatusPostmortem},
		{"scheduled", model.KindMaintenance, false, model.StatusScheduled},
		{"in_progress", model.KindMaintenance, false, model.StatusInProgress},
		{"In Progress", model.KindMaintenance, false, model.StatusInProgress},
		{"verifying", model.KindMaintenance, false, model.StatusVerifying},
		{"completed", model.KindMaintenance, true, model.StatusCompleted},
		{"Resolved", model.KindIncident, true, model.StatusResolved},
		{"mystery", model.KindIncident, false, model.StatusInvestigating},
		{"mystery", model.KindIncident, true, model.StatusResolved},
		{"", model.KindMaintenance, false, model.StatusScheduled},
		{"mystery", model.KindMaintenance, true, model.StatusCompleted},
	} {
		if got := spStatus(tc.raw, tc.kind, tc.resolved); got != tc.want {
			t.Errorf("spStatus(%q, %s, %v): got %s, want %s", tc.raw, tc.kind, tc.resolved, got, tc.want)
		}
	}
	for _, tc := range []struct {
		raw  string
		kind model.Kind
		want model.Impact
	}{
		{"none", model.KindIncident, model.ImpactNone},
		{"minor", model.KindIncident, model.ImpactMinor},
		{"major", model.KindIncident, model.ImpactMajor},
		{"critical", model.KindIncident, model.ImpactCritical},
		{"CRITICAL", model.KindIncident, model.ImpactCritical},
		{"maintenance", model.KindIncident, model.ImpactMaintenance},
		{"none", model.KindMaintenance, model.ImpactMaintenance},
		{"catastrophic", model.KindIncident, model.ImpactUnknown},
		{"", model.KindIncident, model.ImpactUnknown},
	} {
		if got := spImpact(tc.raw, tc.kind); got != tc.want {
			t.Errorf("spImpact(%q, %s): got %s, want %s", tc.raw, tc.kind, got, tc.want)
		}
	}
}
