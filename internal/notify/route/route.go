// Package route chooses the receivers of a notification: the routes of the config's
// routes: key, first match wins unless a route says continue. It is pure: a Table is
// built once from the config and asked for every notification the archive writes.
package route

import (
	"regexp"
	"slices"
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Slack is the receiver name of the slack: block (or, without Slack, the console).
// Messages for it are written with an empty model.Message.Receiver, as they were
// before receivers existed.
const Slack = "slack"

// The kinds a route matches: what a notification is about.
const (
	KindIncident    = "incident"
	KindMaintenance = "maintenance"
	KindComponent   = "component"
	KindSource      = "source"
)

// Kinds lists the kinds a route's match may name.
var Kinds = []string{KindIncident, KindMaintenance, KindComponent, KindSource}

// The events a route matches. A notification has one main event (Event) and may
// match more (EventsOf): a resolution that also posts an update matches "resolved",
// "status" and "update".
const (
	EventNew         = "new"
	EventUpdate      = "update" // an update posted
	EventEdit        = "edit"   // an update or a field edited
	EventStatus      = "status" // the status or the impact changed
	EventResolved    = "resolved"
	EventPostmortem  = "postmortem"
	EventRemoved     = "removed"
	EventMaintenance = "maintenance" // any notification about a maintenance
	EventComponent   = "component"
	EventSourceDown  = "source_down"
	EventSourceUp    = "source_up"
	// EventMaintenanceSoon is a scheduled maintenance about to start: its reminder.
	EventMaintenanceSoon = "maintenance_soon"
)

// Events lists the events a route's match may name.
var Events = []string{EventNew, EventUpdate, EventEdit, EventStatus, EventResolved, EventPostmortem,
	EventRemoved, EventMaintenance, EventComponent, EventSourceDown, EventSourceUp, EventMaintenanceSoon}

// kindEvents are the events a notification of each kind can have, for Check.
var kindEvents = map[string][]string{
	KindIncident:    {EventNew, EventUpdate, EventEdit, EventStatus, EventResolved, EventPostmortem, EventRemoved},
	KindMaintenance: {EventNew, EventUpdate, EventEdit, EventStatus, EventResolved, EventPostmortem, EventRemoved, EventMaintenance, EventMaintenanceSoon},
	KindComponent:   {EventComponent},
	KindSource:      {EventSourceDown, EventSourceUp},
}

// Match is what a route asks of a notification; an empty field asks nothing, so an
// empty Match matches everything.
type Match struct {
	Sources []string
	Kinds   []string
	// MinImpact passes incidents at or above it now or in any earlier version
	// (model.Notice.Peak), so that the resolution of a downgraded incident still goes
	// where its alert went; an impact the archive cannot rank, unknown, passes too, as
	// the sources' min_impact does; a maintenance, a component message or a source event
	// never passes it.
	MinImpact model.Impact
	// Components passes an incident that lists one of them, or a component message
	// telling one of them (a component's group names every component under it).
	Components []string
	Events     []string
	// TitleRegex passes an incident whose title it matches.
	TitleRegex *regexp.Regexp
}

// Route sends what its Match passes to Receivers (names of the config's receivers:,
// or Slack). Continue lets the next routes match too.
type Route struct {
	Match     Match
	Receivers []string
	Continue  bool
}

// Table is the routes: key in order.
type Table []Route

// Receivers returns the receivers of n, each once, in the order of the routes: those
// of the first route that matches, and of the next ones while the matching route says
// continue. No routes at all is everything to Slack, as before routes existed; a
// notification no route matches goes to no one (it is archived all the same).
func (t Table) Receivers(n *model.Notice) []string {
	if len(t) == 0 {
		return []string{Slack}
	}
	var out []string
	for i := range t {
		r := &t[i]
		if !r.Match.Matches(n) {
			continue
		}
		for _, name := range r.Receivers {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
		if !r.Continue {
			break
		}
	}
	return out
}

// Outbox is Receivers as the archive writes them: model.Message.Receiver values, the
// empty one for Slack.
func (t Table) Outbox(n *model.Notice) []string {
	names := t.Receivers(n)
	for i, name := range names {
		if name == Slack {
			names[i] = ""
		}
	}
	return names
}

// Matches reports whether m passes n.
func (m *Match) Matches(n *model.Notice) bool {
	if len(m.Sources) > 0 && !slices.Contains(m.Sources, n.Source) {
		return false
	}
	if len(m.Kinds) > 0 && !slices.Contains(m.Kinds, Kind(n)) {
		return false
	}
	if len(m.Events) > 0 && !slices.ContainsFunc(EventsOf(n), func(e string) bool { return slices.Contains(m.Events, e) }) {
		return false
	}
	inc := n.Incident
	if m.MinImpact != "" {
		if inc == nil || isComponent(n.Event) || inc.Kind == model.KindMaintenance {
			return false
		}
		pass := func(i model.Impact) bool { return i != model.ImpactMaintenance && i.AtLeast(m.MinImpact) }
		if !pass(inc.Impact) && (n.Peak == nil || !pass(n.Peak())) {
			return false
		}
	}
	if len(m.Components) > 0 && !m.component(n) {
		return false
	}
	if m.TitleRegex != nil && (inc == nil || !m.TitleRegex.MatchString(inc.Title)) {
		return false
	}
	return true
}

// component reports whether n is about one of m's components.
func (m *Match) component(n *model.Notice) bool {
	names := n.Components
	if !isComponent(n.Event) && n.Incident != nil {
		names = n.Incident.Components
	}
	for _, c := range names {
		if slices.Contains(m.Components, c) {
			return true
		}
	}
	return false
}

func isComponent(e model.Event) bool {
	return e == model.EventComponentDegraded || e == model.EventComponentRecovered
}

// Kind is what n is about: KindIncident, KindMaintenance, KindComponent or KindSource.
func Kind(n *model.Notice) string {
	switch {
	case isComponent(n.Event):
		return KindComponent
	case n.Event == model.EventSourceDown || n.Event == model.EventSourceUp:
		return KindSource
	case n.Incident != nil && n.Incident.Kind == model.KindMaintenance:
		return KindMaintenance
	}
	return KindIncident
}

// Event is n's main event, the one a receiver is told (the webhook's "event"): new (or
// maintenance, for a maintenance first announced), status, update or edit for a later
// change set, by the most important thing it says, resolved, postmortem, removed,
// component, source_down, source_up, maintenance_soon.
func Event(n *model.Notice) string {
	switch n.Event {
	case model.EventNew:
		if Kind(n) == KindMaintenance {
			return EventMaintenance
		}
		return EventNew
	case model.EventChanged:
		return changed(n.Changes)[0]
	case model.EventResolved:
		return EventResolved
	case model.EventPostmortem:
		return EventPostmortem
	case model.EventRemoved:
		return EventRemoved
	case model.EventSourceDown:
		return EventSourceDown
	case model.EventSourceUp:
		return EventSourceUp
	case model.EventMaintenanceSoon:
		return EventMaintenanceSoon
	}
	if isComponent(n.Event) {
		return EventComponent
	}
	return EventUpdate
}

// EventsOf are all the events n matches: its main one, what its change set says
// (status, update, edit), and maintenance for any notification about a maintenance.
func EventsOf(n *model.Notice) []string {
	out := []string{Event(n)}
	add := func(e string) {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	switch n.Event {
	case model.EventNew:
		add(EventNew)
	case model.EventChanged, model.EventResolved, model.EventPostmortem:
		for _, e := range changed(n.Changes) {
			add(e)
		}
	}
	if Kind(n) == KindMaintenance {
		add(EventMaintenance)
	}
	return out
}

// changed names what a later change set says, most important first: status (the
// status or the impact changed), update (an update posted), edit (anything else).
// It is never empty.
func changed(changes []model.Change) []string {
	var status, update, edit bool
	for _, c := range changes {
		switch {
		case c.Field == "status" || c.Field == "impact":
			status = true
		case strings.HasPrefix(c.Field, "updates[") && strings.HasSuffix(c.Field, "]") && c.Before == nil:
			update = true
		default:
			edit = true
		}
	}
	var out []string
	if status {
		out = append(out, EventStatus)
	}
	if update {
		out = append(out, EventUpdate)
	}
	if edit || len(out) == 0 {
		out = append(out, EventEdit)
	}
	return out
}

// Never says why m can never match, "" when it can: kinds and events that exclude
// each other, a min_impact or title_regex asked of kinds that have neither.
func (m *Match) Never() string {
	kinds := m.Kinds
	if len(kinds) == 0 {
		kinds = Kinds
	}
	if len(m.Events) > 0 {
		var left []string
		for _, k := range kinds {
			if slices.ContainsFunc(kindEvents[k], func(e string) bool { return slices.Contains(m.Events, e) }) {
				left = append(left, k)
			}
		}
		if len(left) == 0 {
			return "no notification of kinds " + strings.Join(kinds, ", ") + " has events " + strings.Join(m.Events, ", ")
		}
		kinds = left
	}
	if m.MinImpact != "" && !slices.Contains(kinds, KindIncident) {
		return "min_impact passes incidents only, and kinds " + strings.Join(kinds, ", ") + " has none"
	}
	if m.TitleRegex != nil && !slices.Contains(kinds, KindIncident) && !slices.Contains(kinds, KindMaintenance) {
		return "title_regex matches incident titles only, and kinds " + strings.Join(kinds, ", ") + " has none"
	}
	return ""
}
