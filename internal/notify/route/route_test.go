package route

import (
	"regexp"
	"slices"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestEvents(t *testing.T) {
	inc := &model.Incident{Kind: model.KindIncident, Impact: model.ImpactMajor}
	mnt := &model.Incident{Kind: model.KindMaintenance, Impact: model.ImpactMaintenance}
	before := "x"
	tests := []struct {
		name string
		n    model.Notice
		main string
		all  []string
	}{
		{"new", model.Notice{Event: model.EventNew, Incident: inc}, EventNew, []string{EventNew}},
		{"new maintenance", model.Notice{Event: model.EventNew, Incident: mnt}, EventMaintenance, []string{EventMaintenance, EventNew}},
		{"update posted", model.Notice{Event: model.EventChanged, Incident: inc, Changes: []model.Change{{Field: "updates[u2]"}}}, EventUpdate, []string{EventUpdate}},
		{"update edited", model.Notice{Event: model.EventChanged, Incident: inc, Changes: []model.Change{{Field: "updates[u1].body", Before: &before}}}, EventEdit, []string{EventEdit}},
		{"status and update", model.Notice{Event: model.EventChanged, Incident: inc, Changes: []model.Change{{Field: "updates[u2]"}, {Field: "status"}}}, EventStatus, []string{EventStatus, EventUpdate}},
		{"resolved", model.Notice{Event: model.EventResolved, Incident: inc, Changes: []model.Change{{Field: "status"}, {Field: "updates[u3]"}}}, EventResolved, []string{EventResolved, EventStatus, EventUpdate}},
		{"removed", model.Notice{Event: model.EventRemoved, Incident: inc}, EventRemoved, []string{EventRemoved}},
		{"component", model.Notice{Event: model.EventComponentDegraded, Components: []string{"API"}}, EventComponent, []string{EventComponent}},
		{"source down", model.Notice{Event: model.EventSourceDown}, EventSourceDown, []string{EventSourceDown}},
		{"maintenance soon", model.Notice{Event: model.EventMaintenanceSoon, Incident: mnt}, EventMaintenanceSoon, []string{EventMaintenanceSoon, EventMaintenance}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Event(&tc.n); got != tc.main {
				t.Errorf("Event: got %q, want %q", got, tc.main)
			}
			if got := EventsOf(&tc.n); !slices.Equal(got, tc.all) {
				t.Errorf("EventsOf: got %q, want %q", got, tc.all)
			}
		})
	}
}

func TestTable(t *testing.T) {
	inc := &model.Incident{Kind: model.KindIncident, Title: "API outage", Impact: model.ImpactCritical, Components: []string{"API"}}
	minor := &model.Incident{Kind: model.KindIncident, Title: "Slow", Impact: model.ImpactMinor}
	mnt := &model.Incident{Kind: model.KindMaintenance, Title: "DB upgrade", Impact: model.ImpactMaintenance}
	table := Table{
		{Match: Match{MinImpact: model.ImpactMajor}, Receivers: []string{"pd"}, Continue: true},
		{Match: Match{TitleRegex: regexp.MustCompile("outage")}, Receivers: []string{"hooks", "pd"}},
		{Match: Match{Kinds: []string{KindComponent}, Components: []string{"API"}}, Receivers: []string{"hooks"}},
		{Match: Match{}, Receivers: []string{Slack}},
	}
	tests := []struct {
		name string
		n    model.Notice
		want []string
	}{
		{"critical outage: continue, first match stops", model.Notice{Event: model.EventNew, Incident: inc}, []string{"pd", "hooks"}},
		{"minor: the catch-all", model.Notice{Event: model.EventNew, Incident: minor}, []string{""}},
		{"maintenance never passes min_impact", model.Notice{Event: model.EventNew, Incident: mnt}, []string{""}},
		{"component of API", model.Notice{Event: model.EventComponentDegraded, Components: []string{"API"}}, []string{"hooks"}},
		{"component of another", model.Notice{Event: model.EventComponentDegraded, Components: []string{"Web"}}, []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := table.Outbox(&tc.n); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := Table(nil).Outbox(&model.Notice{Event: model.EventSourceUp}); !slices.Equal(got, []string{""}) {
		t.Errorf("no routes: got %q, want the default sink", got)
	}
}

func TestNever(t *testing.T) {
	tests := []struct {
		m     Match
		never bool
	}{
		{Match{}, false},
		{Match{Kinds: []string{KindSource}, Events: []string{EventSourceDown}}, false},
		{Match{Kinds: []string{KindSource}, Events: []string{EventNew}}, true},
		{Match{Kinds: []string{KindComponent}, MinImpact: model.ImpactMajor}, true},
		{Match{Events: []string{EventComponent}, TitleRegex: regexp.MustCompile("x")}, true},
		{Match{Events: []string{EventMaintenance}, TitleRegex: regexp.MustCompile("x")}, false},
	}
	for _, tc := range tests {
		if got := tc.m.Never() != ""; got != tc.never {
			t.Errorf("%+v: never %v, want %v (%s)", tc.m, got, tc.never, tc.m.Never())
		}
	}
}

func TestMinImpactPeak(t *testing.T) {
	m := Match{MinImpact: model.ImpactMajor}
	down := &model.Incident{Kind: model.KindIncident, Impact: model.ImpactMinor}
	if m.Matches(&model.Notice{Event: model.EventResolved, Incident: down}) {
		t.Error("a minor incident with no peak passed min_impact major")
	}
	if !m.Matches(&model.Notice{Event: model.EventResolved, Incident: down, Peak: func() model.Impact { return model.ImpactCritical }}) {
		t.Error("a downgraded incident that was critical did not pass min_impact major")
	}
	called := false
	up := &model.Incident{Kind: model.KindIncident, Impact: model.ImpactMajor}
	m.Matches(&model.Notice{Event: model.EventNew, Incident: up, Peak: func() model.Impact { called = true; return "" }})
	if called {
		t.Error("Peak read although the current impact passes")
	}
}
