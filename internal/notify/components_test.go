package notify_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// comp is a component of the acme page.
func comp(name string, s model.ComponentStatus) model.Component {
	return model.Component{ID: "c-" + name, Name: name, Status: s}
}

// pollComponents records a snapshot of source showing comps beside incs, a minute
// after the clock's time, which it moves there.
func (e *env) pollComponents(source string, comps []model.Component, incs ...model.Incident) {
	e.t.Helper()
	e.clock.advance(time.Minute)
	snap := &model.Snapshot{Source: source, FetchedAt: e.clock.Now(),
		Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs,
		Components: &model.Components{List: comps}}
	if _, err := e.store.Record(source, snap, nil, nil, archive.Policy{FirstPoll: archive.FirstPollAll}); err != nil {
		e.t.Fatalf("Record(%s): %v", source, err)
	}
}

// TestComponentConsole: a component's life without an incident, on the console: the
// first worsening opens with the root line, the later change and the recovery say
// themselves.
func TestComponentConsole(t *testing.T) {
	e := newEnv(t, nil)
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	web := comp("Web", model.ComponentOperational)
	steps := []struct {
		actions model.ComponentStatus
		after   time.Duration
		want    string
	}{
		{model.ComponentOperational, 0, ""}, // the first set is archived quietly
		{model.ComponentDegraded, 0, "== Acme: Actions degraded — no incident posted\n" +
			"- Actions: operational → degraded\n" +
			"Components: https://watch.example.com/sources/acme\n\n"},
		{model.ComponentMajorOutage, 10 * time.Minute, "== Acme · Actions: degraded → major outage\n" +
			"Components: https://watch.example.com/sources/acme\n\n"},
		{model.ComponentOperational, 11 * time.Minute, "== Acme · Actions operational again after 23m\n" +
			"Components: https://watch.example.com/sources/acme\n\n"},
	}
	for i, st := range steps {
		e.clock.advance(st.after)
		e.pollComponents("acme", []model.Component{comp("Actions", st.actions), web})
		if _, _, err := e.drain(d); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != st.want {
			t.Errorf("step %d: got\n%s\nwant\n%s", i, got, st.want)
		}
		out.Reset()
	}
}

// bigPage is a page of n components named dc-001…, all in status s but the first k,
// which are in status first.
func bigPage(n, k int, first, s model.ComponentStatus) []model.Component {
	out := make([]model.Component, n)
	for i := range out {
		st := s
		if i < k {
			st = first
		}
		out[i] = comp(fmt.Sprintf("dc-%03d", i+1), st)
	}
	return out
}

// pollNoise records two polls of a 300-component page: all operational, then 14 under
// maintenance and one in a major outage.
func (e *env) pollNoise() {
	e.t.Helper()
	op := model.ComponentOperational
	e.pollComponents("acme", bigPage(300, 0, op, op))
	page := bigPage(300, 14, model.ComponentMaintenance, op)
	page[299].Status = model.ComponentMajorOutage
	e.pollComponents("acme", page)
}

// TestComponentNoiseConsole: a poll that changes more than 10 components of a
// 300-component page says one summary line per status.
func TestComponentNoiseConsole(t *testing.T) {
	e := newEnv(t, nil)
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	e.pollNoise()
	e.drain(d)
	want := "== Acme: dc-300 in major outage, dc-001 under maintenance, dc-002 under maintenance and 12 more — no incident posted\n" +
		"- 1 component in major outage: dc-300\n" +
		"- 14 components under maintenance: dc-001, dc-002, dc-003, dc-004, dc-005, and 9 more\n" +
		"Components: https://watch.example.com/sources/acme\n\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if n := strings.Count(out.String(), "\n"); n > 5 {
		t.Errorf("%d lines", n)
	}
}

// slackState is a message's text as Slack shows it now, and its blocks' JSON.
func (e *env) slackText(ch, label string) (string, string) {
	e.t.Helper()
	for ts, l := range e.ts {
		if l == label {
			m, ok := e.fs.Message(ch, ts)
			if !ok {
				e.t.Fatalf("no message %s in %s", label, ch)
			}
			return m.Text, strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(m.Blocks))
		}
	}
	e.t.Fatalf("no message %s", label)
	return "", ""
}

// TestComponentSlackLife: a component's life without an incident, in Slack: the first
// worsening opens a root, the later changes and the recovery reply in its thread, and
// the root is edited to the current state after each, across a restart; the next spell
// opens a new root.
func TestComponentSlackLife(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	web := comp("Web", model.ComponentOperational)
	poll := func(s model.ComponentStatus, after time.Duration) {
		t.Helper()
		e.clock.advance(after)
		e.pollComponents("acme", []model.Component{comp("Actions", s), web})
		if sent, queued, err := e.drain(d); err != nil || sent != 1 || queued != 0 {
			t.Fatalf("Drain: sent %d, queued %d, %v", sent, queued, err)
		}
	}
	e.pollComponents("acme", []model.Component{comp("Actions", model.ComponentOperational), web})
	e.drain(d)
	wantCalls(t, "first set", e.calls())

	steps := []struct {
		name    string
		status  model.ComponentStatus
		after   time.Duration
		restart bool
		calls   []string
		reply   string   // the reply's text, "" for none
		root    string   // the root's text after the step
		blocks  []string // parts of the root's blocks after the step
	}{
		{"degraded: the root", model.ComponentDegraded, 0, false,
			[]string{"chat.postMessage #status → m1"}, "",
			"Acme: Actions degraded — no incident posted",
			[]string{`:large_yellow_circle: *Acme*: Actions degraded — no incident posted\n• Actions: operational → degraded`,
				`<https://watch.example.com/sources/acme|Components in statuswatch>`}},
		{"major outage, after a restart: a reply, the root edited", model.ComponentMajorOutage, 10 * time.Minute, true,
			[]string{"chat.postMessage C0001 thread=m1 → m2", "chat.update C0001 ts=m1"},
			"Acme · Actions: degraded → major outage",
			"Acme: Actions in major outage — no incident posted",
			[]string{`:red_circle: *Acme*: Actions in major outage — no incident posted`,
				`Last change 2026-07-01 12:13 UTC: Actions: degraded → major outage`}},
		{"recovered", model.ComponentOperational, 11 * time.Minute, false,
			[]string{"chat.postMessage C0001 thread=m1 → m3", "chat.update C0001 ts=m1"},
			"Acme · Actions operational again after 23m",
			"Acme: all components operational again",
			[]string{`:white_check_mark: *Acme*: all components operational again`}},
	}
	for i, st := range steps {
		if st.restart {
			e.restart()
			d = e.deliverer()
		}
		poll(st.status, st.after)
		wantCalls(t, st.name, e.calls(), st.calls...)
		if st.reply != "" {
			if text, _ := e.slackText("C0001", fmt.Sprintf("m%d", i+1)); text != st.reply {
				t.Errorf("%s: reply: got %q, want %q", st.name, text, st.reply)
			}
		}
		text, blocks := e.slackText("C0001", "m1")
		if text != st.root {
			t.Errorf("%s: root: got %q, want %q", st.name, text, st.root)
		}
		for _, b := range st.blocks {
			if !strings.Contains(blocks, b) {
				t.Errorf("%s: root: want %s in\n%s", st.name, b, blocks)
			}
		}
	}

	poll(model.ComponentPartialOutage, time.Hour)
	wantCalls(t, "the next spell", e.calls(), "chat.postMessage #status → m4")
	if text, _ := e.slackText("C0001", "m4"); text != "Acme: Actions in partial outage — no incident posted" {
		t.Errorf("second root: got %q", text)
	}
	if got := len(e.fs.Replies("C0001", e.tsOf("m1"))); got != 2 {
		t.Errorf("replies to the first root: %d, want 2", got)
	}
}

// tsOf is the Slack ts of message label.
func (e *env) tsOf(label string) string {
	for ts, l := range e.ts {
		if l == label {
			return ts
		}
	}
	return ""
}

// TestComponentSlackIncidentThread: a change of a component an open incident names
// goes into that incident's thread, and leaves its root as it is; another component's
// change of the same poll opens the component thread.
func TestComponentSlackIncidentThread(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	op, deg := model.ComponentOperational, model.ComponentDegraded
	e.pollComponents("acme", []model.Component{comp("Actions", op), comp("Pages", op)})
	a := inc("a1", model.StatusInvestigating, "Actions are slow.")
	a.Components = []string{"Actions"}
	e.pollComponents("acme", []model.Component{comp("Actions", deg), comp("Pages", deg)}, a)
	if _, _, err := e.drain(d); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "incident and components", e.calls(),
		"chat.postMessage #status → m1",
		"chat.postMessage C0001 thread=m1 → m2",
		"chat.postMessage #status → m3")
	if text, _ := e.slackText("C0001", "m2"); text != "Acme · Actions: operational → degraded" {
		t.Errorf("reply in the incident's thread: got %q", text)
	}
	if text, _ := e.slackText("C0001", "m3"); text != "Acme: Pages degraded — no incident posted" {
		t.Errorf("component root: got %q", text)
	}
	if root, _ := e.fs.Message("C0001", e.tsOf("m1")); root.Edits != 0 {
		t.Errorf("incident root edited %d times", root.Edits)
	}
	e.pollComponents("acme", []model.Component{comp("Actions", op), comp("Pages", deg)}, a)
	e.drain(d)
	wantCalls(t, "recovery in the incident's thread", e.calls(), "chat.postMessage C0001 thread=m1 → m4")
	if text, _ := e.slackText("C0001", "m4"); text != "Acme · Actions operational again after 1m" {
		t.Errorf("recovery: got %q", text)
	}
}

// TestComponentSlackNoise: a 300-component page where 14 components go to maintenance
// and one to a major outage in one poll: one root, one summary line per status, within
// Slack's limits.
func TestComponentSlackNoise(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	e.pollNoise()
	e.drain(d)
	wantCalls(t, "noise", e.calls(), "chat.postMessage #status → m1")
	text, blocks := e.slackText("C0001", "m1")
	if want := "Acme: dc-300 in major outage, dc-001 under maintenance, dc-002 under maintenance and 12 more — no incident posted"; text != want {
		t.Errorf("root: got %q, want %q", text, want)
	}
	want := `• 1 component in major outage: dc-300\n• 14 components under maintenance: dc-001, dc-002, dc-003, dc-004, dc-005, and 9 more`
	if !strings.Contains(blocks, want) {
		t.Errorf("root: want %s in\n%s", want, blocks)
	}
	// All 300 back at once: one reply, one line.
	op := model.ComponentOperational
	e.pollComponents("acme", bigPage(300, 0, op, op))
	e.drain(d)
	wantCalls(t, "all back", e.calls(), "chat.postMessage C0001 thread=m1 → m2", "chat.update C0001 ts=m1")
	text, _ = e.slackText("C0001", "m2")
	if want := "Acme · 15 components operational again: dc-001, dc-002, dc-003, dc-004, dc-005, and 10 more"; text != want {
		t.Errorf("reply: got %q, want %q", text, want)
	}
}

// TestComponentSlackEscapes: a vendor's component names cannot ping the channel or
// smuggle a link, in the root, its edit and the replies.
func TestComponentSlackEscapes(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	evil := "<!channel> & <https://evil.example|Actions>"
	e.pollComponents("acme", []model.Component{comp(evil, model.ComponentOperational)})
	e.pollComponents("acme", []model.Component{comp(evil, model.ComponentDegraded)})
	e.drain(d)
	e.pollComponents("acme", []model.Component{comp(evil, model.ComponentOperational)})
	e.drain(d)
	e.calls()
	if text, _ := e.slackText("C0001", "m2"); text != "Acme · &lt;!channel&gt; &amp; &lt;https://evil.example|Actions&gt; operational again after 1m" {
		t.Errorf("reply: got %q", text)
	}
	for _, c := range []string{"m1", "m2"} {
		text, blocks := e.slackText("C0001", c)
		for _, s := range []string{text, blocks} {
			if strings.Contains(s, "<!channel>") || strings.Contains(s, "<https://evil") {
				t.Errorf("%s: unescaped: %s", c, s)
			}
		}
		if !strings.Contains(blocks, "&lt;!channel&gt; &amp; &lt;https://evil.example|Actions&gt;") {
			t.Errorf("%s: got %s", c, blocks)
		}
	}
}

// TestComponentSlackWebhook: through a webhook there are no threads: each component
// message goes on its own, and one in an incident's thread names the incident.
func TestComponentSlackWebhook(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "hook:acme"})
	d := e.deliverer()
	op, deg := model.ComponentOperational, model.ComponentDegraded
	e.pollComponents("acme", []model.Component{comp("Actions", op), comp("Pages", op)})
	e.pollComponents("acme", []model.Component{comp("Actions", op), comp("Pages", deg)})
	a := inc("a1", model.StatusInvestigating, "Actions are slow.")
	a.Components = []string{"Actions"}
	e.pollComponents("acme", []model.Component{comp("Actions", deg), comp("Pages", op)}, a)
	if _, _, err := e.drain(d); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "webhook", e.calls(), "webhook acme → m1", "webhook acme → m2", "webhook acme → m3", "webhook acme → m4")
	var got []string
	for _, m := range e.fs.Messages("webhook/acme") {
		got = append(got, m.Text)
	}
	want := []string{
		"Acme: Pages degraded — no incident posted",
		"Acme · New incident: Incident a1 (investigating, major impact)",
		"Acme · Actions: operational → degraded",
		"Acme · Pages operational again after 1m",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("webhook texts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ms := e.fs.Messages("webhook/acme"); len(ms) == 4 && !strings.Contains(string(ms[2].Blocks), "Incident: Incident a1") {
		t.Errorf("in-incident message does not name it: %s", ms[2].Blocks)
	}
}

// TestComponentSlackDelivery: component messages share the outbox's delivery: a 500
// backs off and retries, a rejected message goes again as plain text, a root posted
// before a crash is not posted again, and a root never posted (parked) makes the next
// message of its thread the root.
func TestComponentSlackDelivery(t *testing.T) {
	op, deg, major := model.ComponentOperational, model.ComponentDegraded, model.ComponentMajorOutage
	t.Run("transient, then rejected", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		e.pollComponents("acme", []model.Component{comp("Actions", op)})
		e.pollComponents("acme", []model.Component{comp("Actions", deg)})
		e.fs.Fail(1, fakeslack.Fault{Method: "chat.postMessage", Status: 500})
		e.fs.Fail(1, fakeslack.Fault{Method: "chat.postMessage", Error: "invalid_blocks"})
		if sent, queued, err := e.drain(e.deliverer()); err != nil || sent != 1 || queued != 0 {
			t.Errorf("Drain: sent %d, queued %d, %v", sent, queued, err)
		}
		wantCalls(t, "root", e.calls(),
			"chat.postMessage #status ✗ Internal Server Error",
			"chat.postMessage #status ✗ invalid_blocks",
			"chat.postMessage #status plain → m1")
		if text, _ := e.slackText("C0001", "m1"); text != ":large_yellow_circle: *Acme*: Actions degraded — no incident posted\n• Actions: operational → degraded\n<https://watch.example.com/sources/acme|Components in statuswatch>" {
			t.Errorf("plain root: got %q", text)
		}
	})
	t.Run("a root posted before a crash", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		e.pollComponents("acme", []model.Component{comp("Actions", op)})
		e.pollComponents("acme", []model.Component{comp("Actions", deg)})
		d := e.deliverer()
		d.Outbox = &failingOutbox{Outbox: e.store, fail: map[uint64]bool{1: true}}
		e.drain(d)
		wantCalls(t, "first run", e.calls(), "chat.postMessage #status → m1")
		e.restart()
		if sent, queued, err := e.drain(e.deliverer()); err != nil || sent != 1 || queued != 0 {
			t.Errorf("Drain: sent %d, queued %d, %v", sent, queued, err)
		}
		wantCalls(t, "second run", e.calls())
		e.pollComponents("acme", []model.Component{comp("Actions", major)})
		e.drain(e.deliverer())
		wantCalls(t, "reply", e.calls(), "chat.postMessage C0001 thread=m1 → m2", "chat.update C0001 ts=m1")
	})
	t.Run("a parked root", func(t *testing.T) {
		e := newEnv(t, map[string]string{"acme": "#status"})
		e.pollComponents("acme", []model.Component{comp("Actions", op)})
		e.pollComponents("acme", []model.Component{comp("Actions", deg)})
		e.fs.Fail(2, fakeslack.Fault{Method: "chat.postMessage", Error: "msg_too_long"})
		d := e.deliverer()
		e.drain(d)
		if got := len(e.messages(model.MessageParked)); got != 1 {
			t.Fatalf("parked: %d, want 1", got)
		}
		e.calls()
		e.pollComponents("acme", []model.Component{comp("Actions", major)})
		e.drain(d)
		wantCalls(t, "the next message starts the thread", e.calls(), "chat.postMessage #status → m1")
		if text, blocks := e.slackText("C0001", "m1"); text != "Acme: Actions in major outage — no incident posted" ||
			!strings.Contains(blocks, "• Actions: degraded → major outage") {
			t.Errorf("late root: got %q\n%s", text, blocks)
		}
		e.pollComponents("acme", []model.Component{comp("Actions", op)})
		e.drain(d)
		wantCalls(t, "its reply", e.calls(), "chat.postMessage C0001 thread=m1 → m2", "chat.update C0001 ts=m1")
	})
}

// TestComponentSlackLimits: long vendor names on a big page stay within Slack's limits
// (the fake refuses what Slack would): names are cut, lines are few.
func TestComponentSlackLimits(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	page := func(statuses ...model.ComponentStatus) []model.Component {
		var out []model.Component
		for i := range 300 {
			c := comp(fmt.Sprintf("%03d %s", i, strings.Repeat("data centre ", 40)), statuses[i%len(statuses)])
			c.ID = fmt.Sprint(i)
			out = append(out, c)
		}
		return out
	}
	op := model.ComponentOperational
	e.pollComponents("acme", page(op))
	e.pollComponents("acme", page(model.ComponentMaintenance, model.ComponentDegraded, model.ComponentPartialOutage, model.ComponentMajorOutage))
	e.pollComponents("acme", page(op, model.ComponentMajorOutage))
	e.pollComponents("acme", page(op))
	if sent, queued, err := e.drain(d); err != nil || sent != 3 || queued != 0 {
		t.Fatalf("Drain: sent %d, queued %d, %v", sent, queued, err)
	}
	wantCalls(t, "limits", e.calls(),
		"chat.postMessage #status → m1",
		"chat.postMessage C0001 thread=m1 → m2",
		"chat.update C0001 ts=m1",
		"chat.postMessage C0001 thread=m1 → m3",
		"chat.update C0001 ts=m1")
	for _, m := range []string{"m1", "m2", "m3"} {
		text, blocks := e.slackText("C0001", m)
		if len(text) > 4000 || len(blocks) > 12000 {
			t.Errorf("%s: text %d, blocks %d bytes", m, len(text), len(blocks))
		}
	}
}

// TestComponentRootEditOwed: the component thread's root update refused until the
// process stops is done by the next run, from the archive.
func TestComponentRootEditOwed(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	op, deg := model.ComponentOperational, model.ComponentDegraded
	e.pollComponents("acme", []model.Component{comp("Actions", op)})
	e.pollComponents("acme", []model.Component{comp("Actions", deg)})
	e.drain(e.deliverer())
	e.calls()
	e.fs.Fail(100, fakeslack.Fault{Method: "chat.update", Status: 500})
	e.pollComponents("acme", []model.Component{comp("Actions", op)})
	e.drain(e.deliverer())
	if calls := e.calls(); len(calls) < 2 || calls[0] != "chat.postMessage C0001 thread=m1 → m2" || !strings.HasPrefix(calls[1], "chat.update C0001 ✗") {
		t.Fatalf("first run: got %q", calls)
	}
	e.fs.Reset()
	e.restart()
	if _, _, err := e.drain(e.deliverer()); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "next run", e.calls(), "chat.update C0001 ts=m1")
	if text, _ := e.slackText("C0001", "m1"); text != "Acme: all components operational again" {
		t.Errorf("root: got %q", text)
	}
	if owed, err := e.store.RootEdits(); err != nil || len(owed) != 0 {
		t.Errorf("owed after the edit: %v, %v", owed, err)
	}
}

// TestComponentConsoleIncident: on the console, a change an incident's thread took
// names the incident.
func TestComponentConsoleIncident(t *testing.T) {
	e := newEnv(t, nil)
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	e.pollComponents("acme", []model.Component{comp("Actions", model.ComponentOperational)})
	a := inc("a1", model.StatusInvestigating, "Actions are slow.")
	a.Components = []string{"Actions"}
	e.pollComponents("acme", []model.Component{comp("Actions", model.ComponentPartialOutage)}, a)
	e.drain(d)
	want := "== Acme · Actions: operational → partial outage\n" +
		"Incident: Incident a1\n" +
		"Components: https://watch.example.com/sources/acme\n\n"
	if got := out.String(); !strings.HasSuffix(got, want) || !strings.HasPrefix(got, "== Acme: New incident: Incident a1\n") {
		t.Errorf("got\n%s\nwant the incident, then\n%s", got, want)
	}
}
