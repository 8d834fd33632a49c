package kittest

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// Pipe is the delivery pipeline around one receiver, as the daemon builds it: a real
// archive in a temporary file whose Record writes the outbox, and a notify.Deliverer
// draining it into the receiver, on a clock that moves only when delivery waits.
type Pipe struct {
	t     *testing.T
	Store *archive.Store
	D     *notify.Deliverer
	Clock *Clock
}

// NewPipe builds a Pipe delivering to n; source "acme" is titled "Acme Cloud".
func NewPipe(t *testing.T, n notify.Notifier) *Pipe {
	t.Helper()
	c := &Clock{t: T0}
	s, err := archive.Open(filepath.Join(t.TempDir(), "watcher.db"), archive.Options{NoSync: true, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	d := &notify.Deliverer{
		Outbox: s, Notifier: n, Title: func(string) string { return "Acme Cloud" },
		BaseURL: Base, Clock: c, Jitter: func(d time.Duration) time.Duration { return d },
	}
	return &Pipe{t: t, Store: s, D: d, Clock: c}
}

// Poll records that source "acme" lists incs, then drains the outbox once; it returns
// how many messages were sent and how many are still queued.
func (p *Pipe) Poll(incs ...model.Incident) (sent, queued int, err error) {
	p.t.Helper()
	snap := &model.Snapshot{Source: "acme", FetchedAt: p.Clock.Now(), Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
	if _, err := p.Store.Record("acme", snap, nil, nil, archive.Policy{FirstPoll: archive.FirstPollAll}); err != nil {
		p.t.Fatalf("Record: %v", err)
	}
	p.Clock.Advance(time.Minute)
	return p.D.Drain(p.t.Context())
}

// Clock is a notify.Clock whose waits return at once, moving it forward.
type Clock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// After moves the clock d forward and fires at once.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.slept = append(c.slept, d)
	ch := make(chan time.Time, 1)
	ch <- c.t
	return ch
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Slept is every wait delivery asked for, in order.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// Incident is the incidents of Plain's life as the page lists them: new, identified
// with a second update, resolved.
func Incident() []model.Incident {
	life := Plain.Life()
	return []model.Incident{life[0].Incident, life[1].Incident, life[3].Incident}
}
