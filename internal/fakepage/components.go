package fakepage

// The component states the fake Statuspage's summary.json serves: by default the one
// operational API component it always had, or a list a test sets and steps through
// (SetComponents, SetComponentStatus), such as a big page of data centres (Components).

import (
	"fmt"
	"slices"
)

// PageComponent is one component the page's summary lists.
type PageComponent struct {
	ID     string // 12 lower-case letters and digits, as Statuspage's
	Name   string
	Status string // Statuspage's word: operational, under_maintenance, degraded_performance, partial_outage, major_outage
	Group  string // the name of the group it is listed under, "" for none
}

// DefaultComponents is what a page serves until SetComponents: one operational API.
var DefaultComponents = []PageComponent{{ID: "fkcmp0api001", Name: "API", Status: "operational"}}

// SetComponents replaces the components the summary lists (nil: DefaultComponents). Only
// summary.json changes.
func (p *Statuspage) SetComponents(cs []PageComponent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rerender(func() { p.components = slices.Clone(cs) })
}

// SetComponentStatus sets one component's status word, as a vendor flipping it without
// an incident does; it reports whether the page has a component with that id.
func (p *Statuspage) SetComponentStatus(id, status string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.components == nil {
		p.components = slices.Clone(DefaultComponents)
	}
	i := slices.IndexFunc(p.components, func(c PageComponent) bool { return c.ID == id })
	if i < 0 {
		return false
	}
	p.rerender(func() { p.components[i].Status = status })
	return true
}

// Components returns the components the page serves.
func (p *Statuspage) Components() []PageComponent {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.components == nil {
		return slices.Clone(DefaultComponents)
	}
	return slices.Clone(p.components)
}

// regions are the groups of a big page's data centres.
var regions = []string{"Africa", "Asia Pacific", "Europe", "Middle East", "North America", "South America"}

// Components builds the component list of a big page, such as a CDN's with one component
// per data centre: n operational components "Data centre NNN", spread over six regional
// groups, with ids DataCentreID(0) upwards.
func Components(n int) []PageComponent {
	out := make([]PageComponent, n)
	for i := range out {
		out[i] = PageComponent{ID: DataCentreID(i), Name: fmt.Sprintf("Data centre %03d", i), Status: "operational", Group: regions[i%len(regions)]}
	}
	return out
}

// DataCentreID is the id of component i of Components.
func DataCentreID(i int) string { return fmt.Sprintf("fkdc%08d", i) }

// NewComponentPage is a page named name serving n components (Components) and no
// incidents: a big page for noise-control tests and benchmarks (300 is the size the
// tests use).
func NewComponentPage(name string, n int) *Statuspage {
	p := &Statuspage{Name: name}
	p.SetComponents(Components(n))
	return p
}

// worse ranks Statuspage's component words; an unknown word ranks as degraded.
var worse = map[string]int{"operational": 0, "under_maintenance": 1, "degraded_performance": 2, "partial_outage": 3, "major_outage": 4}

func rank(status string) int {
	if r, ok := worse[status]; ok {
		return r
	}
	return 2
}

// pageStatus is the summary's status object for the worst component state, as
// Statuspage words it.
var pageStatus = []map[string]string{
	{"indicator": "none", "description": "All Systems Operational"},
	{"indicator": "maintenance", "description": "Service Under Maintenance"},
	{"indicator": "minor", "description": "Minor Service Outage"},
	{"indicator": "minor", "description": "Partial System Outage"},
	{"indicator": "major", "description": "Major System Outage"},
}

// summaryComponents renders the summary's components and status object. A group is a
// component of its own (group true) listed before its members, which name it by
// group_id, its status the worst of theirs, as Statuspage serves it.
func summaryComponents(cs []PageComponent) ([]any, map[string]string) {
	if cs == nil {
		cs = DefaultComponents
	}
	comp := func(id, name, status string, position int, group bool, groupID any) map[string]any {
		return map[string]any{"id": id, "name": name, "status": status, "page_id": pageID,
			"group": group, "showcase": true, "group_id": groupID, "position": position, "only_show_if_degraded": false,
			"description": nil, "start_date": nil, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
	}
	groupIDs := map[string]string{}
	groupWorst := map[string]int{}
	var groups []string
	worst := 0
	for _, c := range cs {
		worst = max(worst, rank(c.Status))
		if c.Group == "" {
			continue
		}
		if _, ok := groupIDs[c.Group]; !ok {
			groupIDs[c.Group] = fmt.Sprintf("fkgrp%07d", len(groups))
			groups = append(groups, c.Group)
		}
		groupWorst[c.Group] = max(groupWorst[c.Group], rank(c.Status))
	}
	words := []string{"operational", "under_maintenance", "degraded_performance", "partial_outage", "major_outage"}
	out := make([]any, 0, len(groups)+len(cs))
	for _, g := range groups {
		out = append(out, comp(groupIDs[g], g, words[groupWorst[g]], len(out)+1, true, nil))
	}
	for _, c := range cs {
		var gid any
		if c.Group != "" {
			gid = groupIDs[c.Group]
		}
		out = append(out, comp(c.ID, c.Name, c.Status, len(out)+1, false, gid))
	}
	return out, pageStatus[worst]
}
