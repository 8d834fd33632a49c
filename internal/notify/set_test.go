package notify_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// receiver is a Notifier of a receiver for the tests: it records what it took and
// answers err while it is set.
type receiver struct {
	mu   sync.Mutex
	err  error
	took []string // "<event> <incident>"
}

func (r *receiver) Destination(string) notify.Destination {
	return notify.Destination{Key: "hooks", Account: "hooks"}
}

func (r *receiver) Send(_ context.Context, n *notify.Notification) (notify.Receipt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return notify.Receipt{}, r.err
	}
	r.took = append(r.took, string(n.Message.Event)+" "+n.Message.IncidentID)
	return notify.Receipt{}, nil
}

func (r *receiver) set(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// TestSetQueuesPerReceiver checks that each receiver drains its own rows: an auth error
// of one pauses it alone, Slack's messages go meanwhile and are never sent again, and
// the paused receiver gets its messages, each once, when it is resumed.
func TestSetQueuesPerReceiver(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	e.store.SetRoute(func(*model.Notice) []string { return []string{"", "hooks"} })
	hooks := &receiver{err: notify.Classify(notify.Auth, errors.New("webhook hooks: HTTP 403"))}
	slackD := e.deliverer()
	slackD.Name = "slack"
	hooksD := e.deliverer()
	hooksD.Notifier, hooksD.Receiver, hooksD.Name = hooks, "hooks", "hooks"
	set := &notify.Set{Deliverers: []*notify.Deliverer{slackD, hooksD}}

	e.poll("acme", inc("a", model.StatusInvestigating, "We are looking."))
	sent, queued, err := set.Drain(t.Context())
	if sent != 1 || queued != 1 || err == nil || !strings.Contains(err.Error(), "receiver hooks") {
		t.Errorf("first drain: sent %d, queued %d, err %v; want 1, 1 and the pause of hooks", sent, queued, err)
	}
	wantCalls(t, "slack while hooks is paused", e.calls(), "chat.postMessage #status → m1")
	if paused, why := set.Paused(); !paused || !strings.HasPrefix(why, "hooks: ") {
		t.Errorf("Paused: %v %q", paused, why)
	}
	if p, _ := slackD.Paused(); p {
		t.Error("slack paused by the auth error of hooks")
	}
	if got := set.PausedReceivers(); len(got) != 1 || got[0] != "hooks" {
		t.Errorf("PausedReceivers: %q", got)
	}

	e.poll("acme", inc("a", model.StatusResolved, "We are looking.", "Fixed."))
	if sent, _, _ := set.Drain(t.Context()); sent != 1 {
		t.Errorf("second drain: sent %d, want the resolution to Slack", sent)
	}
	wantCalls(t, "slack's reply", e.calls(), "chat.postMessage C0001 thread=m1 broadcast → m2", "chat.update C0001 ts=m1")

	hooks.set(nil)
	set.Resume()
	if sent, queued, err := set.Drain(t.Context()); sent != 2 || queued != 0 || err != nil {
		t.Errorf("after resume: sent %d, queued %d, err %v; want 2, 0, nil", sent, queued, err)
	}
	wantCalls(t, "nothing more to Slack", e.calls())
	if got := strings.Join(hooks.took, ", "); got != "new a, resolved a" {
		t.Errorf("hooks took %q", got)
	}
	qs, err := set.Queues()
	if err != nil || len(qs) != 0 {
		t.Errorf("queues: %+v %v", qs, err)
	}
}

// TestSetParksRowsOfUnknownReceivers checks that rows of a receiver taken out of the
// config are parked, where `watcher outbox` shows them, rather than left pending forever.
func TestSetParksRowsOfUnknownReceivers(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	e.store.SetRoute(func(*model.Notice) []string { return []string{"", "gone"} })
	e.poll("acme", inc("a", model.StatusInvestigating, "We are looking."))
	set := &notify.Set{Deliverers: []*notify.Deliverer{e.deliverer()}}
	if sent, queued, _ := set.Drain(t.Context()); sent != 1 || queued != 0 {
		t.Errorf("drain: sent %d, queued %d; want 1, 0", sent, queued)
	}
	parked := e.messages(model.MessageParked)
	if len(parked) != 1 || parked[0].Receiver != "gone" || !strings.Contains(parked[0].LastError, "receiver gone is not in the config") {
		t.Errorf("parked: %+v", parked)
	}
}

// TestStandaloneParksOneMessage checks that a receiver whose messages stand alone parks a
// refused first message alone: the incident's later messages still go.
func TestStandaloneParksOneMessage(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	e.store.SetRoute(func(*model.Notice) []string { return []string{"hooks"} })
	hooks := &receiver{err: notify.Park(errors.New("webhook hooks: HTTP 400"))}
	d := e.deliverer()
	d.Notifier, d.Receiver, d.Name, d.Standalone = hooks, "hooks", "hooks", true
	e.poll("acme", inc("a", model.StatusInvestigating, "We are looking."))
	if sent, _, _ := d.Drain(t.Context()); sent != 0 {
		t.Errorf("sent %d, want the refused message parked", sent)
	}
	hooks.set(nil)
	e.poll("acme", inc("a", model.StatusResolved, "We are looking.", "Fixed."))
	if sent, queued, _ := d.Drain(t.Context()); sent != 1 || queued != 0 {
		t.Errorf("sent %d, queued %d; want the resolution sent behind its parked root", sent, queued)
	}
	if got := strings.Join(hooks.took, ", "); got != "resolved a" {
		t.Errorf("hooks took %q", got)
	}
	if parked := e.messages(model.MessageParked); len(parked) != 1 || parked[0].Event != model.EventNew || parked[0].Attempts != 1 {
		t.Errorf("parked: %+v, want the new message, tried once", parked)
	}
}
