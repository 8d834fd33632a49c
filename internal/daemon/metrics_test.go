package daemon

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// gaugeValue reads one series of a gauge (or a counter) from the registry; ok is false when the
// registry does not have it.
func gaugeValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue series
				}
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue(), true
			}
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// counterValue reads one series of a counter from the registry: 0 when it has none yet.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	v, _ := gaugeValue(t, reg, name, labels)
	return v
}

// pausable is a Delivery whose auth pause the test sets.
type pausable struct{ paused atomic.Bool }

func (p *pausable) Run(ctx context.Context, _ <-chan struct{}) error { <-ctx.Done(); return nil }
func (p *pausable) Paused() (bool, string)                           { return p.paused.Load(), "invalid_auth" }

// The delivery and outbox gauges follow the state at once, not at the next watchdog
// tick.
func TestDeliveryGaugesFollowTheStateAtOnce(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	d, store := newTestDaemon(t, "http://127.0.0.1:1", clk)
	deliv := &pausable{}
	d.deliv = deliv
	d.tick() // the last refresh there will be: every check below comes before another
	reg := d.metrics.reg

	record := func(ids ...string) {
		var incs []model.Incident
		for _, id := range ids {
			incs = append(incs, model.Incident{ID: id, Kind: model.KindIncident, Status: model.StatusInvestigating,
				Impact: model.ImpactMajor, Title: "Incident " + id, StartedAt: clk.Now()})
		}
		snap := &model.Snapshot{Source: "acme", FetchedAt: clk.Now(), Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
		if _, err := store.Record("acme", snap, nil, nil, archive.Policy{FirstPoll: archive.FirstPollAll}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name        string
		do          func()
		wantPaused  float64
		wantPending float64
		wantParked  float64
	}{
		{"at start", func() {}, 0, 0, 0},
		{"paused", func() { deliv.paused.Store(true) }, 1, 0, 0},
		{"two messages written", func() { record("a", "b") }, 1, 2, 0},
		{"one parked", func() {
			msgs, _ := store.Messages(model.MessagePending)
			if err := store.MarkAttempt(msgs[0].ID, "channel_not_found", true); err != nil {
				t.Fatal(err)
			}
		}, 1, 1, 1},
		{"resumed", func() { deliv.paused.Store(false) }, 0, 1, 1},
	}
	for _, s := range steps {
		s.do()
		for _, c := range []struct {
			name   string
			labels map[string]string
			want   float64
		}{
			{"watcher_delivery_paused", nil, s.wantPaused},
			{"watcher_outbox_messages", map[string]string{"state": "pending"}, s.wantPending},
			{"watcher_outbox_messages", map[string]string{"state": "parked"}, s.wantParked},
		} {
			got, ok := gaugeValue(t, reg, c.name, c.labels)
			if !ok || got != c.want {
				t.Errorf("%s: %s%v: got %v (present %v), want %v", s.name, c.name, c.labels, got, ok, c.want)
			}
		}
	}
}
