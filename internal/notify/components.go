package notify

// Component messages: a source's component changes of one poll, told in the thread of
// the incident that took them or in the source's component thread ("<Vendor>: Actions
// degraded — no incident posted"), and the text every sink shares for them
// (docs/design.md §9). The archive decides what is told and where
// (model.ComponentChange.Told and Incident); this file only says it.

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The bounds of a component message.
const (
	// ComponentLinesMax is how many changes a message tells one line each; past it, one
	// summary line per status: a page of hundreds of data centres flipping to
	// maintenance together is one short message, not hundreds of lines.
	ComponentLinesMax = 10
	// componentsNamed is how many components a summary line names.
	componentsNamed = 5
	// rootNamed is how many components the component thread's root names.
	rootNamed = 3
	// componentNameLimit cuts a vendor's component name, in runes.
	componentNameLimit = 100
)

// IsComponentMessage reports whether m tells component changes.
func IsComponentMessage(m *model.Message) bool {
	return m.Event == model.EventComponentDegraded || m.Event == model.EventComponentRecovered
}

// Told is what n's thread is told of its component version: the changes told with n's
// IncidentID.
func (n *Notification) Told() []model.ComponentChange {
	if n.Components == nil {
		return nil
	}
	return n.Components.ToldIn(n.Message.IncidentID)
}

// ComponentOpens reports whether n is posted as the root of the source's component
// thread: a message of that thread whose version opened it, or, for a sink that threads
// (threaded), any of its messages with no posted root to reply to (the root went to a
// webhook, into a digest, or was parked), which then starts the thread.
func (n *Notification) ComponentOpens(threaded bool) bool {
	v := n.Components
	if v == nil || n.Message.IncidentID != "" || v.Thread == 0 || n.Thread != nil {
		return false
	}
	return v.Thread == v.N || threaded
}

// ComponentWord is a component status as a change line says it: "operational",
// "maintenance", "degraded", "partial outage", "major outage".
func ComponentWord(s model.ComponentStatus) string { return strings.ReplaceAll(string(s), "_", " ") }

// ComponentState is a component status after a component's name: "Actions degraded",
// "Actions under maintenance", "Actions in major outage".
func ComponentState(s model.ComponentStatus) string {
	switch s {
	case model.ComponentMaintenance:
		return "under maintenance"
	case model.ComponentPartialOutage, model.ComponentMajorOutage:
		return "in " + ComponentWord(s)
	}
	return ComponentWord(s)
}

// ComponentName is a vendor's component name on one line, cut at componentNameLimit
// runes. Sinks still escape it.
func ComponentName(name string) string {
	s := strings.Join(strings.Fields(name), " ")
	if utf8.RuneCountInString(s) <= componentNameLimit {
		return s
	}
	return string([]rune(s)[:componentNameLimit-1]) + "…"
}

// ComponentLine is one change as a message tells it: "Actions: operational →
// degraded", "Actions operational again after 23m", "Actions: new on the page,
// degraded", "Actions: no longer on the page (was degraded)".
func ComponentLine(v *model.ComponentVersion, c model.ComponentChange) string {
	name := ComponentName(c.Component)
	switch {
	case c.From == "":
		return fmt.Sprintf("%s: new on the page, %s", name, ComponentWord(c.To))
	case c.To == "":
		return fmt.Sprintf("%s: no longer on the page (was %s)", name, ComponentWord(c.From))
	case c.Recovered() && !c.DownSince.IsZero():
		return fmt.Sprintf("%s operational again after %s", name, diff.FormatDuration(v.ObservedAt.Sub(c.DownSince)))
	case c.Recovered():
		return name + " operational again"
	}
	return fmt.Sprintf("%s: %s → %s", name, ComponentWord(c.From), ComponentWord(c.To))
}

// ComponentLines are the lines of a component message: one per change told, or past
// ComponentLinesMax changes one per status they went to, worst first ("14 components
// under maintenance: A, B, C, D, E, and 9 more").
func ComponentLines(v *model.ComponentVersion, told []model.ComponentChange) []string {
	if len(told) <= ComponentLinesMax {
		out := make([]string, len(told))
		for i, c := range told {
			out[i] = ComponentLine(v, c)
		}
		return out
	}
	// Groups by where the components went: a status, back to operational, or off the
	// page; worst first.
	type group struct {
		rank  int
		what  string
		names []string
	}
	groups := map[string]*group{}
	for _, c := range told {
		var g group
		switch {
		case c.To == "":
			g = group{rank: -2, what: "no longer on the page"}
		case c.To == model.ComponentOperational:
			g = group{rank: -1, what: "operational again"}
		default:
			g = group{rank: c.To.Level(), what: ComponentState(c.To)}
		}
		if groups[g.what] == nil {
			groups[g.what] = &g
		}
		groups[g.what].names = append(groups[g.what].names, ComponentName(c.Component))
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *group) int { return cmp.Compare(b.rank, a.rank) })
	out := make([]string, len(list))
	for i, g := range list {
		noun := "components"
		if len(g.names) == 1 {
			noun = "component"
		}
		out[i] = fmt.Sprintf("%d %s %s: %s", len(g.names), noun, g.what, nameList(g.names, componentsNamed, ", and"))
	}
	return out
}

// nameList names the first shown of names, then how many more: "A, B, C, and 9 more"
// (sep ", and") or "A, B and 2 more" (sep " and").
func nameList(names []string, shown int, sep string) string {
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s%s %d more", strings.Join(names[:shown], ", "), sep, len(names)-shown)
}

// ComponentRootLine is the component thread's root as it stands at version v:
// "GitHub: " and its ComponentRootState.
func ComponentRootLine(sourceTitle string, v *model.ComponentVersion) string {
	return sourceTitle + ": " + ComponentRootState(v)
}

// ComponentRootState is what the component thread's root says at version v: the
// components alerted there and their state ("Actions degraded, Pages in major outage
// and 2 more — no incident posted"), or, once none is, that they are back ("all
// components operational again" when the page shows every component operational, else
// "the components of this thread are operational again").
func ComponentRootState(v *model.ComponentVersion) string {
	alerted := v.AlertedIn(model.ComponentThread)
	if len(alerted) == 0 {
		for _, c := range v.Components.List {
			if c.Status != model.ComponentOperational {
				return "the components of this thread are operational again"
			}
		}
		return "all components operational again"
	}
	// Worst first, then in the page's order.
	slices.SortStableFunc(alerted, func(a, b model.Component) int { return cmp.Compare(b.Status.Level(), a.Status.Level()) })
	names := make([]string, len(alerted))
	for i, c := range alerted {
		names[i] = ComponentName(c.Name) + " " + ComponentState(c.Status)
	}
	return nameList(names, rootNamed, " and") + " — no incident posted"
}

// ComponentRootWorst is the worst status among the components alerted in the
// component thread at version v; operational when none is.
func ComponentRootWorst(v *model.ComponentVersion) model.ComponentStatus {
	worst := model.ComponentOperational
	for _, c := range v.AlertedIn(model.ComponentThread) {
		if c.Status.Worse(worst) {
			worst = c.Status
		}
	}
	return worst
}

// ComponentHeadline is the one-line title of a component message: the root line when
// it opens the component thread (threaded as for ComponentOpens), else its one line
// ("GitHub · Actions: operational → degraded", "GitHub · 15 components operational
// again: …"), or "GitHub · 3 component changes" over several.
func ComponentHeadline(n *Notification, threaded bool) string {
	if n.ComponentOpens(threaded) {
		return ComponentRootLine(n.SourceTitle, n.Components)
	}
	told := n.Told()
	if lines := ComponentLines(n.Components, told); len(lines) == 1 {
		return n.SourceTitle + " · " + lines[0]
	}
	return fmt.Sprintf("%s · %d component changes", n.SourceTitle, len(told))
}

// ComponentWorst is the worst status the changes told went to: operational when every
// one of them is back or left the page.
func ComponentWorst(told []model.ComponentChange) model.ComponentStatus {
	worst := model.ComponentOperational
	for _, c := range told {
		if c.To.Worse(worst) {
			worst = c.To
		}
	}
	return worst
}

// componentNotification fills n, a component message, with its component version, the
// source's page, the incident whose thread takes it, and the thread to reply in. It
// returns nil, nil for a component thread's root that was posted already.
func (d *Deliverer) componentNotification(n *Notification, dest Destination) (*Notification, error) {
	m := &n.Message
	v, err := d.Outbox.ComponentVersion(m.Source, m.Version)
	if err != nil {
		return nil, fmt.Errorf("load %s component version %d: %w", m.Source, m.Version, err)
	}
	n.Components = v
	if base := strings.TrimRight(d.BaseURL, "/"); base != "" {
		n.SourceLink = fmt.Sprintf("%s/sources/%s", base, url.PathEscape(m.Source))
	}
	if m.IncidentID != "" {
		// Named where no thread shows it: a webhook, or a root never posted.
		if inc, err := d.Outbox.Latest(m.Source, m.IncidentID); err == nil && inc != nil {
			n.IncidentTitle = inc.Title
		}
		if dest.Threads {
			if n.Thread, err = d.thread(m); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	if !dest.Threads || v.Thread == 0 {
		return n, nil
	}
	th, root, err := d.componentThread(m.Source)
	if err != nil {
		return nil, err
	}
	switch {
	case th == nil || root != v.Thread:
		// Its thread's root was never posted: this message starts it.
	case v.Thread == v.N:
		return nil, nil
	default:
		n.Thread = th
	}
	return n, nil
}

// componentThread returns the source's component thread and the component version
// whose message is its root; nil when none was posted.
func (d *Deliverer) componentThread(source string) (*Thread, int, error) {
	st := d.state()
	d.mu.Lock()
	ct, ok := st.componentThreads[source]
	d.mu.Unlock()
	if ok {
		return &ct.Thread, ct.version, nil
	}
	ch, ts, version, err := d.Outbox.ComponentThread(source)
	if err != nil {
		return nil, 0, fmt.Errorf("component thread of %s: %w", source, err)
	}
	if ts == "" {
		return nil, 0, nil
	}
	return &Thread{Channel: ch, TS: ts}, version, nil
}

// componentThreadRoot is a component thread posted by this process: a fallback for when
// SetComponentThread failed, so that its replies still find it.
type componentThreadRoot struct {
	Thread
	version int
}

// rememberComponentThread records the root n just posted as the source's component
// thread.
func (d *Deliverer) rememberComponentThread(n *Notification, rcpt Receipt, res *cycleResult) {
	st := d.state()
	m := &n.Message
	root := componentThreadRoot{Thread: Thread{Channel: rcpt.Channel, TS: rcpt.TS}, version: n.Components.Thread}
	d.mu.Lock()
	st.componentThreads[m.Source] = root
	d.mu.Unlock()
	if err := d.Outbox.SetComponentThread(m.Source, root.version, root.Channel, root.TS); err != nil {
		res.errs = append(res.errs, fmt.Errorf("message %d: remember component thread: %w", m.ID, err))
	}
}
