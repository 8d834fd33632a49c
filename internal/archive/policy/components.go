package policy

// The rules of a source's component set: what makes a new version, and what a new
// version tells, in which thread (docs/design.md §9).

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// The values of a source's component_changes key.
const (
	ComponentChangesNotify  = "notify"  // tell component changes (default)
	ComponentChangesArchive = "archive" // archive them, tell nothing
)

// checkComponentChanges refuses a component_changes value it does not know.
func checkComponentChanges(mode string) error {
	switch mode {
	case "", ComponentChangesNotify, ComponentChangesArchive:
		return nil
	}
	return fmt.Errorf("unknown component_changes %q", mode)
}

// CanonicalComponents is the form of a page's components the archive compares and
// keeps: a copy, each key once (the first listed wins: two rows of one component in
// one answer would otherwise flip between polls), Since cleared, in Sort's order.
func CanonicalComponents(cs *model.Components) *model.Components {
	out := &model.Components{PageStatus: cs.PageStatus, PageDescription: cs.PageDescription,
		List: make([]model.Component, 0, len(cs.List))}
	seen := make(map[string]bool, len(cs.List))
	for _, c := range cs.List {
		k := c.Key()
		if seen[k] {
			continue
		}
		seen[k] = true
		c.Since = time.Time{}
		out.List = append(out.List, c)
	}
	out.Sort()
	return out
}

// ComponentChanges is the change set from prev to cur, both canonical
// (CanonicalComponents), keyed by model.Component.Key: one change per component whose
// status, name or group changed, that appeared (From "") or that left (To ""), in
// group, name and key order. A change of status_raw alone is none: the five statuses
// are what the archive versions. prev nil is an empty set.
func ComponentChanges(prev, cur *model.Components) []model.ComponentChange {
	before := map[string]model.Component{}
	if prev != nil {
		for _, c := range prev.List {
			before[c.Key()] = c
		}
	}
	var out []model.ComponentChange
	for _, c := range cur.List {
		k := c.Key()
		b, ok := before[k]
		delete(before, k)
		switch {
		case !ok:
			out = append(out, model.ComponentChange{Key: k, Component: c.Name, Group: c.Group, To: c.Status})
		case b.Status != c.Status || b.Name != c.Name || b.Group != c.Group:
			ch := model.ComponentChange{Key: k, Component: c.Name, Group: c.Group, From: b.Status, To: c.Status}
			if b.Name != c.Name {
				ch.NameBefore = b.Name
			}
			if b.Group != c.Group {
				ch.GroupBefore = b.Group
			}
			out = append(out, ch)
		}
	}
	for _, b := range before {
		out = append(out, model.ComponentChange{Key: b.Key(), Component: b.Name, Group: b.Group, From: b.Status})
	}
	slices.SortFunc(out, func(a, b model.ComponentChange) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Component, b.Component), strings.Compare(a.Key, b.Key))
	})
	return out
}

// NewComponentVersion reports whether cur makes a new version after prev: a component
// changed (changes, from ComponentChanges) or the page's status or description did.
func NewComponentVersion(prev, cur *model.Components, changes []model.ComponentChange) bool {
	return prev == nil || len(changes) > 0 || prev.PageStatus != cur.PageStatus || prev.PageDescription != cur.PageDescription
}

// OpenIncident is an archived incident or maintenance open after a poll, as the
// component rules read it.
type OpenIncident struct {
	ID         string // URL id
	Kind       model.Kind
	Status     model.Status
	Impact     model.Impact
	StartedAt  time.Time
	Announced  bool     // its thread was started: a component change can be told there
	Components []string // the component names it lists
	// ScheduledFor and ScheduledUntil are a maintenance's window; zero when not given.
	ScheduledFor, ScheduledUntil time.Time
}

// names reports whether the incident lists component c, by its name.
func (o *OpenIncident) names(c string) bool { return slices.Contains(o.Components, c) }

// MaintenanceGrace widens a scheduled window on either side: vendors flip components to
// maintenance a few minutes before the window they announced, and back a few after.
const MaintenanceGrace = 30 * time.Minute

// inWindow reports whether at is inside o's maintenance window: o is a maintenance in
// progress (or verifying), or one scheduled whose window, widened by MaintenanceGrace,
// holds at. A scheduled maintenance without a start has no window.
func (o *OpenIncident) inWindow(at time.Time) bool {
	if o.Kind != model.KindMaintenance {
		return false
	}
	switch o.Status {
	case model.StatusInProgress, model.StatusVerifying:
		return true
	}
	if o.ScheduledFor.IsZero() || at.Before(o.ScheduledFor.Add(-MaintenanceGrace)) {
		return false
	}
	return o.ScheduledUntil.IsZero() || !at.After(o.ScheduledUntil.Add(MaintenanceGrace))
}

// ComponentVersionIn is a new version of a source's component set as the message rules
// see it.
type ComponentVersionIn struct {
	N       int       // the new version's number
	At      time.Time // its observation time
	First   bool      // the source's first component set: archived quietly
	Cur     *model.Components
	Changes []model.ComponentChange // from the version before (ComponentChanges)
	Alerts  map[string]string       // the version before's (model.ComponentVersion.Alerts)
	Thread  int                     // the root version of the open component thread, 0 when none is
	Open    []OpenIncident          // every incident and maintenance open after this poll
}

// ComponentMessage is one outbox message a new component version calls for: in the
// thread of incident IncidentID, or "" for the component thread.
type ComponentMessage struct {
	Event      model.Event
	IncidentID string
}

// ComponentVersionOut is what the rules decide for a new component version.
type ComponentVersionOut struct {
	Changes  []model.ComponentChange // the input's, with Told and Incident set
	Alerts   map[string]string       // the new version's (model.ComponentVersion.Alerts); nil when empty
	Thread   int                     // the new version's model.ComponentVersion.Thread
	Open     int                     // the root version of the component thread open after it, 0 when none
	Messages []ComponentMessage      // the incidents' threads in id order, then the component thread
}

// ComponentMessages applies the message rules to a new component version:
//
//   - A component getting worse (a new one counts as worse when it is not operational)
//     is told when it is watched (Policy.Watch) or its spell is told already, unless it
//     went to maintenance inside a maintenance window of its own (an open maintenance
//     listing it, in progress or scheduled now), or at all under QuietMaintenance. It
//     is then alerted.
//   - A change of an alerted component that makes it better, back to operational, or
//     takes it off the page is told, watched or not, as an incident's later changes are
//     once its thread is started. Back to operational, or gone, it is no longer alerted.
//     A spell never told is never told to end: maintenance→operational after a quiet
//     window says nothing.
//   - A rename or a group change alone is archived quietly.
//   - The change that starts a told spell goes into the thread of an announced incident
//     open after the poll, or maintenance inside its window, that lists the component
//     by name (incidents before maintenances, then the worst impact, then the latest
//     start, then the id); else into the component thread, which the first such change
//     opens and which closes when no component is alerted in it. Every later change of
//     the spell, its end included, replies in the same thread, whatever opens or closes
//     meanwhile: a root "Actions degraded — no incident posted" must end showing the
//     recovery, and an incident's thread shows the end of the spells it took even after
//     the incident was resolved.
//   - One message per thread per poll: its Event is component_degraded when one of its
//     changes got worse, else component_recovered.
//   - The first set, and every set under component_changes: archive, tell nothing and
//     alert nothing; a recovery still ends a spell there.
func (p Policy) ComponentMessages(in ComponentVersionIn) ComponentVersionOut {
	notify := !in.First && p.ComponentChanges != ComponentChangesArchive
	out := ComponentVersionOut{Changes: slices.Clone(in.Changes)}
	alerts := maps.Clone(in.Alerts)
	if alerts == nil {
		alerts = map[string]string{}
	}
	worse := map[string]bool{} // thread → one of its changes got worse
	told := map[string]bool{}
	var byKey map[string]*model.Component // built for the first change that needs it
	for i := range out.Changes {
		c := &out.Changes[i]
		thread, alerted := alerts[c.Key]
		switch {
		case c.To != "" && c.To.Level() > max(c.From.Level(), 0):
			if !notify {
				continue
			}
			if !alerted && p.Watch != nil {
				if byKey == nil {
					byKey = make(map[string]*model.Component, len(in.Cur.List))
					for j := range in.Cur.List {
						byKey[in.Cur.List[j].Key()] = &in.Cur.List[j]
					}
				}
				if cur := byKey[c.Key]; cur == nil || !p.Watch(*cur) {
					continue
				}
			}
			if c.To == model.ComponentMaintenance && !alerted && (p.QuietMaintenance || maintained(in.Open, c.Component, in.At)) {
				continue
			}
			if !alerted {
				thread = cmp.Or(openFor(in.Open, c.Component, in.At), model.ComponentThread)
			}
			alerts[c.Key] = thread
			worse[thread] = true
		case c.From == c.To || !alerted:
			continue
		default: // better, operational again, or gone
			if c.To == model.ComponentOperational || c.To == "" {
				delete(alerts, c.Key)
			}
			if !notify {
				continue
			}
		}
		c.Told = true
		if thread != model.ComponentThread {
			c.Incident = thread
		}
		told[thread] = true
	}
	for _, th := range slices.Sorted(maps.Keys(told)) {
		if th == model.ComponentThread {
			continue
		}
		out.Messages = append(out.Messages, ComponentMessage{Event: componentEvent(worse[th]), IncidentID: th})
	}
	if told[model.ComponentThread] {
		out.Thread = in.Thread
		if out.Thread == 0 {
			out.Thread = in.N
		}
		out.Messages = append(out.Messages, ComponentMessage{Event: componentEvent(worse[model.ComponentThread])})
	}
	open := in.Thread
	if out.Thread != 0 {
		open = out.Thread
	}
	if !slices.Contains(slices.Collect(maps.Values(alerts)), model.ComponentThread) {
		open = 0
	}
	out.Open = open
	if len(alerts) > 0 {
		out.Alerts = alerts
	}
	return out
}

func componentEvent(worse bool) model.Event {
	if worse {
		return model.EventComponentDegraded
	}
	return model.EventComponentRecovered
}

// maintained reports whether an open maintenance lists the component by name and holds
// at inside its window.
func maintained(open []OpenIncident, name string, at time.Time) bool {
	for i := range open {
		if open[i].names(name) && open[i].inWindow(at) {
			return true
		}
	}
	return false
}

// openFor is the announced open incident whose thread takes a change of the named
// component at at, "" when none lists it: incidents before maintenances (a maintenance
// only inside its window: one scheduled for next week is no thread for today's
// outage), then the worst impact, then the latest start, then the smallest id.
func openFor(open []OpenIncident, name string, at time.Time) string {
	var best *OpenIncident
	for i := range open {
		o := &open[i]
		if !o.Announced || !o.names(name) || o.Kind == model.KindMaintenance && !o.inWindow(at) {
			continue
		}
		if best == nil || better(o, best) {
			best = o
		}
	}
	if best == nil {
		return ""
	}
	return best.ID
}

// better orders the candidates of openFor.
func better(a, b *OpenIncident) bool {
	if (a.Kind == model.KindIncident) != (b.Kind == model.KindIncident) {
		return a.Kind == model.KindIncident
	}
	if a.Impact.Worse(b.Impact) || b.Impact.Worse(a.Impact) {
		return a.Impact.Worse(b.Impact)
	}
	if !a.StartedAt.Equal(b.StartedAt) {
		return a.StartedAt.After(b.StartedAt)
	}
	return a.ID < b.ID
}
