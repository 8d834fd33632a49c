package model

import "testing"

func TestImpactWorse(t *testing.T) {
	tests := []struct {
		i, j Impact
		want bool
	}{
		{ImpactMinor, ImpactNone, true},
		{ImpactCritical, ImpactMajor, true},
		{ImpactMajor, ImpactMajor, false},
		{ImpactNone, ImpactMinor, false},
		{ImpactNone, ImpactUnknown, true},
		{ImpactNone, ImpactMaintenance, true},
		{ImpactUnknown, ImpactNone, false},
		{ImpactMaintenance, ImpactUnknown, false},
	}
	for _, tt := range tests {
		if got := tt.i.Worse(tt.j); got != tt.want {
			t.Errorf("%q.Worse(%q) = %v, want %v", tt.i, tt.j, got, tt.want)
		}
	}
}
