package archive

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// component is a component of group "Core" with the provider's word for its status.
func component(name string, s model.ComponentStatus) model.Component {
	return model.Component{ID: "c-" + name, Name: name, Group: "Core", Status: s, StatusRaw: "raw " + string(s)}
}

// csnap is snap(t, incs...) with a component set.
func csnap(t time.Time, cs []model.Component, incs ...model.Incident) *model.Snapshot {
	s := snap(t, incs...)
	s.Components = &model.Components{PageStatus: "none", List: cs}
	return s
}

// componentMessages returns the pending messages as "event incident version" and marks
// them sent.
func (ts *testStore) componentMessages() []string {
	ts.tb.Helper()
	var out []string
	for _, m := range ts.messages(model.MessagePending) {
		out = append(out, fmt.Sprintf("%s %s %d", m.Event, m.IncidentID, m.Version))
		if err := ts.MarkSent(m.ID); err != nil {
			ts.tb.Fatal(err)
		}
	}
	return out
}

func (ts *testStore) componentsLatest() *model.ComponentVersion {
	ts.tb.Helper()
	v, err := ts.ComponentsLatest("acme")
	if err != nil || v == nil {
		ts.tb.Fatalf("ComponentsLatest: %v, %v", v, err)
	}
	return v
}

const (
	cOp    = model.ComponentOperational
	cMaint = model.ComponentMaintenance
	cDeg   = model.ComponentDegraded
	cMajor = model.ComponentMajorOutage
)

// A component's life without an incident: first set quiet, degraded opens the
// component thread, worse and back reply in it, and the next spell opens a new one.
func TestComponentLife(t *testing.T) {
	ts := MustOpen(t)
	web := component("Web", cOp)
	res := ts.record(csnap(at(1), []model.Component{component("API", cMajor), web}), Policy{}, nil)
	if res.Components != 1 || res.Messages != 0 {
		t.Errorf("first set: got %+v, want version 1 and no message", res)
	}
	v := ts.componentsLatest()
	if v.N != 1 || len(v.Changes) != 0 || v.Thread != 0 || len(v.Alerts) != 0 || !v.Components.List[0].Since.Equal(at(1)) {
		t.Errorf("version 1: got %+v", v)
	}

	// Unchanged: another order, another status_raw, another page order: nothing written.
	before := ts.fileState()
	other := component("API", cMajor)
	other.StatusRaw = "red"
	res = ts.record(csnap(at(2), []model.Component{web, other}), Policy{}, nil)
	if res != (Result{}) {
		t.Errorf("unchanged: got %+v", res)
	}
	ts.assertNoWrite(before)
	// No component set read this poll: the set stays as it is.
	ts.record(snap(at(2)), Policy{}, nil)
	ts.assertNoWrite(before)

	steps := []struct {
		at     time.Time
		api    model.ComponentStatus
		msgs   []string
		thread int
	}{
		{at(3), cOp, nil, 0}, // a spell never told ends quietly
		{at(4), cDeg, []string{"component_degraded  3"}, 3},
		{at(5), cMajor, []string{"component_degraded  4"}, 3},
		{at(6), cOp, []string{"component_recovered  5"}, 3},
		{at(7), cDeg, []string{"component_degraded  6"}, 6},
	}
	for i, st := range steps {
		res := ts.record(csnap(st.at, []model.Component{component("API", st.api), web}), Policy{}, nil)
		if res.Components != i+2 {
			t.Errorf("step %d: got version %d, want %d", i, res.Components, i+2)
		}
		if got := ts.componentMessages(); !slices.Equal(got, st.msgs) {
			t.Errorf("step %d: messages: got %q, want %q", i, got, st.msgs)
		}
		if v := ts.componentsLatest(); v.Thread != st.thread {
			t.Errorf("step %d: thread: got %d, want %d", i, v.Thread, st.thread)
		}
	}
	v5, err := ts.ComponentVersion("acme", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := model.ComponentChange{Key: "id:c-API", Component: "API", Group: "Core", From: cMajor, To: cOp, DownSince: at(4), Told: true}
	if len(v5.Changes) != 1 || !reflect.DeepEqual(v5.Changes[0], want) {
		t.Errorf("version 5's changes: got %+v, want %+v", v5.Changes, want)
	}
	if len(v5.Alerts) != 0 {
		t.Errorf("version 5's alerts: got %v, want none", v5.Alerts)
	}
	v6 := ts.componentsLatest()
	if api, _ := v6.Components.Find("id:c-API"); !api.Since.Equal(at(7)) {
		t.Errorf("API since: got %v, want %v", api.Since, at(7))
	}
	if w, _ := v6.Components.Find("id:c-Web"); !w.Since.Equal(at(1)) {
		t.Errorf("Web since: got %v, want %v", w.Since, at(1))
	}
	if v6.Alerts["id:c-API"] != model.ComponentThread {
		t.Errorf("alerts: got %v", v6.Alerts)
	}
	if _, err := ts.ComponentVersion("acme", 9); !errors.Is(err, ErrNotFound) {
		t.Errorf("ComponentVersion(9): got %v, want ErrNotFound", err)
	}
}

// A recovery's DownSince is when the component left operational, not its last change.
func TestComponentDownSinceSpansBadStatuses(t *testing.T) {
	ts := MustOpen(t)
	ts.record(csnap(at(1), []model.Component{component("API", cOp)}), Policy{}, nil)
	ts.record(csnap(at(2), []model.Component{component("API", cDeg)}), Policy{}, nil)
	ts.record(csnap(at(3), []model.Component{component("API", cMajor)}), Policy{}, nil)
	ts.record(csnap(at(4), []model.Component{component("API", cDeg)}), Policy{}, nil)
	ts.record(csnap(at(5), []model.Component{component("API", cOp)}), Policy{}, nil)
	v := ts.componentsLatest()
	if len(v.Changes) != 1 || !v.Changes[0].DownSince.Equal(at(2)) {
		t.Errorf("changes: got %+v, want down since %v", v.Changes, at(2))
	}
}

// A change to a component named by an incident open in the same poll goes into that
// incident's thread, after the incident's own announcement; its recovery follows it
// there once the incident closed.
func TestComponentChangeFoldsIntoIncident(t *testing.T) {
	ts := MustOpen(t)
	ts.record(csnap(at(1), []model.Component{component("API", cOp), component("Web", cOp)}), all, nil)
	a := inc("a1") // lists "API"
	ts.record(csnap(at(2), []model.Component{component("API", cDeg), component("Web", cDeg)}, a), all, nil)
	if got, want := ts.componentMessages(), []string{"new a1 1", "component_degraded a1 2", "component_degraded  2"}; !slices.Equal(got, want) {
		t.Errorf("messages: got %q, want %q", got, want)
	}
	v := ts.componentsLatest()
	if v.Changes[0].Incident != "a1" || v.Changes[1].Incident != "" || !v.Changes[0].Told || !v.Changes[1].Told || v.Thread != 2 {
		t.Errorf("version 2: got %+v", v)
	}
	resolved := inc("a1", status(model.StatusResolved))
	ts.record(csnap(at(3), []model.Component{component("API", cDeg), component("Web", cDeg)}, resolved), all, nil)
	ts.componentMessages()
	ts.record(csnap(at(4), []model.Component{component("API", cOp), component("Web", cOp)}, resolved), all, nil)
	if got, want := ts.componentMessages(), []string{"component_recovered a1 3", "component_recovered  3"}; !slices.Equal(got, want) {
		t.Errorf("recovery: got %q, want %q", got, want)
	}
}

// A maintenance flip inside the component's maintenance window is archived quietly;
// outside it, it is told.
func TestComponentMaintenanceWindow(t *testing.T) {
	ts := MustOpen(t)
	m := inc("m1", maintenance, status(model.StatusInProgress))
	m.Components = []string{"API"}
	s := func(n int, st model.ComponentStatus) *model.Snapshot {
		s := csnap(at(n), []model.Component{component("API", st), component("Web", st)}, m)
		s.Listings = append(s.Listings, model.Listing{Kind: model.KindMaintenance})
		return s
	}
	ts.record(s(1, cOp), all, nil)
	ts.componentMessages()
	res := ts.record(s(2, cMaint), all, nil)
	if res.Components != 2 {
		t.Errorf("got %+v, want version 2", res)
	}
	if got, want := ts.componentMessages(), []string{"component_degraded  2"}; !slices.Equal(got, want) {
		t.Errorf("messages: got %q, want %q (Web only, outside any window of its own)", got, want)
	}
	v := ts.componentsLatest()
	if v.Changes[0].Told || !v.Changes[1].Told {
		t.Errorf("told: got %+v, want API quiet and Web told", v.Changes)
	}
	ts.record(s(3, cOp), all, nil)
	if got, want := ts.componentMessages(), []string{"component_recovered  3"}; !slices.Equal(got, want) {
		t.Errorf("end of window: got %q, want %q", got, want)
	}
}

// component_changes: archive versions the set and sends nothing; the components filter
// limits what is told; the page status alone makes a version and no message.
func TestComponentPolicies(t *testing.T) {
	ts := MustOpen(t)
	list := func(api, web model.ComponentStatus) []model.Component {
		return []model.Component{component("API", api), component("Web", web)}
	}
	archiveOnly := Policy{ComponentChanges: ComponentChangesArchive}
	ts.record(csnap(at(1), list(cOp, cOp)), archiveOnly, nil)
	if res := ts.record(csnap(at(2), list(cMajor, cOp)), archiveOnly, nil); res.Components != 2 || res.Messages != 0 {
		t.Errorf("archive: got %+v, want version 2 and no message", res)
	}
	onlyWeb := Policy{Watch: func(c model.Component) bool { return c.Name == "Web" }}
	if res := ts.record(csnap(at(3), list(cDeg, cOp)), onlyWeb, nil); res.Components != 3 || res.Messages != 0 {
		t.Errorf("unwatched: got %+v, want version 3 and no message", res)
	}
	if res := ts.record(csnap(at(4), list(cDeg, cDeg)), onlyWeb, nil); res.Messages != 1 {
		t.Errorf("watched: got %+v, want one message", res)
	}
	s := csnap(at(5), list(cDeg, cDeg))
	s.Components.PageStatus, s.Components.PageDescription = "minor", "Partial System Outage"
	if res := ts.record(s, Policy{}, nil); res.Components != 5 || res.Messages != 0 {
		t.Errorf("page status: got %+v, want version 5 and no message", res)
	}
	if v := ts.componentsLatest(); v.Components.PageDescription != "Partial System Outage" || len(v.Changes) != 0 {
		t.Errorf("page status: got %+v", v.Components)
	}
	sums, err := ts.ComponentSummaries()
	want := ComponentSummary{Version: 5, ObservedAt: at(5), Components: 2, NotOperational: 2, Worst: cDeg,
		PageStatus: "minor", PageDescription: "Partial System Outage"}
	if err != nil || len(sums) != 1 || sums["acme"] != want {
		t.Errorf("ComponentSummaries: got %+v, %v; want acme: %+v", sums, err, want)
	}
	if _, err := ts.Record("acme", s, nil, nil, Policy{ComponentChanges: "loud"}); err == nil {
		t.Error("unknown component_changes: no error")
	}
}

// The set at a time, the versions and the history, on a page of 300 components of
// which a poll changes one, or twenty: one message either way.
func TestComponentReads(t *testing.T) {
	ts := MustOpen(t)
	page := func(bad int, st model.ComponentStatus) []model.Component {
		cs := make([]model.Component, 300)
		for i := range cs {
			cs[i] = component(fmt.Sprintf("dc-%03d", i), cOp)
			if i < bad {
				cs[i].Status = st
			}
		}
		return cs
	}
	ts.record(csnap(at(1), page(0, cOp)), Policy{}, nil)
	ts.record(csnap(at(2), page(1, cDeg)), Policy{}, nil)
	if res := ts.record(csnap(at(3), page(20, cMajor)), Policy{}, nil); res.Messages != 1 {
		t.Errorf("twenty changes: got %+v, want one message", res)
	}
	ts.record(csnap(at(4), page(0, cOp)), Policy{}, nil)

	for _, tt := range []struct {
		t    time.Time
		want int // version, 0 for none
	}{{at(0), 0}, {at(1), 1}, {at(2).Add(time.Second), 2}, {at(3), 3}, {at(9), 4}} {
		v, err := ts.ComponentsAt("acme", tt.t)
		got := 0
		if v != nil {
			got = v.N
		}
		if err != nil || got != tt.want {
			t.Errorf("ComponentsAt(%v): got %d, %v; want %d", tt.t, got, err, tt.want)
		}
	}
	if v, _ := ts.ComponentsAt("acme", at(3)); len(v.Components.List) != 300 || v.Components.List[0].Status != cMajor {
		t.Errorf("set at 3: got %d components", len(v.Components.List))
	}
	vs, err := ts.ComponentVersions("acme")
	if err != nil || len(vs) != 4 || len(vs[2].Changes) != 20 || !vs[3].ObservedAt.Equal(at(4)) {
		t.Errorf("ComponentVersions: got %d, %v", len(vs), err)
	}

	h, more, err := ts.ComponentHistory("acme", time.Time{}, time.Time{}, 0)
	if err != nil || more || len(h) != 1+20+20 {
		t.Fatalf("history: got %d entries, more %v, %v; want 41", len(h), more, err)
	}
	if first := h[0]; first.Component != "dc-000" || first.From != cOp || first.To != cDeg || !first.At.Equal(at(2)) || first.Version != 2 {
		t.Errorf("first entry: got %+v", first)
	}
	if !slices.IsSortedFunc(h, func(a, b ComponentEvent) int { return a.At.Compare(b.At) }) {
		t.Error("history not oldest first")
	}
	h, _, _ = ts.ComponentHistory("acme", at(3), at(4), 0)
	if len(h) != 20 || !h[0].At.Equal(at(3)) {
		t.Errorf("history [3, 4): got %d entries", len(h))
	}
	h, more, _ = ts.ComponentHistory("acme", at(2), time.Time{}, 5)
	if len(h) != 5 || !more {
		t.Errorf("history limit 5: got %d, more %v", len(h), more)
	}
	for _, src := range []string{"nope"} {
		if v, err := ts.ComponentsLatest(src); v != nil || err != nil {
			t.Errorf("ComponentsLatest(%s): got %v, %v", src, v, err)
		}
		if h, _, err := ts.ComponentHistory(src, time.Time{}, time.Time{}, 0); len(h) != 0 || err != nil {
			t.Errorf("ComponentHistory(%s): got %v, %v", src, h, err)
		}
		if vs, err := ts.ComponentVersions(src); len(vs) != 0 || err != nil {
			t.Errorf("ComponentVersions(%s): got %v, %v", src, vs, err)
		}
	}
}

// The component thread's root is stored with its version; a reply in it owes the root
// an update, which RootEdits returns and ClearRootEdit (with no incident) settles.
func TestComponentThread(t *testing.T) {
	ts := MustOpen(t)
	ts.record(csnap(at(1), []model.Component{component("API", cOp)}), Policy{}, nil)
	ts.record(csnap(at(2), []model.Component{component("API", cDeg)}), Policy{}, nil)
	ts.record(csnap(at(3), []model.Component{component("API", cMajor)}), Policy{}, nil)
	ms := ts.messages(model.MessagePending)
	if len(ms) != 2 {
		t.Fatalf("messages: got %d, want 2", len(ms))
	}
	if err := ts.SetComponentThread("acme", 9, "C1", "1.1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetComponentThread(9): got %v, want ErrNotFound", err)
	}
	if err := ts.MarkSent(ms[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := ts.SetComponentThread("acme", 2, "C1", "1.1"); err != nil {
		t.Fatal(err)
	}
	ch, tsv, n, err := ts.ComponentThread("acme")
	if err != nil || ch != "C1" || tsv != "1.1" || n != 2 {
		t.Errorf("ComponentThread: got %s %s %d, %v", ch, tsv, n, err)
	}
	if err := ts.MarkReplySent(ms[1].ID); err != nil {
		t.Fatal(err)
	}
	owed, err := ts.RootEdits()
	if err != nil || len(owed) != 1 || owed[0].ID != ms[1].ID {
		t.Fatalf("RootEdits: got %+v, %v", owed, err)
	}
	if err := ts.ClearRootEdit("acme", "", ms[1].ID); err != nil {
		t.Fatal(err)
	}
	if owed, _ := ts.RootEdits(); len(owed) != 0 {
		t.Errorf("RootEdits after clear: got %+v", owed)
	}
	if ch, _, _, err := ts.ComponentThread("other"); ch != "" || err != nil {
		t.Errorf("ComponentThread(other): got %q, %v", ch, err)
	}
}

// After the page moved to another platform, the new platform's first set is taken in
// quietly.
func TestComponentsAfterMigration(t *testing.T) {
	ts := MustOpen(t)
	ts.record(csnap(at(1), []model.Component{component("API", cOp)}), Policy{}, nil)
	if _, err := ts.Migrate("acme", "instatus", at(2)); err != nil {
		t.Fatal(err)
	}
	moved := []model.Component{{ID: "new-1", Name: "API", Status: cMajor}}
	if res := ts.record(csnap(at(3), moved), Policy{}, nil); res.Components != 2 || res.Messages != 0 {
		t.Errorf("first set on the new platform: got %+v, want version 2 and no message", res)
	}
	if res := ts.record(csnap(at(4), []model.Component{{ID: "new-1", Name: "API", Status: cOp}}), Policy{}, nil); res.Components != 3 || res.Messages != 0 {
		t.Errorf("its recovery, never told: got %+v", res)
	}
	if res := ts.record(csnap(at(5), []model.Component{{ID: "new-1", Name: "API", Status: cDeg}}), Policy{}, nil); res.Messages != 1 {
		t.Errorf("then a degradation: got %+v, want one message", res)
	}
}

// A poll that read no component set (nil Components) leaves the set alone, whatever
// else it records, and so does one that read an empty set after a set with components;
// an empty first set is versioned.
func TestComponentsNotRead(t *testing.T) {
	ts := MustOpen(t)
	ts.record(csnap(at(1), []model.Component{component("API", cDeg)}, inc("a1")), all, nil)
	res := ts.record(snap(at(2), inc("a1", status(model.StatusResolved))), all, nil)
	if res.Changed != 1 || res.Components != 0 {
		t.Errorf("got %+v, want an incident version and no component version", res)
	}
	if v := ts.componentsLatest(); v.N != 1 || len(v.Components.List) != 1 {
		t.Errorf("set: got %+v", v)
	}
	before := ts.fileState()
	ts.record(csnap(at(3), nil, inc("a1", status(model.StatusResolved))), all, nil)
	ts.assertNoWrite(before)

	ts2 := MustOpen(t)
	if res := ts2.record(csnap(at(1), nil), all, nil); res.Components != 1 {
		t.Errorf("empty first set: got %+v, want version 1", res)
	}
}
