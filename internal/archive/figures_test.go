package archive

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// figuresBase is the first poll of the scripted history of recordFigures.
var figuresBase = t0.Add(24 * time.Hour)

// recordFigures records a scripted history of source acme, polled at B, B+10m, …,
// B+40m (B = figuresBase), with known figures:
//
//   - "old": resolved, started ten days before B, on the page at the first poll;
//   - "a": on the page at the first poll (started B−30m); at B+20m its title changes
//     and its first update is reworded; resolved at B+30m (after 1h); at B+40m its
//     impact is lowered major → minor and a postmortem published at B+60m appears;
//   - "b": first seen at B+10m, started at B, first update posted at B+5m; gets a
//     second update at B+20m, which is removed at B+30m while its start is moved back
//     to B−10m (backdated); resolved at B+40m (after 50m);
//   - "d": critical, first seen at B+10m, started at B+2m, resolved at B+20m (after
//     18m), missing from B+30m on, so removed at B+40m;
//   - "e": first seen open at B+40m, started at B+35m, no update;
//   - "m": a maintenance, which counts nowhere;
//   - components: API in major outage from B+10m, partial from B+30m, operational at
//     B+40m (30 minutes of outage); Web degraded from B+30m (not an outage).
func recordFigures(ts *testStore) {
	B := figuresBase
	min := func(n int) time.Time { return B.Add(time.Duration(n) * time.Minute) }
	up := func(id, body string, posted time.Time) model.Update {
		return model.Update{ID: id, Status: model.StatusInvestigating, Body: body, Format: model.FormatText, PostedAt: posted}
	}
	old := inc("old", status(model.StatusResolved), started(B.Add(-240*time.Hour)),
		func(i *model.Incident) { i.ResolvedAt = B.Add(-239 * time.Hour) })
	a := inc("a", impact(model.ImpactMajor), started(min(-30)), func(i *model.Incident) {
		i.Title = "API errors"
		i.Updates = []model.Update{up("a-1", "We are looking into errors.", min(-30))}
	})
	b := inc("b", started(B), func(i *model.Incident) { i.Updates = []model.Update{up("b-1", "Slow logins.", min(5))} })
	d := inc("d", impact(model.ImpactCritical), started(min(2)), func(i *model.Incident) {
		i.Updates = []model.Update{up("d-1", "Down.", min(2))}
	})
	mnt := inc("m", maintenance, func(i *model.Incident) { i.ScheduledFor = min(100) })
	api, web := component("API", cOp), component("Web", cOp)
	poll := func(n int, cs []model.Component, incs ...model.Incident) {
		ts.record(csnap(min(n), cs, incs...), all, nil)
	}
	apiAs := func(s model.ComponentStatus) model.Component { c := api; c.Status = s; return c }
	webAs := func(s model.ComponentStatus) model.Component { c := web; c.Status = s; return c }

	poll(0, []model.Component{api, web}, old, a, mnt)
	poll(10, []model.Component{apiAs(cMajor), web}, old, a, b, d, mnt)

	a.Title = "API errors in eu-west"
	a.Updates[0].Body = "We are looking into elevated errors."
	b.Updates = append(b.Updates, up("b-2", "Still slow.", min(20)))
	d.Status, d.ResolvedAt = model.StatusResolved, min(20)
	poll(20, []model.Component{apiAs(cMajor), web}, old, a, b, d, mnt)

	a.Status, a.ResolvedAt = model.StatusResolved, min(30)
	b.Updates, b.StartedAt = b.Updates[:1], min(-10)
	poll(30, []model.Component{apiAs(model.ComponentPartialOutage), webAs(cDeg)}, old, a, b, mnt)

	a.Impact = model.ImpactMinor
	a.Postmortem = &model.Postmortem{Body: "A bad deploy.", Format: model.FormatText, PublishedAt: min(60)}
	b.Status, b.ResolvedAt = model.StatusResolved, min(40)
	e := inc("e", impact(model.ImpactMajor), started(min(35)), func(i *model.Incident) { i.Updates = nil })
	poll(40, []model.Component{api, web}, old, a, b, e, mnt)
}

// TestFacts reads the facts of the scripted history: each incident's times, and each
// kind of edit where it happened.
func TestFacts(t *testing.T) {
	ts := MustOpen(t)
	recordFigures(ts)
	B := figuresBase
	now := B.Add(2 * time.Hour)
	got, err := ts.Facts("acme", now.Add(-24*time.Hour), now)
	if err != nil || len(got) != 1 {
		t.Fatalf("Facts: %v, %v", got, err)
	}
	f := got[0]
	if !f.HasComponents || f.ComponentOutage != 30*time.Minute {
		t.Errorf("component outage: got %v %v, want true 30m", f.HasComponents, f.ComponentOutage)
	}
	byID := map[string]IncidentFacts{}
	for _, in := range f.Incidents {
		byID[in.ID] = in
	}
	if len(byID) != 4 || byID["old"].ID != "" || byID["m"].ID != "" {
		t.Fatalf("incidents: got %v, want a, b, d, e", byID)
	}
	mins := func(n int) time.Time { return B.Add(time.Duration(n) * time.Minute) }
	want := map[string]IncidentFacts{
		"a": {ID: "a", Impact: model.ImpactMinor, StartedAt: mins(-30), ResolvedAt: mins(30), FirstSeen: B,
			FirstUpdateAt: mins(-30), Postmortem: true, PostmortemAt: mins(60), OnFirstPoll: true,
			UpdatesEdited: 1, TitleChanged: true, ImpactLoweredAfterResolution: true},
		"b": {ID: "b", Impact: model.ImpactMinor, StartedAt: mins(-10), ResolvedAt: mins(40), FirstSeen: mins(10),
			FirstUpdateAt: mins(5), UpdatesRemoved: 1, Backdated: true},
		"d": {ID: "d", Impact: model.ImpactCritical, Removed: true, StartedAt: mins(2), ResolvedAt: mins(20),
			FirstSeen: mins(10), FirstUpdateAt: mins(2)},
		"e": {ID: "e", Impact: model.ImpactMajor, Open: true, StartedAt: mins(35), FirstSeen: mins(40)},
	}
	for id, w := range want {
		if g := byID[id]; g != w {
			t.Errorf("facts of %s:\n got %+v\nwant %+v", id, g, w)
		}
	}

	// Read again, the facts come from the cache, the same; a new version of b is read anew.
	again, err := ts.Facts("acme", now.Add(-24*time.Hour), now)
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("Facts again: got %+v, %v; want %+v", again, err, got)
	}
	vs := ts.versions("b")
	b := vs[len(vs)-1].Incident
	b.Updates[0].Body = "Slow logins for some users."
	ts.record(csnap(mins(50), nil, b), Policy{}, nil)
	again, err = ts.Facts("acme", now.Add(-24*time.Hour), now)
	for _, in := range again[0].Incidents {
		if in.ID == "b" && in.UpdatesEdited != 1 {
			t.Errorf("b after its first update was edited: %+v, %v", in, err)
		}
	}

	// The window: ten days back takes "old" in; an unknown source has no facts.
	got, err = ts.Facts("acme", now.Add(-11*24*time.Hour), now)
	if err != nil || len(got) != 1 || len(got[0].Incidents) != 5 {
		t.Errorf("Facts over 11 days: %d incidents, %v; want 5", len(got[0].Incidents), err)
	}
	if got, err := ts.Facts("nobody", now.Add(-time.Hour), now); err != nil || len(got) != 0 {
		t.Errorf("Facts of an unknown source: %v, %v", got, err)
	}
}

// TestIncidentsAt reads the scripted history as it stood before the first poll,
// between versions, and after the last one.
func TestIncidentsAt(t *testing.T) {
	ts := MustOpen(t)
	recordFigures(ts)
	B := figuresBase
	mins := func(n int) time.Time { return B.Add(time.Duration(n) * time.Minute) }
	type row struct {
		version int
		title   string
		status  model.Status
		removed bool
	}
	tests := []struct {
		name string
		at   time.Time
		want map[string]row
	}{
		{"before the first poll", mins(-1), map[string]row{}},
		{"at the first poll", B, map[string]row{
			"old": {1, "Elevated errors old", model.StatusResolved, false},
			"a":   {1, "API errors", model.StatusInvestigating, false},
			"m":   {1, "Elevated errors m", model.StatusScheduled, false},
		}},
		{"between versions", mins(25), map[string]row{
			"old": {1, "Elevated errors old", model.StatusResolved, false},
			"a":   {2, "API errors in eu-west", model.StatusInvestigating, false},
			"b":   {2, "Elevated errors b", model.StatusInvestigating, false},
			"d":   {2, "Elevated errors d", model.StatusResolved, false},
			"m":   {1, "Elevated errors m", model.StatusScheduled, false},
		}},
		{"after the last poll", mins(90), map[string]row{
			"old": {1, "Elevated errors old", model.StatusResolved, false},
			"a":   {4, "API errors in eu-west", model.StatusResolved, false},
			"b":   {4, "Elevated errors b", model.StatusResolved, false},
			"d":   {2, "Elevated errors d", model.StatusResolved, true},
			"e":   {1, "Elevated errors e", model.StatusInvestigating, false},
			"m":   {1, "Elevated errors m", model.StatusScheduled, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			infos, err := ts.IncidentsAt("acme", tt.at)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]row{}
			for _, in := range infos {
				got[in.ID] = row{in.Versions, in.Latest.Title, in.Latest.Status, in.Removed}
				if in.LastChanged.After(tt.at) {
					t.Errorf("%s: version %d observed at %v, after %v", in.ID, in.Versions, in.LastChanged, tt.at)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("incidents: got %v, want %v", got, tt.want)
			}
			for id, w := range tt.want {
				if got[id] != w {
					t.Errorf("%s: got %+v, want %+v", id, got[id], w)
				}
			}
		})
	}
	// Every source: the same, by source.
	if infos, err := ts.IncidentsAt("", mins(25)); err != nil || len(infos) != 5 {
		t.Errorf("IncidentsAt of every source: %d, %v; want 5", len(infos), err)
	}
}

// factsStore is an archive of one source with n incidents of six versions each (new,
// two updates added, the first edited, a title changed, resolved), polled a minute apart.
func factsStore(b *testing.B, n int) *Store {
	s := benchStore(b)
	incs := make([]model.Incident, n)
	for i := range incs {
		incs[i] = inc(fmt.Sprintf("inc%04d", i), started(t0.Add(-time.Duration(i)*time.Hour)), impact(model.ImpactMajor))
	}
	steps := []func(*model.Incident){
		update("Identified: a bad deploy of the edge configuration."),
		update("Monitoring: error rates are back to normal in every region."),
		func(i *model.Incident) { i.Updates[0].Body = "We are investigating elevated errors." },
		func(i *model.Incident) { i.Title += " in eu-west" },
		func(i *model.Incident) { i.Status, i.ResolvedAt = model.StatusResolved, i.StartedAt.Add(time.Hour) },
	}
	for k := 0; k <= len(steps); k++ {
		if k > 0 {
			for i := range incs {
				steps[k-1](&incs[i])
			}
		}
		if _, err := s.Record("acme", snap(t0.Add(time.Duration(k)*time.Minute), incs...), nil, nil, all); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkFacts reads the facts of 1,000 incidents of six versions, the figures of a
// busy vendor's window: cold, every incident read (the cache emptied each time), and
// warm, the facts remembered and only the metas read.
func BenchmarkFacts(b *testing.B) {
	s := factsStore(b, 1000)
	for _, warm := range []bool{false, true} {
		b.Run(map[bool]string{false: "cold", true: "warm"}[warm], func(b *testing.B) {
			for b.Loop() {
				if !warm {
					s.facts.clear()
				}
				f, err := s.Facts("acme", t0.Add(-90*24*time.Hour), t0.Add(time.Hour))
				if err != nil || len(f) != 1 || len(f[0].Incidents) != 1000 || f[0].Incidents[0].UpdatesEdited != 1 {
					b.Fatalf("Facts: %v", err)
				}
			}
		})
	}
}

// BenchmarkIncidentsAt lists the same 1,000 incidents as they stood between two polls:
// a binary search over each one's version headers and one decode.
func BenchmarkIncidentsAt(b *testing.B) {
	s := factsStore(b, 1000)
	for b.Loop() {
		infos, err := s.IncidentsAt("acme", t0.Add(150*time.Second))
		if err != nil || len(infos) != 1000 || infos[0].Versions != 3 {
			b.Fatalf("IncidentsAt: %d, %v", len(infos), err)
		}
	}
}

// clear forgets every incident's facts.
func (c *factsCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}
