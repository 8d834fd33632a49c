package ui

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/correlate"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// eventsShown caps the events the events page lists, newest first; relationsShown the
// pairs an event page explains, so that a page stays small however large the event.
const (
	eventsShown    = 100
	relationsShown = 200
)

// eventsView is the events page's view.
type eventsView struct {
	Events []eventRow
	Total  int
}

// eventRow is one event in a list.
type eventRow struct {
	URL, Name      string
	Started, Ended view.Stamp
	Open           bool
	Duration       string
	Terms          []string
	Incidents      int
}

// eventView is an event page's view.
type eventView struct {
	eventRow
	Line      view.EventLine
	Members   []eventIncident // its incidents, by start
	Relations []eventRelation
	More      int // relations not shown
}

type eventIncident struct {
	SourceTitle, SourceURL, Title, URL string
	Started, Ended                     view.Stamp
	Open                               bool
}

// eventRelation is one pair of related incidents of an event, with its reasons.
type eventRelation struct {
	A, B    eventIncident
	Reasons []string
}

// relatedView is the incident page's Related panel.
type relatedView struct {
	Items []relatedItem
	Event *eventRow // the event the incident belongs to
}

type relatedItem struct {
	SourceTitle, SourceURL, Title, URL string
	Started                            view.Stamp
	Reasons                            []string
}

// Events answers GET /events: the cross-vendor events, newest first (the newest
// eventsShown of them).
func (s *Site) Events(w http.ResponseWriter, r *http.Request) {
	var v eventsView
	if s.events != nil {
		res, err := s.events.Result()
		if err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
		all := res.Events()
		v.Total = len(all)
		for _, ev := range query.Events(res, time.Time{}, time.Time{}, nil, eventsShown) {
			v.Events = append(v.Events, s.eventRow(ev))
		}
	}
	s.render(w, r, http.StatusOK, "events", &pageData{Title: "Events", Nav: "events", JSON: s.prefix + "/api/v1/events", Data: v})
}

// Event answers GET /events/{id}: an event's time-line, its incidents and why they are
// grouped; 404 for an unknown event.
func (s *Site) Event(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var ev *correlate.Event
	var res *correlate.Result
	if s.events != nil {
		var err error
		if res, err = s.events.Result(); err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
		ev = res.Event(id)
	}
	if ev == nil {
		s.Error(w, r, http.StatusNotFound, "Not found", "No event "+id+" is in the archive. Events are worked out from the incidents as they are now: one whose incidents are no longer related is gone.")
		return
	}
	v := eventView{eventRow: s.eventRow(ev), Line: view.NewEventLine(ev, s.now(), s.title, s.paths)}
	pos := map[correlate.Ref]int{}
	for i, in := range ev.Incidents {
		pos[correlate.Ref{Source: in.Source, ID: in.ID}] = i
		v.Members = append(v.Members, s.eventIncident(in))
	}
	for i, in := range ev.Incidents {
		for _, rel := range res.Related(in.Source, in.ID) {
			j, ok := pos[correlate.Ref{Source: rel.Incident.Source, ID: rel.Incident.ID}]
			switch {
			case !ok || j <= i: // each pair once
			case len(v.Relations) == relationsShown:
				v.More++
			default:
				v.Relations = append(v.Relations, eventRelation{A: v.Members[i], B: v.Members[j], Reasons: rel.Reasons})
			}
		}
	}
	s.render(w, r, http.StatusOK, "event", &pageData{
		Title:   v.Name + " · Events",
		Nav:     "events",
		JSON:    s.prefix + "/api/v1/events/" + url.PathEscape(ev.ID),
		Refresh: refreshFor(v.Open),
		Crumbs:  []crumb{{"Events", s.prefix + "/events"}},
		Data:    v,
	})
}

// related is the Related panel of an incident: nil when it has no related incident.
func (s *Site) related(source, id string) *relatedView {
	if s.events == nil {
		return nil
	}
	res, err := s.events.Result()
	if err != nil {
		s.log.Error("related incidents", "source", source, "id", id, "err", err)
		return nil
	}
	rels := res.Related(source, id)
	if len(rels) == 0 {
		return nil
	}
	v := &relatedView{}
	for _, rel := range rels {
		in := rel.Incident
		v.Items = append(v.Items, relatedItem{
			SourceTitle: s.title(in.Source), SourceURL: s.paths.Source(in.Source), Title: in.Title,
			URL: s.paths.Incident(in.Source, in.ID), Started: s.stamp(in.Start), Reasons: rel.Reasons,
		})
	}
	if ev := res.EventOf(source, id); ev != nil {
		row := s.eventRow(ev)
		v.Event = &row
	}
	return v
}

func (s *Site) eventRow(ev *correlate.Event) eventRow {
	titles := make([]string, len(ev.Sources))
	for i, src := range ev.Sources {
		titles[i] = s.title(src)
	}
	slices.Sort(titles)
	end := ev.End
	if end.IsZero() {
		end = s.now()
	}
	return eventRow{
		URL: s.prefix + "/events/" + url.PathEscape(ev.ID), Name: names(titles),
		Started: s.stamp(ev.Start), Ended: s.stamp(ev.End), Open: ev.End.IsZero(),
		Duration: correlate.Duration(end.Sub(ev.Start)), Terms: ev.Terms, Incidents: len(ev.Incidents),
	}
}

func (s *Site) eventIncident(in *correlate.Incident) eventIncident {
	e := eventIncident{
		SourceTitle: s.title(in.Source), SourceURL: s.paths.Source(in.Source), Title: in.Title,
		URL: s.paths.Incident(in.Source, in.ID), Started: s.stamp(in.Start), Open: in.Open,
	}
	if !in.Open {
		e.Ended = s.stamp(in.End)
	}
	return e
}

// names joins names as a sentence does: "AWS", "AWS and Vercel", "AWS, Netlify and
// Vercel".
func names(ns []string) string {
	switch len(ns) {
	case 0:
		return ""
	case 1:
		return ns[0]
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}
