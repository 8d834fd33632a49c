package route

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestLeastImpact checks the bar a PagerDuty receiver triggers at: the lowest
// min_impact of the routes that send to it, none when one of them has none.
func TestLeastImpact(t *testing.T) {
	to := func(min model.Impact, names ...string) Route {
		return Route{Match: Match{MinImpact: min}, Receivers: names}
	}
	tests := []struct {
		routes Table
		want   model.Impact
	}{
		{nil, ""},
		{Table{to(model.ImpactMajor, "pd")}, model.ImpactMajor},
		{Table{to(model.ImpactCritical, "pd"), to(model.ImpactMinor, "slack", "pd"), to(model.ImpactNone, "other")}, model.ImpactMinor},
		{Table{to(model.ImpactCritical, "pd"), to("", "pd")}, ""},
		{Table{to("", "other"), to(model.ImpactMajor, "pd")}, model.ImpactMajor},
	}
	for i, tc := range tests {
		if got := tc.routes.LeastImpact("pd"); got != tc.want {
			t.Errorf("%d: got %q, want %q", i, got, tc.want)
		}
	}
}
