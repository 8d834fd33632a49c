package pagerduty

import (
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepagerduty"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify/kit/kittest"
)

// TestPipeline delivers an incident's life through the archive's outbox and the
// Deliverer: one trigger, one resolve, a 429 waited out as PagerDuty asked, every
// message marked sent, the update in between sending nothing.
func TestPipeline(t *testing.T) {
	r, srv := newPair(t, model.ImpactMajor)
	p := kittest.NewPipe(t, r)
	srv.Fail(1, fakepagerduty.Fault{Status: 429, RetryAfter: 3})
	for i, inc := range kittest.Incident() {
		if sent, queued, err := p.Poll(inc); err != nil || sent != 1 || queued != 0 {
			t.Fatalf("poll %d: sent %d, queued %d, %v; want 1 sent", i, sent, queued, err)
		}
	}
	a := srv.Alerts()
	if len(a) != 1 || a[0].Triggers != 1 || a[0].Resolves != 1 || a[0].Open {
		t.Errorf("got alerts %+v, want one triggered once and resolved once", a)
	}
	if evs := srv.Events(); len(evs) != 3 || evs[0].Status != 429 {
		t.Errorf("got %d events, want the 429 then a trigger and a resolve", len(evs))
	}
	if s := p.Clock.Slept(); len(s) == 0 || s[0] != 3*time.Second {
		t.Errorf("got waits %v, want the 3 s PagerDuty asked for", s)
	}
	if m, _ := p.Store.Messages(model.MessagePending, model.MessageParked); len(m) != 0 {
		t.Errorf("got %d messages left, want none", len(m))
	}
}
