package policy

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// comp is a component of group "G" without a vendor id.
func comp(name string, s model.ComponentStatus) model.Component {
	return model.Component{Name: name, Group: "G", Status: s, StatusRaw: string(s) + "-raw"}
}

func set(cs ...model.Component) *model.Components { return &model.Components{List: cs} }

const (
	op    = model.ComponentOperational
	maint = model.ComponentMaintenance
	deg   = model.ComponentDegraded
	part  = model.ComponentPartialOutage
	major = model.ComponentMajorOutage
)

func TestCanonicalComponents(t *testing.T) {
	in := &model.Components{PageStatus: "minor", List: []model.Component{
		comp("Web", op), comp("API", deg), comp("Web", major), {ID: "x", Name: "API", Status: op, Since: t0},
	}}
	got := CanonicalComponents(in)
	var names []string
	for _, c := range got.List {
		names = append(names, fmt.Sprintf("%s/%s:%s", c.Group, c.Name, c.Status))
		if !c.Since.IsZero() {
			t.Errorf("%s: Since kept", c.Name)
		}
	}
	if want := "/API:operational G/API:degraded G/Web:operational"; strings.Join(names, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(names, " "), want)
	}
	if got.PageStatus != "minor" || in.List[0].Name != "Web" {
		t.Errorf("page status %q, input order changed: %v", got.PageStatus, in.List)
	}
}

func TestComponentChanges(t *testing.T) {
	renamed := model.Component{ID: "7", Name: "Actions v2", Group: "CI", Status: op}
	tests := []struct {
		name      string
		prev, cur *model.Components
		want      []model.ComponentChange
		version   bool
	}{
		{"unchanged", set(comp("API", op)), set(comp("API", op)), nil, false},
		{"status_raw alone is no change", set(comp("API", op)), set(model.Component{Name: "API", Group: "G", Status: op, StatusRaw: "green"}), nil, false},
		{"status", set(comp("API", op)), set(comp("API", deg)),
			[]model.ComponentChange{{Key: comp("API", op).Key(), Component: "API", Group: "G", From: op, To: deg}}, true},
		{"appears and leaves", set(comp("API", op)), set(comp("Web", major)), []model.ComponentChange{
			{Key: comp("API", op).Key(), Component: "API", Group: "G", From: op},
			{Key: comp("Web", op).Key(), Component: "Web", Group: "G", To: major},
		}, true},
		{"renamed and regrouped with an id", set(model.Component{ID: "7", Name: "Actions", Status: op}), set(renamed),
			[]model.ComponentChange{{Key: "id:7", Component: "Actions v2", Group: "CI", From: op, To: op, NameBefore: "Actions", GroupBefore: ""}}, true},
		{"page status alone", &model.Components{PageStatus: "none"}, &model.Components{PageStatus: "minor"}, nil, true},
		{"page description alone", &model.Components{PageDescription: "All good"}, &model.Components{PageDescription: "Partial"}, nil, true},
		{"first set", nil, set(comp("API", op)), []model.ComponentChange{{Key: comp("API", op).Key(), Component: "API", Group: "G", To: op}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComponentChanges(tt.prev, tt.cur)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes: got %+v, want %+v", got, tt.want)
			}
			if v := NewComponentVersion(tt.prev, tt.cur, got); v != tt.version {
				t.Errorf("new version: got %v, want %v", v, tt.version)
			}
		})
	}
}

func TestComponentMessages(t *testing.T) {
	api, web := comp("API", op).Key(), comp("Web", op).Key()
	at := t0.Add(time.Hour)
	incident := func(id string, announced bool, names ...string) OpenIncident {
		return OpenIncident{ID: id, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
			StartedAt: t0, Announced: announced, Components: names}
	}
	window := func(from, until time.Time, names ...string) OpenIncident {
		return OpenIncident{ID: "m1", Kind: model.KindMaintenance, Status: model.StatusScheduled, Impact: model.ImpactMaintenance,
			Announced: true, Components: names, ScheduledFor: from, ScheduledUntil: until}
	}
	onlyWeb := func(c model.Component) bool { return c.Name == "Web" }
	tests := []struct {
		name   string
		p      Policy
		in     ComponentVersionIn
		told   string // "key>incident" of each told change
		alerts map[string]string
		thread int
		open   int
		msgs   []ComponentMessage
	}{
		{name: "first set is quiet",
			in:   ComponentVersionIn{N: 1, First: true, Cur: set(comp("API", major))},
			told: ""},
		{name: "degraded opens the component thread",
			in:   ComponentVersionIn{N: 2, Cur: set(comp("API", deg)), Changes: ch(api, "API", op, deg)},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "worse again replies in the open thread",
			in: ComponentVersionIn{N: 3, Cur: set(comp("API", major)), Changes: ch(api, "API", deg, major),
				Alerts: map[string]string{api: model.ComponentThread}, Thread: 2},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "better is told as a recovery event, spell goes on",
			in: ComponentVersionIn{N: 4, Cur: set(comp("API", deg)), Changes: ch(api, "API", major, deg),
				Alerts: map[string]string{api: model.ComponentThread}, Thread: 2},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentRecovered}}},
		{name: "recovery closes the thread",
			in: ComponentVersionIn{N: 5, Cur: set(comp("API", op)), Changes: ch(api, "API", deg, op),
				Alerts: map[string]string{api: model.ComponentThread}, Thread: 2},
			told: api + ">", thread: 2, open: 0,
			msgs: []ComponentMessage{{Event: model.EventComponentRecovered}}},
		{name: "recovery of a spell never told is quiet",
			in:   ComponentVersionIn{N: 2, Cur: set(comp("API", op)), Changes: ch(api, "API", major, op)},
			told: ""},
		{name: "one recovers while another degrades: one message, degraded",
			in: ComponentVersionIn{N: 3, Cur: set(comp("API", op), comp("Web", part)),
				Changes: append(ch(api, "API", deg, op), ch(web, "Web", op, part)...),
				Alerts:  map[string]string{api: model.ComponentThread}, Thread: 2},
			told: api + "> " + web + ">", alerts: map[string]string{web: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "folded into the open incident that names it",
			in: ComponentVersionIn{N: 2, Cur: set(comp("API", deg)), Changes: ch(api, "API", op, deg),
				Open: []OpenIncident{incident("i1", true, "API"), incident("i2", true, "Web")}},
			told: api + ">i1", alerts: map[string]string{api: "i1"},
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded, IncidentID: "i1"}}},
		{name: "not into an incident never announced",
			in: ComponentVersionIn{N: 2, Cur: set(comp("API", deg)), Changes: ch(api, "API", op, deg),
				Open: []OpenIncident{incident("i1", false, "API")}},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "of several incidents the worst, then the latest",
			in: ComponentVersionIn{N: 2, Cur: set(comp("API", deg)), Changes: ch(api, "API", op, deg),
				Open: []OpenIncident{
					incident("i1", true, "API"),
					{ID: "i2", Kind: model.KindIncident, Impact: model.ImpactMajor, StartedAt: t0, Announced: true, Components: []string{"API"}},
					{ID: "i3", Kind: model.KindIncident, Impact: model.ImpactMajor, StartedAt: t0.Add(time.Minute), Announced: true, Components: []string{"API"}},
					window(t0, at.Add(time.Hour), "API"),
				}},
			told: api + ">i3", alerts: map[string]string{api: "i3"},
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded, IncidentID: "i3"}}},
		{name: "recovery follows its spell to the incident's thread after the incident closed",
			in: ComponentVersionIn{N: 3, Cur: set(comp("API", op)), Changes: ch(api, "API", deg, op),
				Alerts: map[string]string{api: "i1"}},
			told: api + ">i1",
			msgs: []ComponentMessage{{Event: model.EventComponentRecovered, IncidentID: "i1"}}},
		{name: "a spell in the component thread stays there when an incident names it later",
			in: ComponentVersionIn{N: 3, Cur: set(comp("API", major)), Changes: ch(api, "API", deg, major),
				Alerts: map[string]string{api: model.ComponentThread}, Thread: 2,
				Open: []OpenIncident{incident("i1", true, "API")}},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "and so does its end",
			in: ComponentVersionIn{N: 4, Cur: set(comp("API", op)), Changes: ch(api, "API", major, op),
				Alerts: map[string]string{api: model.ComponentThread}, Thread: 2,
				Open: []OpenIncident{incident("i1", true, "API")}},
			told: api + ">", thread: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentRecovered}}},
		{name: "a change for an incident and one for the component thread: two threads, one message each",
			in: ComponentVersionIn{N: 2, Cur: set(comp("API", deg), comp("Web", deg)),
				Changes: append(ch(api, "API", op, deg), ch(web, "Web", op, deg)...),
				Open:    []OpenIncident{incident("i1", true, "API")}},
			told: api + ">i1 " + web + ">", alerts: map[string]string{api: "i1", web: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded, IncidentID: "i1"}, {Event: model.EventComponentDegraded}}},
		{name: "maintenance inside its window is quiet, and so is its end",
			in: ComponentVersionIn{N: 2, At: at, Cur: set(comp("API", maint)), Changes: ch(api, "API", op, maint),
				Open: []OpenIncident{window(at.Add(10*time.Minute), at.Add(time.Hour), "API")}},
			told: ""},
		{name: "maintenance in progress is a window whatever its times",
			in: ComponentVersionIn{N: 2, At: at, Cur: set(comp("API", maint)), Changes: ch(api, "API", op, maint),
				Open: []OpenIncident{{ID: "m1", Kind: model.KindMaintenance, Status: model.StatusInProgress, Components: []string{"API"}}}},
			told: ""},
		{name: "maintenance outside any window of that component is told",
			in: ComponentVersionIn{N: 2, At: at, Cur: set(comp("API", maint)), Changes: ch(api, "API", op, maint),
				Open: []OpenIncident{window(at.Add(2*time.Hour), at.Add(3*time.Hour), "API"), window(t0, at.Add(time.Hour), "Web")}},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "maintenance is quiet for a source that ignores maintenance",
			p:    Policy{QuietMaintenance: true},
			in:   ComponentVersionIn{N: 2, At: at, Cur: set(comp("API", maint)), Changes: ch(api, "API", op, maint)},
			told: ""},
		{name: "but not worse than maintenance",
			p:    Policy{QuietMaintenance: true},
			in:   ComponentVersionIn{N: 2, At: at, Cur: set(comp("API", deg)), Changes: ch(api, "API", maint, deg)},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "degraded inside a maintenance window is told",
			in: ComponentVersionIn{N: 2, At: at, Cur: set(comp("API", deg)), Changes: ch(api, "API", op, deg),
				Open: []OpenIncident{{ID: "m1", Kind: model.KindMaintenance, Status: model.StatusInProgress, Announced: true, Components: []string{"API"}}}},
			told: api + ">m1", alerts: map[string]string{api: "m1"},
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded, IncidentID: "m1"}}},
		{name: "a component outside the watch list is quiet",
			p:    Policy{Watch: onlyWeb},
			in:   ComponentVersionIn{N: 2, Cur: set(comp("API", major)), Changes: ch(api, "API", op, major)},
			told: ""},
		{name: "an alerted component no longer watched still tells its recovery",
			p: Policy{Watch: onlyWeb},
			in: ComponentVersionIn{N: 3, Cur: set(comp("API", op)), Changes: ch(api, "API", major, op),
				Alerts: map[string]string{api: model.ComponentThread}, Thread: 2},
			told: api + ">", thread: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentRecovered}}},
		{name: "component_changes archive tells nothing but ends spells",
			p: Policy{ComponentChanges: ComponentChangesArchive},
			in: ComponentVersionIn{N: 3, Cur: set(comp("API", op), comp("Web", major)),
				Changes: append(ch(api, "API", deg, op), ch(web, "Web", op, major)...),
				Alerts:  map[string]string{api: model.ComponentThread}, Thread: 2},
			told: ""},
		{name: "a rename alone is quiet and keeps the spell",
			in: ComponentVersionIn{N: 3, Cur: set(comp("API", deg)),
				Changes: []model.ComponentChange{{Key: api, Component: "API", Group: "G", From: deg, To: deg, NameBefore: "Api"}},
				Alerts:  map[string]string{api: model.ComponentThread}, Thread: 2},
			told: "", alerts: map[string]string{api: model.ComponentThread}, open: 2},
		{name: "a new component already down is told",
			in:   ComponentVersionIn{N: 2, Cur: set(comp("API", part)), Changes: ch(api, "API", "", part)},
			told: api + ">", alerts: map[string]string{api: model.ComponentThread}, thread: 2, open: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentDegraded}}},
		{name: "a new component operational is quiet",
			in:   ComponentVersionIn{N: 2, Cur: set(comp("API", op)), Changes: ch(api, "API", "", op)},
			told: ""},
		{name: "an alerted component leaving the page is told and ends its spell",
			in: ComponentVersionIn{N: 3, Cur: set(), Changes: ch(api, "API", major, ""),
				Alerts: map[string]string{api: model.ComponentThread}, Thread: 2},
			told: api + ">", thread: 2,
			msgs: []ComponentMessage{{Event: model.EventComponentRecovered}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.p.ComponentMessages(tt.in)
			var told []string
			for _, c := range got.Changes {
				if c.Told {
					told = append(told, c.Key+">"+c.Incident)
				} else if c.Incident != "" {
					t.Errorf("%s: not told but in incident %s", c.Key, c.Incident)
				}
			}
			if strings.Join(told, " ") != tt.told {
				t.Errorf("told: got %q, want %q", strings.Join(told, " "), tt.told)
			}
			if !reflect.DeepEqual(got.Alerts, tt.alerts) {
				t.Errorf("alerts: got %v, want %v", got.Alerts, tt.alerts)
			}
			if got.Thread != tt.thread || got.Open != tt.open {
				t.Errorf("thread, open: got %d, %d; want %d, %d", got.Thread, got.Open, tt.thread, tt.open)
			}
			if !reflect.DeepEqual(got.Messages, tt.msgs) {
				t.Errorf("messages: got %+v, want %+v", got.Messages, tt.msgs)
			}
			if len(tt.in.Changes) > 0 && tt.in.Changes[0].Told {
				t.Error("the input's changes were changed")
			}
		})
	}
}

// ch is one status change of component key named name in group G.
func ch(key, name string, from, to model.ComponentStatus) []model.ComponentChange {
	return []model.ComponentChange{{Key: key, Component: name, Group: "G", From: from, To: to}}
}

func TestPolicyCheckComponentChanges(t *testing.T) {
	for _, mode := range []string{"", ComponentChangesNotify, ComponentChangesArchive} {
		if err := (Policy{ComponentChanges: mode}).Check(); err != nil {
			t.Errorf("Check(%q): %v", mode, err)
		}
	}
	if err := (Policy{ComponentChanges: "quiet"}).Check(); err == nil {
		t.Error("Check(quiet): got nil, want an error")
	}
}
