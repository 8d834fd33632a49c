package fetch

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestComponentWords(t *testing.T) {
	w := ComponentWords{"operational": model.ComponentOperational, "major_outage": model.ComponentMajorOutage}
	for raw, want := range map[string]model.ComponentStatus{
		"operational":     model.ComponentOperational,
		" Major_Outage\n": model.ComponentMajorOutage,
		"re-routed":       UnknownComponentStatus,
		"":                UnknownComponentStatus,
	} {
		if got := w.Status(raw); got != want {
			t.Errorf("Status(%q): got %q, want %q", raw, got, want)
		}
	}
	if c := w.Component(" a ", " API ", " Core ", " Major_Outage "); c != (model.Component{ID: "a", Name: "API", Group: "Core", Status: model.ComponentMajorOutage, StatusRaw: "Major_Outage"}) {
		t.Errorf("Component: got %+v", c)
	}
}

func TestNewComponents(t *testing.T) {
	cs := NewComponents(" major ", " Partial System Outage ", []model.Component{
		{ID: "2", Name: "Web", Status: model.ComponentOperational},
		{ID: "1", Name: "API", Status: model.ComponentDegraded},
		{ID: "1", Name: "API again", Status: model.ComponentOperational},
		{ID: "3", Name: "", Status: model.ComponentOperational},
	})
	if cs.PageStatus != "major" || cs.PageDescription != "Partial System Outage" {
		t.Errorf("page: got %q %q", cs.PageStatus, cs.PageDescription)
	}
	if len(cs.List) != 2 || cs.List[0].Name != "API" || cs.List[0].Status != model.ComponentDegraded || cs.List[1].Name != "Web" {
		t.Errorf("list: got %+v, want API (first of id 1) then Web", cs.List)
	}
	if empty := NewComponents("", "", nil); empty.List == nil {
		t.Error("no components: got a nil list, want an empty one (read, none)")
	}
}

func TestCleanComponents(t *testing.T) {
	s := &model.Snapshot{Components: &model.Components{PageDescription: "All\x1b ok", List: []model.Component{
		{Name: "\u200bZeta", Group: "G\x00", StatusRaw: "up\x07"}, {Name: "Beta"},
	}}}
	Clean(s)
	cs := s.Components
	if cs.PageDescription != "All ok" || cs.List[0].Name != "Beta" || cs.List[1].Name != "Zeta" || cs.List[1].Group != "G" || cs.List[1].StatusRaw != "up" {
		t.Errorf("got %+v, want clean texts, sorted again", cs)
	}
}
