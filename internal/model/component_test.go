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
