package web

import (
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// badge is a status, an impact or a source state as pages show it: a colour family, an
// icon and a text label, so that colour is never the only signal.
type badge struct {
	Class string // CSS class of the colour family
	Icon  string // id of a symbol of the layout's icon sprite
	Label string
}

// statusBadge shows an incident's or a maintenance's status. Open statuses are neutral,
// closed ones green and maintenance ones blue: the impact badge carries the severity.
func statusBadge(st model.Status) badge {
	switch st {
	case model.StatusInvestigating:
		return badge{"b-open", "i-search", "Investigating"}
	case model.StatusIdentified:
		return badge{"b-open", "i-target", "Identified"}
	case model.StatusMonitoring:
		return badge{"b-open", "i-eye", "Monitoring"}
	case model.StatusResolved:
		return badge{"b-ok", "i-check", "Resolved"}
	case model.StatusPostmortem:
		return badge{"b-ok", "i-doc", "Postmortem"}
	case model.StatusScheduled:
		return badge{"b-maint", "i-clock", "Scheduled"}
	case model.StatusInProgress:
		return badge{"b-maint", "i-wrench", "In progress"}
	case model.StatusVerifying:
		return badge{"b-maint", "i-eye", "Verifying"}
	case model.StatusCompleted:
		return badge{"b-ok", "i-check", "Completed"}
	}
	return badge{"b-muted", "i-dash", words(string(st), "Unknown status")}
}

// impactBadge shows an impact.
func impactBadge(i model.Impact) badge {
	switch i {
	case model.ImpactCritical:
		return badge{"b-critical", "i-octagon", "Critical"}
	case model.ImpactMajor:
		return badge{"b-major", "i-alert", "Major"}
	case model.ImpactMinor:
		return badge{"b-minor", "i-info", "Minor"}
	case model.ImpactNone:
		return badge{"b-muted", "i-dash", "No impact"}
	case model.ImpactMaintenance:
		return badge{"b-maint", "i-wrench", "Maintenance"}
	}
	return badge{"b-muted", "i-dash", "Impact unknown"}
}

// impactRank orders impacts for sorting, most severe first; unknown ranks with minor,
// since an impact we cannot place must not sink out of sight.
func impactRank(i model.Impact) int {
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
func impactClass(i model.Impact) string { return impactBadge(i).Class }

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
	stateDown = iota
	stateIncident
	stateMaintenance
	stateOK
	statePending
	statePaused
	stateRetired
)

// sourceState is what a source's badge says, and its rank for sorting.
type sourceState struct {
	badge
	Rank int
}

// stateOf works out a source's state: it cannot be read once its failures reached the
// threshold and were announced (archive.SourceInfo.Down); else it has an incident while
// one is open (the worst impact shows), maintenance while one is under way; else it is
// operational, or paused, or not polled yet.
func stateOf(down, paused, retired, polled bool, worst model.Impact, incident, maintenance bool) sourceState {
	switch {
	case retired:
		return sourceState{badge{"b-muted", "i-archive", "Retired"}, stateRetired}
	case down:
		return sourceState{badge{"b-down", "i-slash", "Cannot be read"}, stateDown}
	case incident:
		b := impactBadge(worst)
		switch worst {
		case model.ImpactCritical, model.ImpactMajor, model.ImpactMinor:
			b.Label += " incident"
		default:
			b = badge{"b-minor", "i-alert", "Incident"}
		}
		return sourceState{b, stateIncident}
	case maintenance:
		return sourceState{badge{"b-maint", "i-wrench", "Maintenance"}, stateMaintenance}
	case paused:
		return sourceState{badge{"b-muted", "i-pause", "Paused"}, statePaused}
	case !polled:
		return sourceState{badge{"b-muted", "i-clock", "Not polled yet"}, statePending}
	}
	return sourceState{badge{"b-ok", "i-check", "Operational"}, stateOK}
}
