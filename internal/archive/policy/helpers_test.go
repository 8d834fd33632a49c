package policy

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// t0 is the start of every test's timeline.
var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// inc builds an open minor incident started at t0, changed by the options.
func inc(id string, opts ...func(*model.Incident)) model.Incident {
	i := model.Incident{ID: id, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
		Title: "Elevated errors " + id, StartedAt: t0}
	for _, o := range opts {
		o(&i)
	}
	return i
}

func status(s model.Status) func(*model.Incident) {
	return func(i *model.Incident) { i.Status = s }
}

func impact(im model.Impact) func(*model.Incident) {
	return func(i *model.Incident) { i.Impact = im }
}

func maintenance(i *model.Incident) {
	i.Kind, i.Status, i.Impact = model.KindMaintenance, model.StatusScheduled, model.ImpactMaintenance
}

// minImpact is a Policy.Pass for a min_impact filter.
func minImpact(min model.Impact) func(*model.Incident) bool {
	return func(i *model.Incident) bool { return i.Impact.AtLeast(min) }
}
