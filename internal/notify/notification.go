package notify

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// notification loads what a sink needs to render m. It returns nil, nil for a root that
// was already posted (its thread is stored).
func (d *Deliverer) notification(m *model.Message, dest Destination) (*Notification, error) {
	n := &Notification{Message: *m, SourceTitle: d.title(m.Source)}
	if IsComponentMessage(m) {
		return d.componentNotification(n, dest)
	}
	if m.IncidentID == "" {
		return n, nil
	}
	v, err := d.Outbox.Version(m.Source, m.IncidentID, m.Version)
	if err != nil {
		return nil, fmt.Errorf("load %s/%s version %d: %w", m.Source, m.IncidentID, m.Version, err)
	}
	n.Version = v
	if d.AlsoAffected != nil {
		n.AlsoAffected = d.AlsoAffected(m.Source, m.IncidentID)
	}
	if base := strings.TrimRight(d.BaseURL, "/"); base != "" {
		n.IncidentLink = fmt.Sprintf("%s/incidents/%s/%s", base, m.Source, m.IncidentID)
		n.Link = fmt.Sprintf("%s/changes/%d", n.IncidentLink, m.Version)
		if m.Event == model.EventRemoved || IsReminder(m) {
			n.Link = n.IncidentLink // a removal or a reminder is no change: the incident page shows it
		}
	}
	if dest.Threads {
		th, err := d.thread(m)
		if err != nil {
			return nil, err
		}
		switch {
		case th != nil && m.Event == model.EventNew:
			return nil, nil
		case th != nil:
			n.Thread = th
		}
	}
	if n.Root() && (m.CatchUp || m.Event != model.EventNew) && m.Version > 1 {
		// A root that comes late (announced late, or a thread whose root was never
		// posted) says what came before it.
		if first, err := d.Outbox.Version(m.Source, m.IncidentID, 1); err == nil {
			n.FirstSeen = first.ObservedAt
		}
	}
	return n, nil
}

// thread returns the incident's thread, nil when it has none.
func (d *Deliverer) thread(m *model.Message) (*Thread, error) {
	st := d.state()
	d.mu.Lock()
	th, ok := st.threads[incidentKey(m)]
	d.mu.Unlock()
	if ok {
		return &th, nil
	}
	ch, ts, err := d.Outbox.Thread(m.Source, m.IncidentID)
	if err != nil {
		return nil, fmt.Errorf("thread of %s/%s: %w", m.Source, m.IncidentID, err)
	}
	if ts == "" {
		return nil, nil
	}
	return &Thread{Channel: ch, TS: ts}, nil
}

// digest builds the notification standing for an item's old messages.
func (d *Deliverer) digest(it *item) *Notification {
	counts := map[string]int{}
	for _, m := range it.digest {
		counts[d.title(m.Source)]++
	}
	dg := &Digest{Count: len(it.digest), MaxAge: d.maxQueueAge(), Link: strings.TrimRight(d.BaseURL, "/")}
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		dg.Sources = append(dg.Sources, SourceCount{Source: s, Count: counts[s]})
	}
	if dg.Link != "" {
		dg.Link += "/"
	}
	// The first message's source routes the digest: every message of the item shares
	// its destination.
	return &Notification{Message: model.Message{Source: it.digest[0].Source}, SourceTitle: d.title(it.digest[0].Source), Digest: dg}
}

func (d *Deliverer) title(source string) string {
	if d.Title != nil {
		if t := d.Title(source); t != "" {
			return t
		}
	}
	return source
}

// flood builds the notification standing for a flood item's messages: their count, and
// the first FloodShown of them by what happened, title and links.
func (d *Deliverer) flood(it *item) *Notification {
	src := it.digest[0].Source
	base := strings.TrimRight(d.BaseURL, "/")
	f := &Flood{Count: len(it.digest)}
	if base != "" {
		f.Link = fmt.Sprintf("%s/sources/%s", base, url.PathEscape(src))
	}
	for i := range it.digest {
		if len(f.Items) == FloodShown {
			break
		}
		m := &it.digest[i]
		v, err := d.Outbox.Version(m.Source, m.IncidentID, m.Version)
		if err != nil {
			continue // named by the count alone
		}
		fi := FloodItem{What: what(*m, &v.Incident), Title: v.Incident.Title, VendorURL: v.Incident.URL}
		if base != "" {
			fi.Link = fmt.Sprintf("%s/incidents/%s/%s", base, m.Source, m.IncidentID)
		}
		f.Items = append(f.Items, fi)
	}
	return &Notification{Message: model.Message{Source: src}, SourceTitle: d.title(src), Flood: f}
}
