package slack

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// componentVersions are a component's life without an incident, beside a second
// component the fixture names: f.component degraded (opening the component thread, in
// version 2), then in major outage, then back after 23 minutes; version 5 tells 12
// changes, past the line-per-change bound, and one in an incident's thread.
func componentVersions(f fixture) []*model.ComponentVersion {
	const thread = model.ComponentThread
	key := func(name string) string { return "name:\x00" + name }
	set := func(s model.ComponentStatus, more ...model.Component) model.Components {
		return model.Components{List: append([]model.Component{{Name: f.component, Status: s}, {Name: "Web", Status: model.ComponentOperational}}, more...)}
	}
	ch := func(name string, from, to model.ComponentStatus, incident string) model.ComponentChange {
		return model.ComponentChange{Key: key(name), Component: name, From: from, To: to, Told: true, Incident: incident}
	}
	op, deg, major, maint := model.ComponentOperational, model.ComponentDegraded, model.ComponentMajorOutage, model.ComponentMaintenance
	recovered := ch(f.component, major, op, "")
	recovered.DownSince = t0.Add(time.Minute)
	var many []model.ComponentChange
	var dcs []model.Component
	for _, name := range []string{"dc-01", "dc-02", "dc-03", "dc-04", "dc-05", "dc-06", "dc-07", "dc-08", "dc-09", "dc-10", "dc-11"} {
		many = append(many, ch(name, op, maint, ""))
		dcs = append(dcs, model.Component{Name: name, Status: maint})
	}
	many = append(many, ch("Web", op, deg, ""), ch(f.component, op, deg, "abc123"))
	alerts := map[string]string{key("Web"): thread, key(f.component): "abc123"}
	for _, c := range dcs {
		alerts[key(c.Name)] = thread
	}
	return []*model.ComponentVersion{
		{N: 2, ObservedAt: t0.Add(time.Minute), Components: set(deg), Thread: 2, Alerts: map[string]string{key(f.component): thread},
			Changes: []model.ComponentChange{ch(f.component, op, deg, "")}},
		{N: 3, ObservedAt: t0.Add(11 * time.Minute), Components: set(major), Thread: 2, Alerts: map[string]string{key(f.component): thread},
			Changes: []model.ComponentChange{ch(f.component, deg, major, "")}},
		{N: 4, ObservedAt: t0.Add(24 * time.Minute), Components: set(op), Thread: 2, Changes: []model.ComponentChange{recovered}},
		{N: 5, ObservedAt: t0.Add(time.Hour), Components: model.Components{List: append([]model.Component{{Name: f.component, Status: deg}, {Name: "Web", Status: deg}}, dcs...)},
			Thread: 5, Alerts: alerts, Changes: many},
	}
}

// componentNote builds the notification the Deliverer would for component version v in
// the thread of incident (or the component thread for "").
func componentNote(f fixture, v *model.ComponentVersion, incident string, thread bool) *notify.Notification {
	ev := model.EventComponentDegraded
	if v.N == 4 {
		ev = model.EventComponentRecovered
	}
	n := &notify.Notification{
		Message:     model.Message{ID: uint64(100 + v.N), Source: "acme", IncidentID: incident, Version: v.N, Event: ev, CreatedAt: v.ObservedAt},
		Components:  v,
		SourceTitle: f.source,
		SourceLink:  base + "/sources/acme",
	}
	if incident != "" {
		n.IncidentTitle = f.title
	}
	if thread {
		n.Thread = &notify.Thread{Channel: rootChan, TS: rootTS}
	}
	return n
}

func componentCases(f fixture) []renderCase {
	v := componentVersions(f)
	bot := func(n *notify.Notification) func() message { return func() message { return render(n, false) } }
	hook := func(n *notify.Notification) func() message { return func() message { return render(n, true) } }
	return []renderCase{
		{"bot_component_root", bot(componentNote(f, v[0], "", false))},
		{"bot_component_reply", bot(componentNote(f, v[1], "", true))},
		{"bot_component_recovered", bot(componentNote(f, v[2], "", true))},
		{"bot_component_root_edit", func() message { return renderRoot(componentNote(f, v[1], "", true)) }},
		{"bot_component_root_edit_recovered", func() message { return renderRoot(componentNote(f, v[2], "", true)) }},
		{"bot_component_late_root", bot(componentNote(f, v[1], "", false))},
		{"bot_component_summary", bot(componentNote(f, v[3], "", false))},
		{"bot_component_in_incident", bot(componentNote(f, v[3], "abc123", true))},
		{"webhook_component_root", hook(componentNote(f, v[0], "", false))},
		{"webhook_component_reply", hook(componentNote(f, v[1], "", false))},
		{"webhook_component_in_incident", hook(componentNote(f, v[3], "abc123", false))},
	}
}
