package diff

import (
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestSummary(t *testing.T) {
	maintenance := &model.Incident{
		Kind: model.KindMaintenance, Status: model.StatusScheduled, Impact: model.ImpactMaintenance,
		Title: "Database upgrade", ScheduledFor: ts("2025-03-10T02:00:00Z"),
		Updates: []model.Update{{ID: "m1", Status: model.StatusScheduled, Body: "We will upgrade the database."}},
	}
	tests := []struct {
		name          string
		before, after *model.Incident
		want          string
	}{
		{"no changes", fixture(), fixture(), "No changes."},
		{"new incident", nil, fixture(), "New incident: monitoring, major impact; 3 updates."},
		{"new maintenance", nil, maintenance, "New maintenance: scheduled; 1 update."},
		{"new incident, unknown impact, no updates", nil,
			&model.Incident{Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactUnknown},
			"New incident: investigating, unknown impact."},
		{"new incident, no impact", nil,
			&model.Incident{Kind: model.KindIncident, Status: model.StatusResolved, Impact: model.ImpactNone},
			"New incident: resolved, no impact."},
		{"new incident already with a postmortem", nil, edit(func(i *model.Incident) {
			i.Status = model.StatusPostmortem
			i.Postmortem = &model.Postmortem{Body: "Root cause."}
		}), "New incident: postmortem, major impact; 3 updates; postmortem published."},
		{"design doc example", fixture(), edit(func(i *model.Incident) {
			i.Status = model.StatusResolved
			i.ResolvedAt = ts("2025-03-04T16:00:00Z")
			i.Updates = append(i.Updates, model.Update{ID: "u4", Status: model.StatusResolved, Body: "Resolved."})
			i.Postmortem = &model.Postmortem{Body: "Root cause.", PublishedAt: ts("2025-03-06T00:00:00Z")}
		}), "Status monitoring → resolved; 1 update added; postmortem published."},
		{"title edited", fixture(), edit(func(i *model.Incident) { i.Title = "API errors" }), "Title edited."},
		{"impact downgraded", fixture(), edit(func(i *model.Incident) { i.Impact = model.ImpactMinor }),
			"Impact major → minor."},
		{"maintenance started", maintenance, func() *model.Incident {
			m := clone(maintenance)
			m.Status = model.StatusInProgress
			return m
		}(), "Status scheduled → in progress."},
		{"components swapped", fixture(), edit(func(i *model.Incident) { i.Components = []string{"API", "Webhooks"} }),
			"Components: +Webhooks, −Dashboard."},
		{"many components", fixture(), edit(func(i *model.Incident) { i.Components = []string{"A", "B", "C", "Dashboard"} }),
			"Components: 3 added, 1 removed."},
		{"one update edited twice over", fixture(), edit(func(i *model.Incident) {
			i.Updates[0].Body, i.Updates[0].Status = "Looking into it.", model.StatusIdentified
		}), "1 update edited."},
		{"updates removed", fixture(), edit(func(i *model.Incident) { i.Updates = i.Updates[:1] }), "2 updates removed."},
		{"start backdated", fixture(), edit(func(i *model.Incident) { i.StartedAt = ts("2025-03-04T13:00:00Z") }),
			"Start time changed."},
		{"resolved time set without a status change", fixture(), edit(func(i *model.Incident) {
			i.ResolvedAt = ts("2025-03-04T16:00:00Z")
		}), "Resolved time set."},
		{"reopened", edit(func(i *model.Incident) {
			i.Status, i.ResolvedAt = model.StatusResolved, ts("2025-03-04T16:00:00Z")
		}), fixture(), "Status resolved → monitoring; resolved time removed."},
		{"scheduled window moved", maintenance, func() *model.Incident {
			m := clone(maintenance)
			m.ScheduledFor, m.ScheduledUntil = ts("2025-03-11T02:00:00Z"), ts("2025-03-11T04:00:00Z")
			return m
		}(), "Scheduled start changed; scheduled end set."},
		{"postmortem edited",
			edit(func(i *model.Incident) { i.Postmortem = &model.Postmortem{Body: "Root cause."} }),
			edit(func(i *model.Incident) { i.Postmortem = &model.Postmortem{Body: "The root cause."} }),
			"Postmortem edited."},
		{"postmortem dated",
			edit(func(i *model.Incident) { i.Postmortem = &model.Postmortem{Body: "Root cause."} }),
			edit(func(i *model.Incident) {
				i.Postmortem = &model.Postmortem{Body: "Root cause.", PublishedAt: ts("2025-03-06T00:00:00Z")}
			}), "Postmortem edited."},
		{"postmortem removed",
			edit(func(i *model.Incident) { i.Postmortem = &model.Postmortem{Body: "Root cause."} }),
			fixture(), "Postmortem removed."},
		{"incident removed", fixture(), nil, "Incident removed."},
		{"everything at once", fixture(), edit(func(i *model.Incident) {
			i.Title, i.Impact, i.Kind = "x", model.ImpactCritical, model.KindMaintenance
			i.StartedAt = time.Time{}
			i.Components = append(i.Components, "Webhooks")
			i.Updates[1].Body = "Edited."
			i.Updates = append(i.Updates[1:], model.Update{ID: "u4"}, model.Update{ID: "u5"})
		}), "Title edited; impact major → critical; kind incident → maintenance; start time removed; " +
			"components: +Webhooks; 2 updates added; 1 update edited; 1 update removed."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summary(Changes(tt.before, tt.after)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUpdateField(t *testing.T) {
	tests := []struct {
		field, id, sub string
		ok             bool
	}{
		{"updates[u1]", "u1", "", true},
		{"updates[u1].body", "u1", ".body", true},
		{"updates[a.b]].status", "a.b]", ".status", true},
		{"title", "", "", false},
		{"updates[u1", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			id, sub, ok := updateField(tt.field)
			if got, want := []any{id, sub, ok}, []any{tt.id, tt.sub, tt.ok}; !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
