package fetchtest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Contract is what every platform promises, whatever its format: a well-formed poll
// gives a snapshot of well-formed incidents, and of well-formed component states when the
// platform publishes them (Platform.Components); the same bodies again give no snapshot,
// so no component states, and no error (nothing is parsed twice); and an HTML error page, an empty answer or a body
// cut short on its main endpoint is a failed poll (payload.ErrMalformed), never a healthy
// page. A platform's tests run it with the routes of one good poll.
type Contract struct {
	// Kind is the platform's kind.
	Kind string
	// Source is the source polled, for a page whose server is at base (no trailing slash).
	Source func(base string) model.Source
	// Routes are the paths and answers of one well-formed poll.
	Routes map[string]Route
	// Main is the path of the endpoint without which there is no snapshot: its malformed
	// answers must fail the poll.
	Main string
	// Now is the poll's time; zero means PollNow.
	Now time.Time
}

// Run runs the contract's checks as subtests of t.
func (c Contract) Run(t *testing.T) {
	t.Helper()
	now := c.Now
	if now.IsZero() {
		now = PollNow
	}
	poll := func(t *testing.T, routes map[string]Route, state model.FetchState) (*fetch.Result, error) {
		t.Helper()
		page := NewFakePage()
		for p, r := range routes {
			page.Set(p, r)
		}
		srv := NewServer(t, page)
		p, err := fetch.New(c.Kind, MustClient(t, fetch.ClientOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		src := c.Source(srv.URL)
		src.Kind = c.Kind
		return p.Poll(context.Background(), fetch.Request{Source: src, State: state, Now: now})
	}

	t.Run("well-formed", func(t *testing.T) {
		r1, err := poll(t, c.Routes, nil)
		if err != nil {
			t.Fatalf("first poll: got %v, want no error", err)
		}
		if r1.Snapshot == nil {
			t.Fatal("first poll: got no snapshot")
		}
		CheckIncidents(t, r1.Snapshot.Incidents)
		for _, inc := range r1.Snapshot.Incidents {
			CheckIncident(t, inc)
		}
		// A platform that publishes component states reads them on a page's first poll;
		// one that publishes none never says it read any.
		if pf, _ := fetch.Lookup(c.Kind); pf.Components != "" {
			if r1.Snapshot.Components == nil {
				t.Errorf("first poll: got no component states, want those of %s", pf.Components)
			}
			CheckComponents(t, r1.Snapshot.Components)
		} else if r1.Snapshot.Components != nil {
			t.Errorf("first poll: got component states %+v from a platform that publishes none", r1.Snapshot.Components)
		}
		if r1.Requests == 0 || len(r1.Bodies) == 0 || len(r1.State) == 0 {
			t.Errorf("first poll: got %d requests, %d bodies, state %v; want each", r1.Requests, len(r1.Bodies), r1.State)
		}
		// The same bytes again: nothing to parse, no snapshot (so no component states:
		// an unchanged answer says nothing new of them), no error.
		r2, err := poll(t, c.Routes, r1.State)
		if err != nil || r2.Snapshot != nil {
			t.Fatalf("unchanged poll: got snapshot %v, error %v; want none", r2.Snapshot != nil, err)
		}
		for _, b := range r2.Bodies {
			if b.Data != nil {
				t.Errorf("unchanged poll: endpoint %s kept its body again", b.Endpoint)
			}
		}
	})

	main, ok := c.Routes[c.Main]
	if !ok {
		t.Fatalf("contract: main path %q is none of the routes %v", c.Main, slices.Sorted(maps.Keys(c.Routes)))
	}
	cut := main.Body[:len(main.Body)/2]
	for _, tc := range []struct {
		name string
		r    Route
	}{
		{"HTML error page", Route{Body: []byte("<!DOCTYPE html><html><body>Down for maintenance</body></html>"), ContentType: "text/html"}},
		{"empty answer", Route{Body: []byte{}, ContentType: main.ContentType}},
		{"white space", Route{Body: []byte(" \r\n\t"), ContentType: main.ContentType}},
		{"cut short", Route{Body: cut, ContentType: main.ContentType}},
	} {
		t.Run("malformed/"+tc.name, func(t *testing.T) {
			routes := maps.Clone(c.Routes)
			routes[c.Main] = tc.r
			res, err := poll(t, routes, nil)
			if !errors.Is(err, payload.ErrMalformed) {
				t.Fatalf("got %v, want payload.ErrMalformed", err)
			}
			if res == nil || res.Snapshot != nil || res.Requests == 0 {
				t.Errorf("got result %+v, want only the requests counted", res)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") {
				t.Errorf("error %q holds a line break", msg)
			}
		})
	}
}
