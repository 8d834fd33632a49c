package fetch

// What every platform that publishes component states builds its model.Components with:
// the one rule for a status word the platform's table does not know, and the one way a
// list is tidied (names trimmed, nameless and repeated components dropped, the list
// sorted), so two reads of the same page compare equal on every platform.

import (
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// UnknownComponentStatus is what a component status word no platform table knows maps
// to (the word itself kept in StatusRaw): degraded. A vendor that adds a word ("re-routed",
// "unknown") shows by it that the component is not plainly up, and degraded says so
// without claiming an outage; reading it as operational would hide it, as an outage would
// page someone over a word.
const UnknownComponentStatus = model.ComponentDegraded

// ComponentWords maps a platform's component status words, keyed lower case, to the
// five states.
type ComponentWords map[string]model.ComponentStatus

// Status maps a provider's word (case and surrounding space ignored); a word the table
// does not know, the empty word included, is UnknownComponentStatus.
func (w ComponentWords) Status(raw string) model.ComponentStatus {
	if s, ok := w[strings.ToLower(strings.TrimSpace(raw))]; ok {
		return s
	}
	return UnknownComponentStatus
}

// Component is one component as a platform read it: the status word is mapped with
// words, and kept trimmed as StatusRaw.
func (w ComponentWords) Component(id, name, group, raw string) model.Component {
	return model.Component{
		ID:        strings.TrimSpace(id),
		Name:      strings.TrimSpace(name),
		Group:     strings.TrimSpace(group),
		Status:    w.Status(raw),
		StatusRaw: strings.TrimSpace(raw),
	}
}

// NewComponents makes the component set of one poll: the page status and its sentence
// trimmed, components without a name dropped (there is nothing to show or alert on), a
// component listed twice (by Key) taken once, first wins, and the list in its one order
// (Components.Sort). The list is never nil: a page read with no components has an
// empty set, which is not "not read".
func NewComponents(pageStatus, pageDescription string, list []model.Component) *model.Components {
	cs := &model.Components{
		PageStatus:      strings.TrimSpace(pageStatus),
		PageDescription: strings.TrimSpace(pageDescription),
		List:            make([]model.Component, 0, len(list)),
	}
	seen := make(map[string]bool, len(list))
	for _, c := range list {
		if c.Name == "" || seen[c.Key()] {
			continue
		}
		seen[c.Key()] = true
		cs.List = append(cs.List, c)
	}
	cs.Sort()
	return cs
}
