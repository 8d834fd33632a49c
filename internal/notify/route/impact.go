package route

import (
	"slices"

	"github.com/statuswatch/statuswatch/internal/model"
)

// LeastImpact is the least impact among the routes that send to receiver: the lowest
// min_impact of those routes, "" (every impact) when one of them has none. A PagerDuty
// receiver triggers at it: routing already passes only incidents that reached a route's
// min_impact in some version (so that their resolve still arrives); this bar keeps a
// later rise that stays below every route's min_impact (none → minor under min_impact:
// major) from triggering again.
func (t Table) LeastImpact(receiver string) model.Impact {
	var least model.Impact
	named := false
	for i := range t {
		rt := &t[i]
		if !slices.Contains(rt.Receivers, receiver) {
			continue
		}
		if rt.Match.MinImpact == "" {
			return ""
		}
		if !named || least.Worse(rt.Match.MinImpact) {
			least = rt.Match.MinImpact
		}
		named = true
	}
	return least
}
