package daemon

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
)

// woken reports whether delivery was woken since the last look, and forgets it.
func woken(d *Daemon) bool {
	select {
	case <-d.wake:
		return true
	default:
		return false
	}
}

// A recovery is written by a poll that is otherwise unchanged (here a 304): its "readable
// again" must wake delivery at once, not wait for the idle sweep.
func TestRecoveryByAnUnchangedPollWakesDelivery(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	srv := httptest.NewServer(page)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, store := newDaemonWith(t, "listen: \"\"\nsources:\n  - name: acme\n    url: "+srv.URL+"\n    kind: statuspage\n    failure_threshold: 1\n", clk)
	st := d.sources["acme"]

	steps := []struct {
		name      string
		fail      int
		wantWoken bool
		wantEvent model.Event // the newest pending message's event; "" for none
	}{
		{name: "first poll", wantWoken: true},
		{name: "unchanged", wantWoken: false},
		{name: "failing", fail: 1000, wantWoken: true, wantEvent: model.EventSourceDown},
		{name: "recovers unchanged", wantWoken: true, wantEvent: model.EventSourceUp},
	}
	for _, s := range steps {
		page.FailNext(s.fail)
		woken(d)
		clk.Add(time.Minute)
		d.pollSource(t.Context(), st)
		if got := woken(d); got != s.wantWoken {
			t.Errorf("%s: delivery woken %v, want %v", s.name, got, s.wantWoken)
		}
		msgs, err := store.Messages(model.MessagePending)
		if err != nil {
			t.Fatal(err)
		}
		var got model.Event
		if len(msgs) > 0 {
			got = msgs[len(msgs)-1].Event
		}
		if got != s.wantEvent {
			t.Errorf("%s: newest pending message %q, want %q", s.name, got, s.wantEvent)
		}
	}
}
