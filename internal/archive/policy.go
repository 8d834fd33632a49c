package archive

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// This file holds the rules a Record follows: what a new version announces, and what an
// archived incident's absence from an answer means. They are pure functions of what the
// writer read (record.go, misses.go), which applies them: no storage, no clock.

// ErrVanished is returned by Record, which then writes nothing, when a well-formed
// snapshot of a history provider lists no incident of a kind while the archive holds some
// inside that listing's window. That counts as a fetch failure, never as
// "everything was deleted": pages have served empty lists during their own outages.
var ErrVanished = errors.New("incidents vanished from a well-formed answer")

// The first-poll policies of the top-level on_first_poll key.
const (
	FirstPollOpen = "open" // announce incidents still open, archive the rest quietly (default)
	FirstPollNone = "none" // announce nothing
	FirstPollAll  = "all"  // announce everything
)

// Policy is what Record needs to know of a source's notification settings.
type Policy struct {
	// FirstPoll is FirstPollOpen (also when empty), FirstPollNone or FirstPollAll.
	FirstPoll string
	// Pass reports whether an incident passes the source's filters (components,
	// min_impact, maintenance); nil passes everything. It gates messages only: the archive
	// keeps every incident.
	Pass func(inc *model.Incident) bool
}

// check refuses a first-poll policy it does not know.
func (p Policy) check() error {
	switch p.FirstPoll {
	case "", FirstPollOpen, FirstPollNone, FirstPollAll:
		return nil
	}
	return fmt.Errorf("unknown first-poll policy %q", p.FirstPoll)
}

// newVersion is a new version of an incident as the announcement rules see it.
type newVersion struct {
	firstPoll bool            // the source has never been recorded before this Record
	known     bool            // the incident was archived before this Record
	announced bool            // an EventNew message was written for it
	prev      *model.Incident // its latest version so far; nil when !known
	cur       *model.Incident
	changes   []model.Change // prev to cur; empty when !known
}

// announcement is the message a new version gets, if send.
type announcement struct {
	event   model.Event
	catchUp bool // a root message for an incident archived quietly so far
	send    bool
}

// announce says whether a new version gets a message, and which.
func (p Policy) announce(v newVersion) announcement {
	// Filters apply on the first poll too: on_first_poll chooses among the incidents a
	// source would announce, it does not lift min_impact or components.
	pass := p.Pass == nil || p.Pass(v.cur)
	switch {
	case !v.known && v.firstPoll:
		switch p.FirstPoll {
		case FirstPollAll:
			return announcement{event: model.EventNew, send: pass}
		case FirstPollNone:
			return announcement{event: model.EventNew}
		default:
			return announcement{event: model.EventNew, send: pass && v.cur.Open()}
		}
	case !v.known:
		return announcement{event: model.EventNew, send: pass}
	case v.announced:
		// Once a thread is started every later change set is posted, filters or not: an
		// incident downgraded below min_impact, or that dropped a watched component, must
		// still show its resolution in the thread people are reading.
		return announcement{event: eventFor(v.prev, v.cur, v.changes), send: true}
	default:
		// Archived quietly so far (first poll, or below a filter): announce it now if it
		// passes, as a root message with a catch-up of what came before.
		return announcement{event: model.EventNew, catchUp: true, send: pass}
	}
}

// removal is the message of an incident's removal: sent only into the thread of an
// incident that was announced, since no one was told of the others.
func removal(announced bool) announcement {
	return announcement{event: model.EventRemoved, send: announced}
}

// eventFor names a change set of an announced incident by the most important thing it
// says. Closing (resolved, completed, or straight to postmortem) wins over a postmortem
// arriving in the same change set: the change set itself carries the rest.
func eventFor(prev, cur *model.Incident, changes []model.Change) model.Event {
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

// missAction is what an archived incident's absence from a well-formed answer calls for.
type missAction int

const (
	missNone    missAction = iota // nothing: the answer says nothing of it
	missFirst                     // first well-formed poll without it: remember when
	missRemove                    // second in a row, history platform: mark removed
	missResolve                   // second in a row, open-only platform: resolved by inference
)

// missFor is the absence rule for archived incident m, which snap does not list. Only a
// listing that was parsed this time and reaches back to the incident's start says
// anything about it: an endpoint that answered 304, or a window of the 50 newest that it
// fell out of, is no evidence it is gone.
func missFor(snap *model.Snapshot, m *incMeta) missAction {
	if !snap.Covers(m.Kind, m.StartedAt) {
		return missNone
	}
	return absentFrom(snap.OpenOnly, m)
}

// confirmFor is the absence rule for archived incident m after a well-formed poll whose
// bodies were unchanged, so never parsed: the page still says what it said when m was
// first missed, by a listing that covered it, which makes this the second miss in a row.
// An incident not missed before is left alone.
func confirmFor(openOnly bool, m *incMeta) missAction {
	if m.FirstMissed.IsZero() {
		return missNone
	}
	return absentFrom(openOnly, m)
}

// absentFrom is the absence rule for archived incident m, missing from a listing of an
// openOnly (or history) platform that covers it. A removed or migrated incident is out of
// it. A history platform needs two well-formed polls in a row without the incident before
// it is removed; an open-only one stops listing what closed, so only an open incident can
// be missed, and the second miss resolves it.
func absentFrom(openOnly bool, m *incMeta) missAction {
	switch {
	case m.Removed || m.Migrated:
		return missNone
	case openOnly && !m.Open:
		return missNone // closed incidents are simply no longer listed
	case m.FirstMissed.IsZero():
		return missFirst
	case openOnly:
		return missResolve
	default:
		return missRemove
	}
}

// vanished finds a kind of which snap, the well-formed answer of a history platform, lists
// no incident at all while the archive holds some inside that listing's window: absent
// are the archived incidents missFor found missing. That answer counts as a failure, never
// as "everything was deleted": pages have served empty lists during their own outages. An
// open-only platform's empty answer is a healthy page.
func vanished(snap *model.Snapshot, absent []missed) (kind model.Kind, n int, ok bool) {
	if snap.OpenOnly {
		return "", 0, false
	}
	inWindow := map[model.Kind]int{}
	for _, ms := range absent {
		inWindow[ms.meta.Kind]++
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

// inferResolved is prev resolved (maintenance: completed) at the time it was first
// missed, marked inferred. status_raw is cleared: the platform never said that word.
func inferResolved(prev *model.Incident, at time.Time) *model.Incident {
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
