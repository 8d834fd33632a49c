// Package policy holds the rules an archive Record follows: what a new version of an
// incident announces, what an archived incident's absence from an answer means, and what
// makes and what tells a new version of a source's component set. They
// are pure functions of what the archive read (internal/archive applies them): no
// storage, no clock, so every rule is a row of a table test.
package policy

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// The first-poll policies of the top-level on_first_poll key.
const (
	FirstPollOpen = "open" // announce incidents still open, archive the rest quietly (default)
	FirstPollNone = "none" // announce nothing
	FirstPollAll  = "all"  // announce everything
)

// Policy is what a Record needs to know of a source's notification settings.
type Policy struct {
	// FirstPoll is FirstPollOpen (also when empty), FirstPollNone or FirstPollAll.
	FirstPoll string
	// Pass reports whether an incident passes the source's filters (components,
	// min_impact, maintenance); nil passes everything. It gates messages only: the archive
	// keeps every incident.
	Pass func(inc *model.Incident) bool
	// ComponentChanges is ComponentChangesNotify (also when empty) or
	// ComponentChangesArchive: whether component changes are told (ComponentMessages).
	ComponentChanges string
	// Watch reports whether a component is watched (the source's components list); nil
	// watches every one. Like Pass it gates messages only.
	Watch func(c model.Component) bool
	// QuietMaintenance: a component's flip to maintenance is never told, as for a source
	// that does not read scheduled maintenance (maintenance: false), whose windows the
	// archive cannot know.
	QuietMaintenance bool
}

// Check refuses a first-poll policy or a component_changes value it does not know.
func (p Policy) Check() error {
	switch p.FirstPoll {
	case "", FirstPollOpen, FirstPollNone, FirstPollAll:
		return checkComponentChanges(p.ComponentChanges)
	}
	return fmt.Errorf("unknown first-poll policy %q", p.FirstPoll)
}

// NewVersion is a new version of an incident as the announcement rules see it.
type NewVersion struct {
	FirstPoll bool            // the source has never been recorded before this Record
	Known     bool            // the incident was archived before this Record
	Announced bool            // an EventNew message was written for it
	Prev      *model.Incident // its latest version so far; nil when !Known
	Cur       *model.Incident
	Changes   []model.Change // Prev to Cur; empty when !Known
}

// Announcement is the message a new version gets, if Send.
type Announcement struct {
	Event   model.Event
	CatchUp bool // a root message for an incident archived quietly so far
	Send    bool
}

// Announce says whether a new version gets a message, and which.
func (p Policy) Announce(v NewVersion) Announcement {
	// Filters apply on the first poll too: on_first_poll chooses among the incidents a
	// source would announce, it does not lift min_impact or components.
	pass := p.Pass == nil || p.Pass(v.Cur)
	switch {
	case !v.Known && v.FirstPoll:
		switch p.FirstPoll {
		case FirstPollAll:
			return Announcement{Event: model.EventNew, Send: pass}
		case FirstPollNone:
			return Announcement{Event: model.EventNew}
		default:
			return Announcement{Event: model.EventNew, Send: pass && v.Cur.Open()}
		}
	case !v.Known:
		return Announcement{Event: model.EventNew, Send: pass}
	case v.Announced:
		// Once a thread is started every later change set is posted, filters or not: an
		// incident downgraded below min_impact, or that dropped a watched component, must
		// still show its resolution in the thread people are reading.
		return Announcement{Event: EventFor(v.Prev, v.Cur, v.Changes), Send: true}
	default:
		// Archived quietly so far (first poll, or below a filter): announce it now if it
		// passes, as a root message with a catch-up of what came before.
		return Announcement{Event: model.EventNew, CatchUp: true, Send: pass}
	}
}

// Removal is the message of an incident's removal: sent only into the thread of an
// incident that was announced, since no one was told of the others.
func Removal(announced bool) Announcement {
	return Announcement{Event: model.EventRemoved, Send: announced}
}

// EventFor names a change set of an announced incident by the most important thing it
// says. Closing (resolved, completed, or straight to postmortem) wins over a postmortem
// arriving in the same change set: the change set itself carries the rest.
func EventFor(prev, cur *model.Incident, changes []model.Change) model.Event {
	if prev.Status.Open() && !cur.Status.Open() {
		return model.EventResolved
	}
	for _, c := range changes {
		if c.Field == "postmortem.body" || c.Field == "postmortem.published_at" {
			return model.EventPostmortem
		}
	}
	return model.EventChanged
}

// Miss is what an archived incident's absence from a well-formed answer calls for.
type Miss int

// The misses.
const (
	MissNone    Miss = iota // nothing: the answer says nothing of it
	MissFirst               // first well-formed poll without it: remember when
	MissRemove              // second in a row, history platform: mark removed
	MissResolve             // second in a row, open-only platform: resolved by inference
)

// Archived is what the absence rules read of an archived incident.
type Archived struct {
	Kind        model.Kind
	StartedAt   time.Time // the latest version's start, to test it against a listing's window
	FirstMissed time.Time // when a poll first missed it; zero while it is seen
	Open        bool      // the latest version's status is open
	Removed     bool      // missing from two well-formed polls in a row (history platforms)
	Migrated    bool      // frozen when the page moved to another platform
}

// MissFor is the absence rule for archived incident a, which snap does not list. Only a
// listing that was parsed this time and reaches back to the incident's start says
// anything about it: an endpoint that answered 304, or a window of the 50 newest that it
// fell out of, is no evidence it is gone.
func MissFor(snap *model.Snapshot, a *Archived) Miss {
	if !snap.Covers(a.Kind, a.StartedAt) {
		return MissNone
	}
	return absentFrom(snap.OpenOnly, a)
}

// ConfirmFor is the absence rule for archived incident a after a well-formed poll whose
// bodies were unchanged, so never parsed: the page still says what it said when a was
// first missed, by a listing that covered it, which makes this the second miss in a row.
// An incident not missed before is left alone.
func ConfirmFor(openOnly bool, a *Archived) Miss {
	if a.FirstMissed.IsZero() {
		return MissNone
	}
	return absentFrom(openOnly, a)
}

// absentFrom is the absence rule for archived incident a, missing from a listing of an
// openOnly (or history) platform that covers it. A removed or migrated incident is out of
// it. A history platform needs two well-formed polls in a row without the incident before
// it is removed; an open-only one stops listing what closed, so only an open incident can
// be missed, and the second miss resolves it.
func absentFrom(openOnly bool, a *Archived) Miss {
	switch {
	case a.Removed || a.Migrated:
		return MissNone
	case openOnly && !a.Open:
		return MissNone // closed incidents are simply no longer listed
	case a.FirstMissed.IsZero():
		return MissFirst
	case openOnly:
		return MissResolve
	default:
		return MissRemove
	}
}

// Vanished finds a kind of which snap, the well-formed answer of a history platform, lists
// no incident at all while the archive holds some inside that listing's window: absent
// are the kinds of the archived incidents MissFor found missing, one per incident. That
// answer counts as a failure, never as "everything was deleted": pages have served empty
// lists during their own outages. An open-only platform's empty answer is a healthy page.
func Vanished(snap *model.Snapshot, absent []model.Kind) (kind model.Kind, n int, ok bool) {
	if snap.OpenOnly {
		return "", 0, false
	}
	inWindow := map[model.Kind]int{}
	for _, k := range absent {
		inWindow[k]++
	}
	for _, kind := range slices.Sorted(maps.Keys(inWindow)) {
		if !lists(snap, kind) {
			return kind, inWindow[kind], true
		}
	}
	return "", 0, false
}

// lists reports whether snap lists an incident of kind.
func lists(snap *model.Snapshot, kind model.Kind) bool {
	for i := range snap.Incidents {
		if snap.Incidents[i].Kind == kind {
			return true
		}
	}
	return false
}

// InferResolved is prev resolved (maintenance: completed) at the time it was first
// missed, marked inferred. status_raw is cleared: the platform never said that word.
func InferResolved(prev *model.Incident, at time.Time) *model.Incident {
	cur := *prev
	cur.Status = model.StatusResolved
	if cur.Kind == model.KindMaintenance {
		cur.Status = model.StatusCompleted
	}
	cur.StatusRaw = ""
	cur.ResolvedAt = at
	cur.ResolvedInferred = true
	return &cur
}
