package policy

import (
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestPolicyCheck(t *testing.T) {
	tests := []struct {
		firstPoll string
		wantErr   bool
	}{
		{"", false}, {FirstPollOpen, false}, {FirstPollNone, false}, {FirstPollAll, false},
		{"everything", true}, {"Open", true},
	}
	for _, tt := range tests {
		t.Run(tt.firstPoll, func(t *testing.T) {
			if err := (Policy{FirstPoll: tt.firstPoll}).Check(); (err != nil) != tt.wantErr {
				t.Errorf("got %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestAnnounce(t *testing.T) {
	open, resolved := inc("a"), inc("a", status(model.StatusResolved))
	minor, major := inc("a", impact(model.ImpactMinor)), inc("a", impact(model.ImpactMajor))
	upd := []model.Change{{Field: "updates[x]"}}
	closing := []model.Change{{Field: "status"}}
	onlyMajor := minImpact(model.ImpactMajor)
	newOne := func(first bool, cur model.Incident) NewVersion {
		return NewVersion{FirstPoll: first, Cur: &cur}
	}
	later := func(announced bool, prev, cur model.Incident, changes []model.Change) NewVersion {
		return NewVersion{Known: true, Announced: announced, Prev: &prev, Cur: &cur, Changes: changes}
	}
	quiet := func(ev model.Event) Announcement { return Announcement{Event: ev} }
	send := func(ev model.Event) Announcement { return Announcement{Event: ev, Send: true} }
	tests := []struct {
		name string
		p    Policy
		v    NewVersion
		want Announcement
	}{
		{"first poll open: an open incident is announced", Policy{}, newOne(true, open), send(model.EventNew)},
		{"first poll open: a closed incident is archived quietly", Policy{FirstPoll: FirstPollOpen}, newOne(true, resolved), quiet(model.EventNew)},
		{"first poll none: nothing is announced", Policy{FirstPoll: FirstPollNone}, newOne(true, open), quiet(model.EventNew)},
		{"first poll all: a closed incident is announced", Policy{FirstPoll: FirstPollAll}, newOne(true, resolved), send(model.EventNew)},
		{"first poll all: filters still apply", Policy{FirstPoll: FirstPollAll, Pass: onlyMajor}, newOne(true, minor), quiet(model.EventNew)},
		{"first poll open: filters still apply", Policy{Pass: onlyMajor}, newOne(true, minor), quiet(model.EventNew)},
		{"first poll open: an open incident that passes is announced", Policy{Pass: onlyMajor}, newOne(true, major), send(model.EventNew)},
		{"later poll: a new incident is announced", Policy{FirstPoll: FirstPollNone}, newOne(false, resolved), send(model.EventNew)},
		{"later poll: a new incident below a filter is archived quietly", Policy{Pass: onlyMajor}, newOne(false, minor), quiet(model.EventNew)},
		{"announced: every change set is posted", Policy{}, later(true, open, open, upd), send(model.EventChanged)},
		{"announced: a change set is posted below a filter", Policy{Pass: onlyMajor}, later(true, major, minor, upd), send(model.EventChanged)},
		{"announced: a closing change set is a resolution", Policy{}, later(true, open, resolved, closing), send(model.EventResolved)},
		{"never announced: a change that passes is a catch-up", Policy{Pass: onlyMajor}, later(false, minor, major, upd),
			Announcement{Event: model.EventNew, CatchUp: true, Send: true}},
		{"never announced: a change below a filter stays quiet", Policy{Pass: onlyMajor}, later(false, minor, minor, upd),
			Announcement{Event: model.EventNew, CatchUp: true}},
		{"never announced: no first-poll policy on later polls", Policy{FirstPoll: FirstPollNone}, later(false, open, resolved, closing),
			Announcement{Event: model.EventNew, CatchUp: true, Send: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Announce(tt.v); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRemoval(t *testing.T) {
	tests := []struct {
		name      string
		announced bool
		want      Announcement
	}{
		{"an announced incident's removal is posted in its thread", true, Announcement{Event: model.EventRemoved, Send: true}},
		{"a quiet incident's removal stays quiet", false, Announcement{Event: model.EventRemoved}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Removal(tt.announced); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEventFor(t *testing.T) {
	open, resolved := inc("a"), inc("a", status(model.StatusResolved))
	pm := inc("a", status(model.StatusPostmortem))
	ch := func(fields ...string) []model.Change {
		var out []model.Change
		for _, f := range fields {
			out = append(out, model.Change{Field: f})
		}
		return out
	}
	tests := []struct {
		name      string
		prev, cur model.Incident
		changes   []model.Change
		want      model.Event
	}{
		{"resolved", open, resolved, ch("status"), model.EventResolved},
		{"straight to postmortem", open, pm, ch("status", "postmortem.body"), model.EventResolved},
		{"postmortem published", resolved, resolved, ch("postmortem.body", "postmortem.published_at"), model.EventPostmortem},
		{"postmortem date only", resolved, resolved, ch("postmortem.published_at"), model.EventPostmortem},
		{"update", open, open, ch("updates[x]"), model.EventChanged},
		{"reopened", resolved, open, ch("status"), model.EventChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EventFor(&tt.prev, &tt.cur, tt.changes); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMissFor(t *testing.T) {
	missed := t0.Add(-time.Minute)
	history := func(listings ...model.Listing) *model.Snapshot { return &model.Snapshot{Listings: listings} }
	openOnly := func(listings ...model.Listing) *model.Snapshot {
		return &model.Snapshot{OpenOnly: true, Listings: listings}
	}
	all := model.Listing{Kind: model.KindIncident}
	since := func(t time.Time) model.Listing { return model.Listing{Kind: model.KindIncident, Since: t} }
	meta := func(opts ...func(*Archived)) *Archived {
		m := &Archived{Kind: model.KindIncident, StartedAt: t0, Open: true}
		for _, o := range opts {
			o(m)
		}
		return m
	}
	missedOnce := func(m *Archived) { m.FirstMissed = missed }
	closed := func(m *Archived) { m.Open = false }
	tests := []struct {
		name string
		snap *model.Snapshot
		m    *Archived
		want Miss
	}{
		{"history: the first miss is remembered", history(all), meta(), MissFirst},
		{"history: a closed incident missed once is remembered", history(all), meta(closed), MissFirst},
		{"history: the second miss in a row removes", history(all), meta(missedOnce), MissRemove},
		{"history: a closed incident missed twice is removed", history(all), meta(closed, missedOnce), MissRemove},
		{"open-only: the first miss of an open incident is remembered", openOnly(all), meta(), MissFirst},
		{"open-only: the second miss in a row resolves", openOnly(all), meta(missedOnce), MissResolve},
		{"open-only: a closed incident is simply no longer listed", openOnly(all), meta(closed), MissNone},
		{"open-only: a closed incident missed before is left alone", openOnly(all), meta(closed, missedOnce), MissNone},
		{"no listing of its kind says nothing", history(model.Listing{Kind: model.KindMaintenance}), meta(missedOnce), MissNone},
		{"no listing at all says nothing (304)", history(), meta(), MissNone},
		{"a window it fell out of says nothing", history(since(t0.Add(time.Hour))), meta(missedOnce), MissNone},
		{"a window that reaches back to its start counts", history(since(t0)), meta(missedOnce), MissRemove},
		{"an incident without a start counts in any window", history(since(t0)), meta(func(m *Archived) { m.StartedAt = time.Time{} }), MissFirst},
		{"a removed incident is out of it", history(all), meta(missedOnce, func(m *Archived) { m.Removed = true }), MissNone},
		{"a migrated incident is out of it", history(all), meta(func(m *Archived) { m.Migrated = true }), MissNone},
		{"a migrated open-only incident is out of it", openOnly(all), meta(missedOnce, func(m *Archived) { m.Migrated = true }), MissNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MissFor(tt.snap, tt.m); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// ConfirmMisses' rule: an unchanged answer after a first miss is the second miss in a row.
func TestConfirmFor(t *testing.T) {
	once := t0.Add(-time.Minute)
	tests := []struct {
		name     string
		openOnly bool
		m        Archived
		want     Miss
	}{
		{"history: missed once, now removed", false, Archived{FirstMissed: once, Open: true}, MissRemove},
		{"history: a closed incident missed once is removed", false, Archived{FirstMissed: once}, MissRemove},
		{"open-only: missed once, now resolved", true, Archived{FirstMissed: once, Open: true}, MissResolve},
		{"open-only: a closed incident is left alone", true, Archived{FirstMissed: once}, MissNone},
		{"never missed: left alone", false, Archived{Open: true}, MissNone},
		{"never missed, open-only: left alone", true, Archived{Open: true}, MissNone},
		{"removed already: left alone", false, Archived{FirstMissed: once, Removed: true}, MissNone},
		{"migrated: left alone", true, Archived{FirstMissed: once, Open: true, Migrated: true}, MissNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ConfirmFor(tt.openOnly, &tt.m); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// An answer lacking every archived incident of a kind inside its window is a failure.
func TestVanished(t *testing.T) {
	absent := func(kinds ...model.Kind) []model.Kind { return kinds }
	listing := func(openOnly bool, incs ...model.Incident) *model.Snapshot {
		return &model.Snapshot{OpenOnly: openOnly, Incidents: incs}
	}
	maint := inc("m", maintenance)
	tests := []struct {
		name     string
		snap     *model.Snapshot
		absent   []model.Kind
		wantKind model.Kind
		wantN    int
		wantOK   bool
	}{
		{"nothing absent is no failure", listing(false), nil, "", 0, false},
		{"an empty answer with archived incidents in its window is a failure", listing(false),
			absent(model.KindIncident, model.KindIncident), model.KindIncident, 2, true},
		{"an answer that still lists one of the kind is no failure", listing(false, inc("a")),
			absent(model.KindIncident, model.KindIncident), "", 0, false},
		{"an incident of another kind does not save a kind", listing(false, maint),
			absent(model.KindIncident), model.KindIncident, 1, true},
		{"each kind is judged alone", listing(false, inc("a")),
			absent(model.KindIncident, model.KindMaintenance), model.KindMaintenance, 1, true},
		{"an open-only platform's empty answer is a healthy page", listing(true),
			absent(model.KindIncident), "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, n, ok := Vanished(tt.snap, tt.absent)
			if kind != tt.wantKind || n != tt.wantN || ok != tt.wantOK {
				t.Errorf("got %q, %d, %v; want %q, %d, %v", kind, n, ok, tt.wantKind, tt.wantN, tt.wantOK)
			}
		})
	}
}

// Open-only platforms resolve an absent incident by inference at the first miss's time.
func TestInferResolved(t *testing.T) {
	firstMissed := t0.Add(time.Hour)
	raw := func(i *model.Incident) { i.StatusRaw = "investigating" }
	tests := []struct {
		name       string
		prev       model.Incident
		wantStatus model.Status
	}{
		{"an incident is resolved", inc("a", raw), model.StatusResolved},
		{"a maintenance is completed", inc("m", maintenance, raw), model.StatusCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := tt.prev
			got := InferResolved(&prev, firstMissed)
			if got.Status != tt.wantStatus || !got.ResolvedAt.Equal(firstMissed) || !got.ResolvedInferred || got.StatusRaw != "" {
				t.Errorf("got status %s, resolved_at %s, inferred %v, status_raw %q; want %s, %s, true, empty",
					got.Status, got.ResolvedAt, got.ResolvedInferred, got.StatusRaw, tt.wantStatus, firstMissed)
			}
			if prev.Status != tt.prev.Status || prev.ResolvedInferred {
				t.Errorf("prev changed: status %s, inferred %v", prev.Status, prev.ResolvedInferred)
			}
		})
	}
}
