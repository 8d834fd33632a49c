package fetchtest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

// V2Optional is what the platforms serving the Statuspage v2 JSON (Statuspage,
// incident.io) promise of its optional endpoints, the maintenance list and the summary:
// the incident list alone decides whether the page can be read. A platform's tests run it
// with a page that serves a good poll.
type V2Optional struct {
	// Kind is the platform's kind.
	Kind string
	// Page serves a well-formed poll at the v2 paths: its incident list names the page.
	Page func(*testing.T) *FakePage
}

// The v2 paths of the optional endpoints.
const (
	v2Maintenances = "/api/v2/scheduled-maintenances.json"
	v2Summary      = "/api/v2/summary.json"
)

// Run runs the checks as subtests of t.
func (o V2Optional) Run(t *testing.T) {
	t.Helper()
	t.Run("gone", o.gone)
	t.Run("broken summary", o.brokenSummary)
	t.Run("fails", o.fails)
}

func (o V2Optional) provider(t *testing.T) fetch.Provider {
	t.Helper()
	p, err := fetch.New(o.Kind, MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// gone: a maintenance list or summary answering 404 or 410 is "none":
// the poll succeeds on the incident list, the absence is remembered, and the endpoint is
// asked again only after AbsentRetry.
func (o V2Optional) gone(t *testing.T) {
	for _, tc := range []struct {
		endpoint, path string
		status         int
	}{
		{statuspagev2.EndpointMaintenances, v2Maintenances, 404},
		{statuspagev2.EndpointMaintenances, v2Maintenances, 410},
		{fetch.EndpointSummary, v2Summary, 404},
		{fetch.EndpointSummary, v2Summary, 410},
	} {
		t.Run(tc.endpoint+"/"+strconv.Itoa(tc.status), func(t *testing.T) {
			page := o.Page(t)
			page.Set(tc.path, Route{Status: tc.status, Body: []byte("Not Found")})
			srv := NewServer(t, page)
			p := o.provider(t)
			src := model.Source{Name: "x", URL: srv.URL, Maintenance: true}

			r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: PollNow})
			if err != nil {
				t.Fatalf("first poll: got %v, want the incident list to carry it", err)
			}
			if r1.Snapshot == nil || len(r1.Snapshot.Incidents) == 0 {
				t.Fatalf("first poll: got snapshot %+v, want the incidents", r1.Snapshot)
			}
			if got := r1.State[tc.endpoint]; !got.Absent.Equal(PollNow) || got.Hash != "" {
				t.Errorf("got state %+v, want absent since %v", got, PollNow)
			}
			if tc.endpoint == statuspagev2.EndpointMaintenances {
				for _, l := range r1.Snapshot.Listings {
					if l.Kind == model.KindMaintenance {
						t.Errorf("got a maintenance listing %+v from a page without one", l)
					}
				}
			}
			total := 0
			hits := func() int { // requests() forgets what it returns: keep a count
				for _, r := range page.Requests() {
					if r.Path == tc.path {
						total++
					}
				}
				return total
			}
			if n := hits(); n != 1 {
				t.Fatalf("first poll: got %d requests of %s, want 1", n, tc.path)
			}

			for _, later := range []struct {
				after time.Duration
				want  int
			}{{time.Hour, 1}, {fetch.AbsentRetry - time.Minute, 1}, {fetch.AbsentRetry, 2}} {
				r, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: PollNow.Add(later.after)})
				if err != nil {
					t.Fatalf("%v later: %v", later.after, err)
				}
				if n := hits(); n != later.want {
					t.Errorf("%v later: got %d requests of %s in all, want %d", later.after, n, tc.path, later.want)
				}
				if later.want == 1 && !r.State[tc.endpoint].Equal(r1.State[tc.endpoint]) {
					t.Errorf("%v later: got state %+v, want it kept", later.after, r.State[tc.endpoint])
				}
			}
		})
	}
}

// brokenSummary: the summary gives the page's name and the component states; a broken
// one is kept as evidence and the poll goes on without them (no components read).
func (o V2Optional) brokenSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Route
	}{
		{"html", Route{Body: []byte("<!DOCTYPE html><html>Just a moment...</html>"), ContentType: "text/html"}},
		{"truncated", Route{Body: []byte(`{"page":{"name":"Git`)}},
		{"no page", Route{Body: []byte(`{"status":{}}`)}},
		{"500", Route{Status: 500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := o.Page(t)
			page.Set(v2Summary, tc.r)
			srv := NewServer(t, page)
			src := model.Source{Name: "x", URL: srv.URL, Maintenance: true}
			res, err := o.provider(t).Poll(context.Background(), fetch.Request{Source: src, Now: PollNow})
			if err != nil {
				t.Fatalf("got %v, want the poll to go on without the summary", err)
			}
			if res.Snapshot == nil || len(res.Snapshot.Incidents) == 0 || res.Snapshot.PageTitle == "" {
				t.Fatalf("got snapshot %+v, want the incidents and the list's page name", res.Snapshot)
			}
			if res.Snapshot.Components != nil {
				t.Errorf("got components %+v from a broken summary, want none read", res.Snapshot.Components)
			}
			st, ok := res.State[fetch.EndpointSummary]
			if tc.r.Status == 0 && (!ok || st.Hash == "") {
				t.Errorf("got summary state %+v, want the broken body's hash remembered", st)
			}
			if tc.r.Status != 0 && ok {
				t.Errorf("got summary state %+v after a 500, want none (asked again next time)", st)
			}
		})
	}
}

// fails: a maintenance list that fails for any other reason (a 5xx, a
// bot wall, a truncated body) is left out of the poll, which the incident list alone
// carries: no maintenance listing (so no archived maintenance is missed), and for a
// failed request the remembered state is kept, so the next poll reads it again.
func (o V2Optional) fails(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Route
	}{
		{"500", Route{Status: 500}},
		{"429", Route{Status: 429, RetryAfter: "60"}},
		{"html", Route{Body: []byte("<!DOCTYPE html><html>Just a moment...</html>"), ContentType: "text/html"}},
		{"truncated", Route{Body: []byte(`{"page":{"name":"x"},"scheduled_maintenances":[{"id":`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := o.Page(t)
			page.Set(v2Maintenances, tc.r)
			srv := NewServer(t, page)
			src := model.Source{Name: "x", URL: srv.URL, Maintenance: true}
			prev := model.FetchState{statuspagev2.EndpointMaintenances: {ETag: `"m0"`, Hash: "00"}}
			res, err := o.provider(t).Poll(context.Background(), fetch.Request{Source: src, State: prev, Now: PollNow})
			if err != nil {
				t.Fatalf("got %v, want the poll carried by the incident list", err)
			}
			if res.Snapshot == nil || len(res.Snapshot.Incidents) == 0 {
				t.Fatalf("got snapshot %+v, want the incidents", res.Snapshot)
			}
			for _, l := range res.Snapshot.Listings {
				if l.Kind == model.KindMaintenance {
					t.Errorf("got a maintenance listing %+v from a failed list", l)
				}
			}
			for _, inc := range res.Snapshot.Incidents {
				if inc.Kind == model.KindMaintenance {
					t.Errorf("got maintenance %s without its list", inc.ID)
				}
			}
			if tc.r.Status != 0 && !res.State[statuspagev2.EndpointMaintenances].Equal(prev[statuspagev2.EndpointMaintenances]) {
				t.Errorf("got state %+v, want the remembered one kept", res.State[statuspagev2.EndpointMaintenances])
			}
		})
	}
}
