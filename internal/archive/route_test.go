package archive

import (
	"slices"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestRouteWritesARowPerReceiver checks that every message is written once per
// receiver the route gives, in the Record's transaction, and that no route writes the
// one row of the default sink, as before receivers existed.
func TestRouteWritesARowPerReceiver(t *testing.T) {
	ts := MustOpen(t)
	var seen []model.Notice
	ts.SetRoute(func(n *model.Notice) []string {
		seen = append(seen, *n)
		if n.Event == model.EventNew {
			return []string{"", "hooks"}
		}
		return []string{"hooks"}
	})
	res := ts.record(snap(at(1), inc("a")), Policy{}, nil)
	if res.Messages != 2 {
		t.Errorf("new: got %d messages, want 2", res.Messages)
	}
	res = ts.record(snap(at(2), inc("a", status(model.StatusResolved))), Policy{}, nil)
	if res.Messages != 1 {
		t.Errorf("resolved: got %d messages, want 1", res.Messages)
	}
	msgs, err := ts.Messages(model.MessagePending)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Event)+"→"+m.Receiver)
	}
	if want := []string{"new→", "new→hooks", "resolved→hooks"}; !slices.Equal(got, want) {
		t.Errorf("got rows %q, want %q", got, want)
	}
	if len(seen) != 2 || seen[0].Incident == nil || seen[0].Incident.Title != "Elevated errors a" || seen[1].Event != model.EventResolved || len(seen[1].Changes) == 0 {
		t.Errorf("the route saw %+v", seen)
	}

	ts.SetRoute(func(*model.Notice) []string { return nil })
	if res := ts.record(snap(at(3), inc("a", status(model.StatusResolved)), inc("b")), Policy{}, nil); res.Messages != 0 || res.Changed != 1 {
		t.Errorf("no receiver: got %+v, want the version archived and no message", res)
	}
	ts.SetRoute(nil)
	if res := ts.record(snap(at(4), inc("a", status(model.StatusResolved)), inc("b"), inc("c")), Policy{}, nil); res.Messages != 1 {
		t.Errorf("no route: got %d messages, want 1", res.Messages)
	}
	msgs, _ = ts.Messages(model.MessagePending)
	if last := msgs[len(msgs)-1]; last.IncidentID != "c" || last.Receiver != "" {
		t.Errorf("no route: got %+v, want c for the default sink", last)
	}
}

// TestRoutePeak checks that a route's min_impact reads the worst impact the incident
// ever had: its resolution, after a downgrade, goes where its alert went.
func TestRoutePeak(t *testing.T) {
	ts := MustOpen(t)
	ts.SetRoute(func(n *model.Notice) []string {
		if n.Incident != nil && n.Peak != nil && n.Peak() == model.ImpactMajor {
			return []string{"oncall"}
		}
		return []string{""}
	})
	ts.record(snap(at(1), inc("a", impact(model.ImpactMajor))), Policy{}, nil)
	ts.record(snap(at(2), inc("a", impact(model.ImpactMinor))), Policy{}, nil)
	ts.record(snap(at(3), inc("a", impact(model.ImpactMinor), status(model.StatusResolved))), Policy{}, nil)
	ts.record(snap(at(4), inc("a", impact(model.ImpactMinor), status(model.StatusResolved)), inc("b", impact(model.ImpactMinor))), Policy{}, nil)
	msgs, err := ts.Messages(model.MessagePending)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Event)+" "+m.IncidentID+"→"+m.Receiver)
	}
	if want := []string{"new a→oncall", "changed a→oncall", "resolved a→oncall", "new b→"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
