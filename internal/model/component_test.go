package model

import (
	"strings"
	"testing"
)

func TestComponentStatusLevel(t *testing.T) {
	for _, tc := range []struct {
		s    ComponentStatus
		want int
	}{
		{ComponentOperational, 0}, {ComponentMaintenance, 1}, {ComponentDegraded, 2},
		{ComponentPartialOutage, 3}, {ComponentMajorOutage, 4}, {"degraded_performance", -1}, {"", -1},
	} {
		if got := tc.s.Level(); got != tc.want {
			t.Errorf("%q.Level() = %d, want %d", tc.s, got, tc.want)
		}
	}
	if !ComponentMajorOutage.Worse(ComponentDegraded) || ComponentOperational.Worse(ComponentMaintenance) {
		t.Error("Worse does not follow the levels")
	}
}

func TestComponentChange(t *testing.T) {
	for _, tc := range []struct {
		c                   ComponentChange
		worsened, recovered bool
	}{
		{ComponentChange{From: ComponentOperational, To: ComponentDegraded}, true, false},
		{ComponentChange{From: ComponentMajorOutage, To: ComponentDegraded}, false, false},
		{ComponentChange{From: ComponentDegraded, To: ComponentOperational}, false, true},
		{ComponentChange{From: "", To: ComponentMajorOutage}, false, false},
		{ComponentChange{From: ComponentDegraded, To: ""}, false, false},
	} {
		if got := tc.c.Worsened(); got != tc.worsened {
			t.Errorf("%v.Worsened() = %v, want %v", tc.c, got, tc.worsened)
		}
		if got := tc.c.Recovered(); got != tc.recovered {
			t.Errorf("%v.Recovered() = %v, want %v", tc.c, got, tc.recovered)
		}
	}
}

func TestComponentsSortAndKey(t *testing.T) {
	cs := Components{List: []Component{
		{Name: "Web", Group: "B"}, {Name: "API", Group: "B"}, {ID: "x1", Name: "API", Group: "A"},
	}}
	cs.Sort()
	var got []string
	for _, c := range cs.List {
		got = append(got, c.Group+"/"+c.Name)
	}
	if want := "A/API B/API B/Web"; strings.Join(got, " ") != want {
		t.Errorf("got order %q, want %q", strings.Join(got, " "), want)
	}
	if c, ok := cs.Find("id:x1"); !ok || c.Name != "API" {
		t.Errorf("Find by id: got %v %v", c, ok)
	}
	if _, ok := cs.Find(Component{Name: "Web", Group: "B"}.Key()); !ok {
		t.Error("Find by group and name: not found")
	}
}

func TestComponentVersionToldAndAlerted(t *testing.T) {
	api := Component{Name: "API", Status: ComponentDegraded}
	web := Component{Name: "Web", Status: ComponentMajorOutage}
	v := ComponentVersion{N: 2, Components: Components{List: []Component{api, web, {Name: "DNS", Status: ComponentOperational}}},
		Changes: []ComponentChange{
			{Key: api.Key(), Told: true},
			{Key: web.Key(), Told: true, Incident: "i1"},
			{Key: "name:\x00DNS", NameBefore: "dns"},
		},
		Alerts: map[string]string{api.Key(): ComponentThread, web.Key(): "i1"}}
	if got := v.ToldIn(""); len(got) != 1 || got[0].Key != api.Key() {
		t.Errorf("ToldIn(\"\"): got %+v", got)
	}
	if got := v.ToldIn("i1"); len(got) != 1 || got[0].Key != web.Key() {
		t.Errorf("ToldIn(i1): got %+v", got)
	}
	if got := v.AlertedIn(ComponentThread); len(got) != 1 || got[0].Name != "API" {
		t.Errorf("AlertedIn(component thread): got %+v", got)
	}
	if got := v.AlertedIn("i2"); len(got) != 0 {
		t.Errorf("AlertedIn(i2): got %+v", got)
	}
}
