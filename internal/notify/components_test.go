package notify_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// comp is a component of the acme page.
func comp(name string, s model.ComponentStatus) model.Component {
	return model.Component{ID: "c-" + name, Name: name, Status: s}
}

// pollComponents records a snapshot of source showing comps beside incs, a minute
// after the clock's time, which it moves there.
func (e *env) pollComponents(source string, comps []model.Component, incs ...model.Incident) {
	e.t.Helper()
	e.clock.advance(time.Minute)
	snap := &model.Snapshot{Source: source, FetchedAt: e.clock.Now(),
		Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs,
		Components: &model.Components{List: comps}}
	if _, err := e.store.Record(source, snap, nil, nil, archive.Policy{FirstPoll: archive.FirstPollAll}); err != nil {
		e.t.Fatalf("Record(%s): %v", source, err)
	}
}

// TestComponentConsole: a component's life without an incident, on the console: the
// first worsening opens with the root line, the later change and the recovery say
// themselves.
func TestComponentConsole(t *testing.T) {
	e := newEnv(t, nil)
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	web := comp("Web", model.ComponentOperational)
	steps := []struct {
		actions model.ComponentStatus
		after   time.Duration
		want    string
	}{
		{model.ComponentOperational, 0, ""}, // the first set is archived quietly
		{model.ComponentDegraded, 0, "== Acme: Actions degraded — no incident posted\n" +
			"- Actions: operational → degraded\n" +
			"Components: https://watch.example.com/sources/acme\n\n"},
		{model.ComponentMajorOutage, 10 * time.Minute, "== Acme · Actions: degraded → major outage\n" +
			"Components: https://watch.example.com/sources/acme\n\n"},
		{model.ComponentOperational, 11 * time.Minute, "== Acme · Actions operational again after 23m\n" +
			"Components: https://watch.example.com/sources/acme\n\n"},
	}
	for i, st := range steps {
		e.clock.advance(st.after)
		e.pollComponents("acme", []model.Component{comp("Actions", st.actions), web})
		if _, _, err := e.drain(d); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != st.want {
			t.Errorf("step %d: got\n%s\nwant\n%s", i, got, st.want)
		}
		out.Reset()
	}
}

// bigPage is a page of n components named dc-001…, all in status s but the first k,
// which are in status first.
func bigPage(n, k int, first, s model.ComponentStatus) []model.Component {
	out := make([]model.Component, n)
	for i := range out {
		st := s
		if i < k {
			st = first
		}
		out[i] = comp(fmt.Sprintf("dc-%03d", i+1), st)
	}
	return out
}

// TestComponentNoiseConsole: a poll that changes more than 10 components of a
// 300-component page says one summary line per status.
func TestComponentNoiseConsole(t *testing.T) {
	e := newEnv(t, nil)
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	op := model.ComponentOperational
	e.pollComponents("acme", bigPage(300, 0, op, op))
	page := bigPage(300, 14, model.ComponentMaintenance, op)
	page[299].Status = model.ComponentMajorOutage
	e.pollComponents("acme", page)
	e.drain(d)
	want := "== Acme: dc-300 in major outage, dc-001 under maintenance, dc-002 under maintenance and 12 more — no incident posted\n" +
		"- 1 component in major outage: dc-300\n" +
		"- 14 components under maintenance: dc-001, dc-002, dc-003, dc-004, dc-005, and 9 more\n" +
		"Components: https://watch.example.com/sources/acme\n\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if n := strings.Count(out.String(), "\n"); n > 5 {
		t.Errorf("%d lines", n)
	}
}
