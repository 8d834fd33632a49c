package archive

import (
	"testing"

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
			if err := (Policy{FirstPoll: tt.firstPoll}).check(); (err != nil) != tt.wantErr {
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
	newOne := func(first bool, cur model.Incident) newVersion {
		return newVersion{firstPoll: first, cur: &cur}
	}
	later := func(announced bool, prev, cur model.Incident, changes []model.Change) newVersion {
		return newVersion{known: true, announced: announced, prev: &prev, cur: &cur, changes: changes}
	}
	quiet := func(ev model.Event) announcement { return announcement{event: ev} }
	send := func(ev model.Event) announcement { return announcement{event: ev, send: true} }
	tests := []struct {
		name string
		p    Policy
		v    newVersion
		want announcement
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
			announcement{event: model.EventNew, catchUp: true, send: true}},
		{"never announced: a change below a filter stays quiet", Policy{Pass: onlyMajor}, later(false, minor, minor, upd),
			announcement{event: model.EventNew, catchUp: true}},
		{"never announced: no first-poll policy on later polls", Policy{FirstPoll: FirstPollNone}, later(false, open, resolved, closing),
			announcement{event: model.EventNew, catchUp: true, send: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.announce(tt.v); got != tt.want {
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
			if got := eventFor(&tt.prev, &tt.cur, tt.changes); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
