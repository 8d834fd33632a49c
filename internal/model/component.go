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
}

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
}

// Worsened reports whether the change is a component getting worse.
func (c ComponentChange) Worsened() bool { return c.From != "" && c.To != "" && c.To.Worse(c.From) }

// Recovered reports whether the change is a component back to operational.
func (c ComponentChange) Recovered() bool {
	return c.From != "" && c.From != ComponentOperational && c.To == ComponentOperational
}
