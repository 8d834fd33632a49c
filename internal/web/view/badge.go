package view

import (
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Badge is a status, an impact or a source state as pages show it: a colour family, an
// icon and a text label, so that colour is never the only signal.
type Badge struct {
	Class string // CSS class of the colour family
	Icon  string // id of a symbol of the layout's icon sprite
	Label string
}

// statusBadges are the badges of the known statuses. Open statuses are neutral, closed
// ones green and maintenance ones blue: the impact badge carries the severity.
var statusBadges = map[model.Status]Badge{
	model.StatusInvestigating: {"b-open", "i-search", "Investigating"},
	model.StatusIdentified:    {"b-open", "i-target", "Identified"},
	model.StatusMonitoring:    {"b-open", "i-eye", "Monitoring"},
	model.StatusResolved:      {"b-ok", "i-check", "Resolved"},
	model.StatusPostmortem:    {"b-ok", "i-doc", "Postmortem"},
	model.StatusScheduled:     {"b-maint", "i-clock", "Scheduled"},
	model.StatusInProgress:    {"b-maint", "i-wrench", "In progress"},
	model.StatusVerifying:     {"b-maint", "i-eye", "Verifying"},
	model.StatusCompleted:     {"b-ok", "i-check", "Completed"},
}

// StatusBadge shows an incident's or a maintenance's status; one we do not know shows
// the vendor's word for it.
func StatusBadge(st model.Status) Badge { return known(statusBadges, st, "Unknown status") }

// impactBadges are the badges of the known impacts.
var impactBadges = map[model.Impact]Badge{
	model.ImpactCritical:    {"b-critical", "i-octagon", "Critical"},
	model.ImpactMajor:       {"b-major", "i-alert", "Major"},
	model.ImpactMinor:       {"b-minor", "i-info", "Minor"},
	model.ImpactNone:        {"b-muted", "i-dash", "No impact"},
	model.ImpactMaintenance: {"b-maint", "i-wrench", "Maintenance"},
}

// ImpactBadge shows an impact.
func ImpactBadge(i model.Impact) Badge {
	if b, ok := impactBadges[i]; ok {
		return b
	}
	return Badge{"b-muted", "i-dash", "Impact unknown"}
}

// known is v's badge in badges, or, for a value it does not know, a muted badge with the
// vendor's word for it (missing when it gave none).
func known[V ~string](badges map[V]Badge, v V, missing string) Badge {
	if b, ok := badges[v]; ok {
		return b
	}
	return Badge{"b-muted", "i-dash", words(string(v), missing)}
}

// ImpactRank orders impacts for sorting, most severe first; unknown ranks with minor,
// since an impact we cannot place must not sink out of sight.
func ImpactRank(i model.Impact) int {
	switch i {
	case model.ImpactCritical:
		return 4
	case model.ImpactMajor:
		return 3
	case model.ImpactMinor, model.ImpactUnknown, "":
		return 2
	case model.ImpactNone:
		return 1
	}
	return 0
}

// impactClass is the CSS class of an impact's colour, for the timeline's bars.
func impactClass(i model.Impact) string { return ImpactBadge(i).Class }

// words shows an enum value the vendor gave (in_progress) as words (in progress), or
// missing when it is empty.
func words(s, missing string) string {
	if s == "" {
		return missing
	}
	s = strings.ReplaceAll(s, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// Source states, from the most to the least pressing; the dashboard sorts by them.
const (
	StateDown = iota
	StateIncident
	StateMaintenance
	StateDegraded // components not all operational, and no incident open
	StateOK
	StatePending
	StatePaused
	StateRetired
)

// SourceState is what a source's badge says, and its rank for sorting.
type SourceState struct {
	Badge
	Rank int
}

// ComponentsState is the state of a source that StateOf found operational but whose
// page shows components not operational, the worst being worst: "Degraded, no
// incident" (coloured by the worst), or under maintenance when that is all; ok is false
// when every component is operational.
func ComponentsState(worst model.ComponentStatus) (st SourceState, ok bool) {
	switch {
	case worst == model.ComponentMaintenance:
		return SourceState{Badge{"b-maint", "i-wrench", "Components in maintenance"}, StateMaintenance}, true
	case worst.Worse(model.ComponentMaintenance):
		b := ComponentBadge(worst)
		return SourceState{Badge{b.Class, b.Icon, "Degraded, no incident"}, StateDegraded}, true
	}
	return SourceState{}, false
}

// StateOf works out a source's state: it cannot be read once its failures reached the
// threshold and were announced (archive.SourceInfo.Down); else it has an incident while
// one is open (the worst impact shows), maintenance while one is under way; else it is
// operational, or paused, or not polled yet.
func StateOf(down, paused, retired, polled bool, worst model.Impact, incident, maintenance bool) SourceState {
	switch {
	case retired:
		return SourceState{Badge{"b-muted", "i-archive", "Retired"}, StateRetired}
	case down:
		return SourceState{Badge{"b-down", "i-slash", "Cannot be read"}, StateDown}
	case incident:
		b := ImpactBadge(worst)
		switch worst {
		case model.ImpactCritical, model.ImpactMajor, model.ImpactMinor:
			b.Label += " incident"
		default:
			b = Badge{"b-minor", "i-alert", "Incident"}
		}
		return SourceState{b, StateIncident}
	case maintenance:
		return SourceState{Badge{"b-maint", "i-wrench", "Maintenance"}, StateMaintenance}
	case paused:
		return SourceState{Badge{"b-muted", "i-pause", "Paused"}, StatePaused}
	case !polled:
		return SourceState{Badge{"b-muted", "i-clock", "Not polled yet"}, StatePending}
	}
	return SourceState{Badge{"b-ok", "i-check", "Operational"}, StateOK}
}
