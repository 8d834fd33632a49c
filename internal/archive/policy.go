package archive

import (
	"fmt"

	"github.com/statuswatch/statuswatch/internal/model"
)

// This file holds the rules a Record follows: what a new version announces, and what an
// archived incident's absence from an answer means. They are pure functions of what the
// writer read (record.go, misses.go), which applies them: no storage, no clock.

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
