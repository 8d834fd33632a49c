package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/correlate"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// eventsCursor tags the cursors of the event list: the start and id of a page's last
// event.
const eventsCursor = "events"

// related answers GET /api/v1/incidents/{source}/{id}/related: the incidents of other
// sources related to it, each with its reasons, by start; [] for none, 404 for an
// unknown incident.
func (s *Server) related(w http.ResponseWriter, r *http.Request, source, id string) {
	id = model.URLID(id)
	if _, err := s.store.VersionCount(source, id); err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	res, err := s.events.Result()
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	rels := res.Related(source, id)
	out := make([]api.Related, len(rels))
	for i, rel := range rels {
		in := rel.Incident
		out[i] = api.Related{Source: in.Source, ID: in.ID, Title: in.Title, StartedAt: api.Time(in.Start),
			Reasons: rel.Reasons, UIURL: s.uiURL(in.Source, in.ID)}
	}
	writeJSON(w, http.StatusOK, out)
}

// listEvents answers GET /api/v1/events?from=&to=&limit=&before=: the events under way
// at some time between from and to (either may be left out), newest first.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	p, from, to, err := param.SpanPage(r, eventsCursor, 2)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		badRequest(w, "to is before from")
		return
	}
	var after *query.EventKey
	if p.Before != nil {
		t, err := time.Parse(timeLayout, p.Before[0])
		if err != nil {
			badRequest(w, "%v", param.ErrBadCursor)
			return
		}
		after = &query.EventKey{Start: t, ID: p.Before[1]}
	}
	res, err := s.events.Result()
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	evs := query.Events(res, from, to, after, p.Limit+1)
	if len(evs) > p.Limit {
		evs = evs[:p.Limit]
		last := evs[len(evs)-1]
		param.SetNext(w, r, param.Cursor(eventsCursor, last.Start.Format(timeLayout), last.ID))
	}
	out := make([]api.Event, len(evs))
	for i, ev := range evs {
		out[i] = s.eventJSON(ev)
	}
	writeJSON(w, http.StatusOK, out)
}

// event answers GET /api/v1/events/{id}; 404 for an unknown event.
func (s *Server) event(w http.ResponseWriter, r *http.Request) {
	res, err := s.events.Result()
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	ev := res.Event(r.PathValue("id"))
	if ev == nil {
		writeError(w, http.StatusNotFound, "unknown event")
		return
	}
	writeJSON(w, http.StatusOK, s.eventJSON(ev))
}

func (s *Server) eventJSON(ev *correlate.Event) api.Event {
	out := api.Event{
		ID: ev.ID, StartedAt: api.Time(ev.Start), EndedAt: api.Time(ev.End),
		Sources: ev.Sources, Terms: ev.Terms, UIURL: s.baseURL + "/events/" + url.PathEscape(ev.ID),
		Incidents: make([]api.EventIncident, len(ev.Incidents)),
	}
	if out.Terms == nil {
		out.Terms = []string{}
	}
	for i, in := range ev.Incidents {
		out.Incidents[i] = api.EventIncident{Source: in.Source, ID: in.ID, Title: in.Title, StartedAt: api.Time(in.Start), UIURL: s.uiURL(in.Source, in.ID)}
	}
	return out
}
