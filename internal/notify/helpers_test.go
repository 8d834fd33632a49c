package notify_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/slack"
)

// The golden files live in ./slack; the flag is declared here too so that
// `go test ./internal/notify/... -update` runs in every package of the tree.
var _ = flag.Bool("update", false, "rewrite the golden files in slack/testdata")

// t0 is the start of every test's timeline.
var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

const token = "xoxb-1234-SECRET-token"

// fakeClock is the injected clock: Now is fixed until something sleeps, and a sleep
// (After) moves the clock forward and returns at once, so waits cost no real time and
// every call's time is exact. A wait of a minute or more is Run idling: it never fires,
// and only a wake or the end of the test ends it.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	if d >= time.Minute {
		return ch
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.slept = append(c.slept, d)
	ch <- c.t
	return ch
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// env is one test's world: an archive in a temp dir, a fake Slack, the Slack sink and
// the clock they all share.
type env struct {
	t      *testing.T
	clock  *fakeClock
	path   string
	store  *archive.Store
	fs     *fakeslack.Server
	sink   *slack.Notifier
	routes map[string][2]string // source → channel, webhook name
	ts     map[string]string    // ts → "m<n>", in post order
}

// newEnv routes each source as given: "#name" for a bot channel, "hook:<name>" for a
// webhook of the fake.
func newEnv(t *testing.T, routes map[string]string) *env {
	t.Helper()
	e := &env{t: t, clock: &fakeClock{t: t0}, path: filepath.Join(t.TempDir(), "watcher.db"),
		routes: map[string][2]string{}, ts: map[string]string{}}
	e.fs = fakeslack.New(fakeslack.Options{Token: token, Now: e.clock.Now})
	t.Cleanup(e.fs.Close)
	for src, r := range routes {
		if name, ok := strings.CutPrefix(r, "hook:"); ok {
			e.routes[src] = [2]string{"", e.fs.WebhookURL(name)}
		} else {
			e.routes[src] = [2]string{r, ""}
		}
	}
	sink, err := slack.New(slack.Options{Token: token, APIURL: e.fs.APIURL(), Route: func(src string) (string, string) {
		r := e.routes[src]
		return r[0], r[1]
	}})
	if err != nil {
		t.Fatal(err)
	}
	e.sink = sink
	e.open()
	return e
}

func (e *env) open() {
	e.t.Helper()
	s, err := archive.Open(e.path, archive.Options{NoSync: true, Now: e.clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	e.store = s
	e.t.Cleanup(func() { s.Close() })
}

// restart closes the archive and opens it again, as a new process would.
func (e *env) restart() {
	e.t.Helper()
	if err := e.store.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
}

// deliverer is a new Deliverer over the env, as the daemon builds one.
func (e *env) deliverer() *notify.Deliverer {
	return &notify.Deliverer{
		Outbox:   e.store,
		Notifier: e.sink,
		Title:    func(src string) string { return strings.ToUpper(src[:1]) + src[1:] },
		BaseURL:  "https://watch.example.com",
		Clock:    e.clock,
		Jitter:   func(d time.Duration) time.Duration { return d }, // exact backoffs
	}
}

// poll records a snapshot of source listing incs (all the incidents the page lists).
func (e *env) poll(source string, incs ...model.Incident) {
	e.t.Helper()
	snap := &model.Snapshot{Source: source, FetchedAt: e.clock.Now(),
		Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
	if _, err := e.store.Record(source, snap, nil, nil, archive.Policy{FirstPoll: archive.FirstPollAll}); err != nil {
		e.t.Fatalf("Record(%s): %v", source, err)
	}
}

// drain runs one Drain and fails the test on an unexpected error.
func (e *env) drain(d *notify.Deliverer) (sent, queued int, err error) {
	e.t.Helper()
	return d.Drain(e.t.Context())
}

// calls describes the fake's calls since the last look, in order:
// "chat.postMessage #status → m1", "chat.postMessage C0001 thread=m1 broadcast → m2",
// "chat.update C0001 ts=m1", "webhook acme → m3", "chat.postMessage #status ✗ invalid_blocks".
// Messages are named m1, m2, … in post order, so tests read like the thread.
func (e *env) calls() []string {
	var out []string
	for _, c := range e.fs.Calls() {
		var b strings.Builder
		b.WriteString(c.Method)
		switch {
		case c.Method == "webhook":
			b.WriteString(" " + c.Webhook)
		default:
			b.WriteString(" " + c.Channel)
		}
		if c.ThreadTS != "" {
			b.WriteString(" thread=" + e.label(c.ThreadTS))
		}
		if c.ReplyBroadcast {
			b.WriteString(" broadcast")
		}
		if c.Blocks == nil && c.Method != "auth.test" {
			b.WriteString(" plain")
		}
		switch {
		case !c.OK():
			fmt.Fprintf(&b, " ✗ %s", c.Error)
		case c.Method == "chat.update":
			b.WriteString(" ts=" + e.label(c.TS))
		default:
			e.ts[c.TS] = fmt.Sprintf("m%d", len(e.ts)+1)
			b.WriteString(" → " + e.ts[c.TS])
		}
		out = append(out, b.String())
	}
	e.fs.Reset()
	return out
}

func (e *env) label(ts string) string {
	if l, ok := e.ts[ts]; ok {
		return l
	}
	return ts
}

// messages returns the outbox's messages in the given states.
func (e *env) messages(states ...model.MessageState) []model.Message {
	e.t.Helper()
	ms, err := e.store.Messages(states...)
	if err != nil {
		e.t.Fatal(err)
	}
	return ms
}

// inc builds an incident with one update per body, a minute apart.
func inc(id string, status model.Status, bodies ...string) model.Incident {
	i := model.Incident{ID: id, Kind: model.KindIncident, Status: status, Impact: model.ImpactMajor,
		Title: "Incident " + id, StartedAt: t0, Components: []string{"API"}}
	for k, b := range bodies {
		i.Updates = append(i.Updates, model.Update{ID: fmt.Sprintf("%s-u%d", id, k+1), Status: status, Body: b,
			Format: model.FormatText, PostedAt: t0.Add(time.Duration(k) * time.Minute)})
	}
	return i
}

func wantCalls(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: calls:\ngot:\n  %s\nwant:\n  %s", step, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
