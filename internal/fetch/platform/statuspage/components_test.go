package statuspage

import (
	"context"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/model"
)

// TestPollBigPageOneComponent: a page of 300 components (one per data centre) whose one
// component flips without an incident: the poll that sees it reads the summary alone (the
// incidents 304) and gives all 300 states, the one changed; the next gives none.
func TestPollBigPageOneComponent(t *testing.T) {
	page := fakepage.NewComponentPage("CDN", 300)
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{Transport: page.Transport()}))
	if err != nil {
		t.Fatal(err)
	}
	req := fetch.Request{Source: model.Source{Name: "cdn", URL: "http://status.example.com/"}, Now: fetchtest.PollNow}
	r1, err := p.Poll(context.Background(), req)
	if err != nil || r1.Snapshot == nil || r1.Snapshot.Components == nil || len(r1.Snapshot.Components.List) != 300 {
		t.Fatalf("first poll: %v, %+v", err, r1)
	}
	fetchtest.CheckComponents(t, r1.Snapshot.Components)
	page.Requests()

	page.SetComponentStatus(fakepage.DataCentreID(42), "under_maintenance")
	req.State = r1.State
	r2, err := p.Poll(context.Background(), req)
	if err != nil || r2.Snapshot == nil || r2.Snapshot.Components == nil {
		t.Fatalf("one changed: %v, %+v", err, r2)
	}
	if got := page.Requests(); len(got) != 2 || got[0].Status != 304 || got[1].Status != 200 {
		t.Errorf("one changed: got requests %+v, want the incidents 304, the summary 200", got)
	}
	s := r2.Snapshot
	if len(s.Listings) != 0 || s.Components.PageStatus != "maintenance" || len(s.Components.List) != 300 {
		t.Errorf("one changed: got listings %+v, page status %q, %d components", s.Listings, s.Components.PageStatus, len(s.Components.List))
	}
	changed := 0
	for _, c := range s.Components.List {
		if c.Status != model.ComponentOperational {
			changed++
			if c.ID != fakepage.DataCentreID(42) || c.Status != model.ComponentMaintenance || c.StatusRaw != "under_maintenance" || c.Group == "" {
				t.Errorf("got %+v, want data centre 42 in maintenance, in its region", c)
			}
		}
	}
	if changed != 1 {
		t.Errorf("got %d components not operational, want 1", changed)
	}

	req.State = r2.State
	if r3, err := p.Poll(context.Background(), req); err != nil || r3.Snapshot != nil || r3.StateChanged(r2.State) {
		t.Errorf("unchanged: got %v, %+v; want nothing read", err, r3)
	}
}
