package model

import (
	"slices"
	"strings"
	"time"
)

// ComponentStatus is a component's state as a page shows it, normalised across
// platforms. The provider's own word is kept in Component.StatusRaw.
type ComponentStatus string

// The component states, from best to worst; Level gives each its metric value.
const (
	ComponentOperational   ComponentStatus = "operational"
	ComponentMaintenance   ComponentStatus = "maintenance"
	ComponentDegraded      ComponentStatus = "degraded"
	ComponentPartialOutage ComponentStatus = "partial_outage"
	ComponentMajorOutage   ComponentStatus = "major_outage"
)

// ComponentStatuses lists every component state, best first.
var ComponentStatuses = []ComponentStatus{ComponentOperational, ComponentMaintenance, ComponentDegraded, ComponentPartialOutage, ComponentMajorOutage}

// Level is the state's place from 0 (operational) to 4 (major outage): the value of the
// watcher_component_status metric, so an alert on "> 1" fires on anything worse than
// maintenance. A state outside the five is -1.
func (s ComponentStatus) Level() int { return slices.Index(ComponentStatuses, s) }

// Worse reports whether s is a worse state than t.
func (s ComponentStatus) Worse(t ComponentStatus) bool { return s.Level() > t.Level() }

// Valid reports whether s is one of the five states.
func (s ComponentStatus) Valid() bool { return s.Level() >= 0 }

// Component is one component of a page at one poll.
type Component struct {
	// ID is the vendor's id of the component, "" when the platform gives none. With an
	// id, a renamed component stays the same component.
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Group     string          `json:"group,omitempty"` // the group it is listed under, "" for none
	Status    ComponentStatus `json:"status"`
	StatusRaw string          `json:"status_raw,omitempty"` // the provider's word for Status
	// Since is when the component entered its current status as the archive saw it (its
	// first observation if it never changed). Set by the archive's reads, never by a
	// platform, and never compared.
	Since time.Time `json:"since,omitzero"`
}

// Key is the component's identity across polls: the vendor's id when it gives one, else
// its group and name.
func (c Component) Key() string {
	if c.ID != "" {
		return "id:" + c.ID
	}
	return "name:" + c.Group + "\x00" + c.Name
}

// Components is what a page shows beside its incidents at one poll: the state of each
// component and the page's overall status.
type Components struct {
	// PageStatus is the page's overall indicator in the provider's word (Statuspage's
	// status.indicator: none, minor, major, critical, maintenance), "" when it has none.
	PageStatus string `json:"page_status,omitempty"`
	// PageDescription is the page's own sentence for it ("Partial System Outage").
	PageDescription string      `json:"page_description,omitempty"`
	List            []Component `json:"components"`
}

// Sort puts the list in its one order, by group, then name, then key, so that two reads
// of the same page compare equal whatever order the vendor listed them in.
func (cs *Components) Sort() {
	slices.SortStableFunc(cs.List, func(a, b Component) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Key(), b.Key())
	})
}

// Find returns the component with the given key.
func (cs *Components) Find(key string) (Component, bool) {
	for _, c := range cs.List {
		if c.Key() == key {
			return c, true
		}
	}
	return Component{}, false
}

// ComponentVersion is one archived version of a source's component set: what the page
// showed from ObservedAt on. A new version is written only when a component's status,
// name or group changes, one is added or removed, or the page status changes.
type ComponentVersion struct {
	N          int               `json:"version"`
	ObservedAt time.Time         `json:"observed_at"`
	Components Components        `json:"components"`
	Changes    []ComponentChange `json:"changes"` // from version N-1 (none for version 1)
	// Thread is, when this version has a message in the source's component thread (a
	// ComponentChange told with no Incident), the version whose message opened that
	// thread: N itself for the root, which opens a new thread. 0 when it has none.
	Thread int `json:"thread,omitempty"`
	// Alerts are the components whose current spell away from operational was told, by
	// key: where it is told, ComponentThread or the URL id of the incident whose thread
	// took it. What the component thread's root shows is the components alerted there.
	Alerts map[string]string `json:"alerts,omitempty"`
}

// ComponentThread is the thread of a source's component changes that no open incident
// took ("<Vendor>: Actions degraded — no incident posted"), as ComponentVersion.Alerts
// names it. No URL id starts with "~", so it never names an incident's thread.
const ComponentThread = "~components"

// ComponentChange is one component's change between two versions of the set. From is ""
// for a component new to the page, To is "" for one that left it.
type ComponentChange struct {
	Key       string          `json:"key"`
	Component string          `json:"component"` // its name now, or its last name if it left
	Group     string          `json:"group,omitempty"`
	From      ComponentStatus `json:"from,omitempty"`
	To        ComponentStatus `json:"to,omitempty"`
	// NameBefore and GroupBefore are set when the name or group changed.
	NameBefore  string `json:"name_before,omitempty"`
	GroupBefore string `json:"group_before,omitempty"`
	// DownSince is, for a change back to operational, when the component last left
	// operational as the archive saw it ("operational again after 23m").
	DownSince time.Time `json:"down_since,omitzero"`
	// Told reports whether the change is announced, and Incident where: the URL id of the
	// incident whose thread took it, "" for the component thread. The outbox message of
	// that thread (Message.IncidentID equal to Incident, Version the set's version) says
	// the told changes with that Incident. A change not told was archived quietly: the
	// first set read, a component outside the source's components list, a rename, a
	// maintenance flip inside the component's maintenance window, component_changes:
	// archive, or a recovery of a spell that was never told.
	Told     bool   `json:"told,omitempty"`
	Incident string `json:"incident,omitempty"`
}

// Worsened reports whether the change is a component getting worse.
func (c ComponentChange) Worsened() bool { return c.From != "" && c.To != "" && c.To.Worse(c.From) }

// Recovered reports whether the change is a component back to operational.
func (c ComponentChange) Recovered() bool {
	return c.From != "" && c.From != ComponentOperational && c.To == ComponentOperational
}

// ToldIn returns the changes of v that the message of a thread says: incidentID is the
// message's IncidentID, "" for the component thread.
func (v *ComponentVersion) ToldIn(incidentID string) []ComponentChange {
	var out []ComponentChange
	for _, c := range v.Changes {
		if c.Told && c.Incident == incidentID {
			out = append(out, c)
		}
	}
	return out
}

// AlertedIn returns the components of v whose spell away from operational is told in
// thread (ComponentThread, or an incident's URL id): what that thread's root shows
// now. None means every spell told there is over.
func (v *ComponentVersion) AlertedIn(thread string) []Component {
	var out []Component
	for _, c := range v.Components.List {
		if v.Alerts[c.Key()] == thread {
			out = append(out, c)
		}
	}
	return out
}
