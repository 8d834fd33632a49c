package e2e

// TestComponentLifeEndToEnd is the end-to-end test of issue 14's "Done when": a
// component's life (operational → degraded → major outage → operational) on a local
// Statuspage page, polled by the built binary running as a daemon with a bot token
// against a fake Slack, stepped by POST /api/v1/sources/acme/poll (no clock involved):
//
//   - without an incident: one root "Acme: API degraded — no incident posted", the later
//     changes and the recovery as replies in its thread, the root edited by chat.update
//     to the current state after each;
//   - with an open incident naming the component: every change replies in the
//     incident's thread, and no component root is posted;
//   - inside a maintenance in progress naming the component: its flip to maintenance,
//     and back, send nothing; its life from operational after that replies in the
//     maintenance's thread;
//   - under component_changes: archive: nothing is sent.
//
// For each: the component API now and at an earlier time (?at=), its history,
// /metrics' watcher_component_status at every step, and unchanged polls that leave the
// archive file byte-identical, each reading summary.json conditionally (a 304). Without
// an incident also history?from= and the "Degraded, no incident" flag of the dashboard
// and the source page while degraded. "Sends nothing" is checked without waiting for nothing:
// a later step that does send (a sentinel) is awaited, and the calls since must be its
// own only, as the outbox delivers in order.

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

const compToken = "xoxb-e2e-components"

// apiID and webID are the page's two components, "API" and "Web UI".
const (
	apiID = "fkcmp0api001"
	webID = "fkcmp0web001"
)

// compWorld is one daemon's surroundings: a Statuspage page "Acme" with two
// components, a fake Slack, and the daemon routing source acme to "#acme".
type compWorld struct {
	t       *testing.T
	page    *fakepage.Statuspage
	slack   *fakeslack.Server
	d       *testbin.Daemon
	db      string
	cfg     string // the config file, and what it says
	cfgText string
	seen    int // Slack calls already checked
	// full returns the paths the page answered with a body since the last call; nil
	// for a page that sends no validators.
	full  func() []string
	quiet int // unchanged polls since full was last called
	incs  []fakepage.Incident
	mnts  []fakepage.Incident
	// api sets the component API to a status (a spWords index) and polls.
	api func(status int)
}

// The component statuses a test steps through, as indexes of a platform's words.
const (
	opWord = iota
	degradedWord
	majorWord
	maintWord
)

// spWords are Statuspage's words for them.
var spWords = [4]string{"operational", "degraded_performance", "major_outage", "under_maintenance"}

func newCompWorld(t *testing.T, extra string) *compWorld {
	t.Helper()
	page := &fakepage.Statuspage{Name: "Acme"}
	page.SetComponents([]fakepage.PageComponent{
		{ID: apiID, Name: "API", Status: "operational"},
		{ID: webID, Name: "Web UI", Status: "operational"},
	})
	w := newStatuspageWorld(t, page, extra)
	w.wantComponents("", map[string]string{"API": "operational", "Web UI": "operational"})
	return w
}

// newStatuspageWorld starts the daemon on the Statuspage page and has it poll once
// (newWorld); w.api steps the page's component API.
func newStatuspageWorld(t *testing.T, page *fakepage.Statuspage, extra string) *compWorld {
	t.Helper()
	page.Set(nil, nil)
	w := newWorld(t, page, "statuspage", atRoot, extra)
	w.page = page
	w.api = func(i int) { w.set(apiID, spWords[i]) }
	// summary.json is read on every poll, conditionally: each unchanged poll asks for it
	// with its ETag and gets a 304.
	w.full = func() []string {
		var out []string
		summaries := 0
		for _, r := range page.Requests() {
			if r.Status != http.StatusNotModified {
				out = append(out, r.Path)
			} else if r.Path == "/api/v2/summary.json" {
				summaries++
			}
		}
		if summaries != w.quiet {
			out = append(out, fmt.Sprintf("(%d conditional reads of summary.json in %d polls)", summaries, w.quiet))
		}
		w.quiet = 0
		return out
	}
	return w
}

// newWorld starts the daemon on source acme of kind served by h (source gives its url
// and endpoint overrides) and has it poll once: the first component set, archived
// quietly.
func newWorld(t *testing.T, h http.Handler, kind string, source func(u string) (string, map[string]string), extra string) *compWorld {
	t.Helper()
	w := &compWorld{t: t, slack: fakeslack.New(fakeslack.Options{Token: compToken})}
	t.Cleanup(w.slack.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	w.db = filepath.Join(dir, "watcher.db")
	w.cfg = filepath.Join(dir, "config.yaml")
	url, endpoints := source(srv.URL)
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nlisten: %s\nslack:\n  token: ${SLACK_BOT_TOKEN}\n  channel: \"#vendor-status\"\n  api_url: %s\n"+
		"sources:\n  - name: acme\n    title: Acme\n    url: %q\n    kind: %s\n    schedule: \"@every 1h\"\n    timeout: 10s\n    channel: \"#acme\"\n%s",
		w.db, testbin.FreeAddr(t), w.slack.APIURL(), url, kind, extra)
	if len(endpoints) > 0 {
		b.WriteString("    endpoints:\n")
		for _, k := range slices.Sorted(maps.Keys(endpoints)) {
			fmt.Fprintf(&b, "      %s: %q\n", k, endpoints[k])
		}
	}
	w.cfgText = b.String()
	if err := os.WriteFile(w.cfg, []byte(w.cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	w.d = testbin.StartDaemon(t, testbin.Build(t), []string{"WATCHER_CONFIG=" + w.cfg, "SLACK_BOT_TOKEN=" + compToken})
	w.poll()
	return w
}

// poll has the daemon poll acme now and waits for the poll to be archived.
func (w *compWorld) poll() {
	w.t.Helper()
	if code, body := w.d.PollNow(w.t, "acme"); code != http.StatusOK {
		w.t.Fatalf("poll: HTTP %d %v\n%s", code, body, w.d.Log())
	}
}

// set flips one component and polls.
func (w *compWorld) set(id, status string) {
	w.t.Helper()
	if !w.page.SetComponentStatus(id, status) {
		w.t.Fatalf("no component %s", id)
	}
	w.poll()
}

// publish serves the world's incidents and maintenances, without polling.
func (w *compWorld) publish() { w.page.Set(w.incs, w.mnts) }

// get decodes the JSON answer of path, failing unless it is 200.
func (w *compWorld) get(path string, v any) {
	w.t.Helper()
	resp, err := http.Get(w.d.URL(path))
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		w.t.Fatalf("GET %s: HTTP %d %s", path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		w.t.Fatalf("GET %s: %v\n%s", path, err, b)
	}
}

// calls waits (bounded) until the outbox is empty and Slack took n calls more than
// were checked, and returns those.
func (w *compWorld) calls(n int) []fakeslack.Call {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var out []json.RawMessage
		w.get("/api/v1/outbox", &out)
		all := w.slack.Calls()
		if len(out) == 0 && len(all) >= w.seen+n {
			got := all[w.seen:]
			w.seen = len(all)
			if len(got) != n {
				w.t.Errorf("Slack took %d calls, want %d:\n%s", len(got), n, describe(got))
			}
			return got
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("want %d more Slack calls and an empty outbox within 20s; outbox %d, calls:\n%s\ndaemon log:\n%s",
				n, len(out), describe(all[w.seen:]), w.d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func describe(calls []fakeslack.Call) string {
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "  %s ch=%s ts=%s thread=%s %q err=%q\n", c.Method, c.Channel, c.TS, c.ThreadTS, c.Text, c.Error)
	}
	return b.String()
}

// wantCall checks one call's method, thread and text.
func wantCall(t *testing.T, step string, c fakeslack.Call, method, thread, text string) {
	t.Helper()
	if c.Method != method || c.ThreadTS != thread || c.Text != text || !c.OK() {
		t.Errorf("%s: got %s thread=%q %q (status %d %q), want %s thread=%q %q", step, c.Method, c.ThreadTS, c.Text, c.Status, c.Error, method, thread, text)
	}
}

// component is a row of GET …/components.
type component struct {
	Name, Group, Status string
	StatusRaw           string    `json:"status_raw"`
	Since               time.Time `json:"since"`
}

// wantComponents checks the component API (at: "" now, else ?at=) against name → status.
func (w *compWorld) wantComponents(at string, want map[string]string) []component {
	w.t.Helper()
	path := "/api/v1/sources/acme/components"
	if at != "" {
		path += "?at=" + at
	}
	var got []component
	w.get(path, &got)
	m := map[string]string{}
	for _, c := range got {
		m[c.Name] = c.Status
		if c.Since.IsZero() {
			w.t.Errorf("GET %s: %s has no since", path, c.Name)
		}
	}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		w.t.Errorf("GET %s: %v, want %v", path, m, want)
	}
	return got
}

var gaugeRE = regexp.MustCompile(`(?m)^watcher_component_status\{([^}]*)\} (\S+)$`)

// wantGauge checks watcher_component_status for acme's components.
func (w *compWorld) wantGauge(step string, want map[string]string) {
	w.t.Helper()
	resp, err := http.Get(w.d.URL("/metrics"))
	if err != nil {
		w.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := map[string]string{}
	for _, m := range gaugeRE.FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(m[1], `source="acme"`) {
			continue
		}
		name := regexp.MustCompile(`component="([^"]*)"`).FindStringSubmatch(m[1])
		if name != nil {
			got[name[1]] = m[2]
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		w.t.Errorf("%s: watcher_component_status %v, want %v", step, got, want)
	}
}

// wantHistory checks …/components/history: component from→to, oldest first.
func (w *compWorld) wantHistory(want ...string) {
	w.t.Helper()
	var got []struct{ Component, From, To string }
	w.get("/api/v1/sources/acme/components/history", &got)
	var s []string
	for _, h := range got {
		s = append(s, h.Component+" "+h.From+"→"+h.To)
	}
	if !slices.Equal(s, want) {
		w.t.Errorf("components/history: %q, want %q", s, want)
	}
}

// wantQuietPolls polls twice without a change: no Slack call (the sentinel of the
// caller proves it) and the archive file byte-identical.
func (w *compWorld) wantQuietPolls() {
	w.t.Helper()
	w.calls(0)
	before := w.settled()
	if w.full != nil {
		w.full()
	}
	w.poll()
	w.poll()
	w.quiet = 2
	if fileSum(w.t, w.db) != before {
		w.t.Errorf("two unchanged polls changed the archive file")
	}
	if w.full != nil {
		if full := w.full(); len(full) > 0 {
			w.t.Errorf("unchanged polls: %q answered in full (or summary.json not read), want only 304s, summary.json on each poll", full)
		}
	}
}

// wantPage checks that the UI page at path flags the source "Degraded, no incident"
// (flagged) or does not.
func (w *compWorld) wantPage(path string, flagged bool) {
	w.t.Helper()
	resp, err := http.Get(w.d.URL(path))
	if err != nil {
		w.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		w.t.Fatalf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	if got := strings.Contains(string(b), "Degraded, no incident"); got != flagged {
		w.t.Errorf("GET %s: flags \"Degraded, no incident\": %v, want %v", path, got, flagged)
	}
	if flagged && path != "/" && !strings.Contains(string(b), "API") {
		w.t.Errorf("GET %s: the component API is not listed", path)
	}
}

// worsenAndRecover takes API, degraded, to major outage and back to operational, each
// change one reply in the thread of root (where) and nothing else; web is Web UI's
// gauge value meanwhile, "" on a page without it.
func (w *compWorld) worsenAndRecover(where, root, web string) {
	w.t.Helper()
	gauge := func(api string) map[string]string {
		m := map[string]string{"API": api}
		if web != "" {
			m["Web UI"] = web
		}
		return m
	}
	w.api(majorWord)
	c := w.calls(1)
	wantCall(w.t, "major outage in "+where, c[0], "chat.postMessage", root, "Acme · API: degraded → major outage")
	w.wantGauge("major outage", gauge("4"))
	w.wantQuietPolls()
	w.api(opWord)
	c = w.calls(1)
	wantCall(w.t, "recovery in "+where, c[0], "chat.postMessage", root, "Acme · API operational again after &lt;1m")
	w.wantGauge("recovered", gauge("0"))
	w.wantQuietPolls()
}

// wantReplyAndEdit checks the two calls of a later change in the component thread of
// root: the reply in it, then chat.update of root to its current state.
func wantReplyAndEdit(t *testing.T, step string, c []fakeslack.Call, root, reply, edit string) {
	t.Helper()
	if len(c) != 2 {
		return // calls reported it
	}
	wantCall(t, step+" reply", c[0], "chat.postMessage", root, reply)
	wantCall(t, step+" root edit", c[1], "chat.update", "", edit)
	if c[1].TS != root {
		t.Errorf("%s: chat.update edited %s, want the root %s", step, c[1].TS, root)
	}
}

// settled returns the archive file's sum once delivery has stopped writing to it: a
// root edit that landed is forgotten in the archive just after Slack answered it, which
// no API shows. Bounded: the file must read the same three times 30 ms apart within 10 s.
func (w *compWorld) settled() [32]byte {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	sum, same := fileSum(w.t, w.db), 0
	for same < 3 {
		if time.Now().After(deadline) {
			w.t.Fatalf("the archive file kept changing for 10s with nothing to deliver\n%s", w.d.Log())
		}
		time.Sleep(30 * time.Millisecond)
		next := fileSum(w.t, w.db)
		if next == sum {
			same++
		} else {
			sum, same = next, 0
		}
	}
	return sum
}

// now is an ?at= time: the instant after the last poll.
func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func TestComponentLifeEndToEnd(t *testing.T) {
	testbin.Build(t)

	t.Run("no incident", func(t *testing.T) {
		t.Parallel()
		w := newCompWorld(t, "")
		w.wantGauge("first set", map[string]string{"API": "0", "Web UI": "0"})
		w.wantQuietPolls()
		if c := w.calls(0); len(c) != 0 {
			t.Errorf("the first set sent:\n%s", describe(c))
		}

		w.set(apiID, "degraded_performance")
		c := w.calls(1)
		wantCall(t, "degraded", c[0], "chat.postMessage", "", "Acme: API degraded — no incident posted")
		root := c[0].TS
		atDegraded := now()
		w.wantGauge("degraded", map[string]string{"API": "2", "Web UI": "0"})
		w.wantPage("/", true)
		w.wantPage("/sources/acme", true)
		w.wantQuietPolls()

		w.set(apiID, "major_outage")
		c = w.calls(2)
		wantReplyAndEdit(t, "major outage", c, root, "Acme · API: degraded → major outage", "Acme: API in major outage — no incident posted")
		atMajor := now()
		w.wantGauge("major outage", map[string]string{"API": "4", "Web UI": "0"})
		w.wantQuietPolls()

		w.set(apiID, "operational")
		c = w.calls(2)
		wantReplyAndEdit(t, "recovery", c, root, "Acme · API operational again after &lt;1m", "Acme: all components operational again")
		w.wantGauge("recovered", map[string]string{"API": "0", "Web UI": "0"})
		w.wantPage("/", false)
		w.wantQuietPolls()

		if m, ok := w.slack.Message(c[0].ChannelID, root); !ok || m.Text != "Acme: all components operational again" || m.Edits != 2 {
			t.Errorf("the root as it stands: %+v (found %v), want edited twice to say all operational again", m, ok)
		}
		if n := len(w.slack.Replies(c[0].ChannelID, root)); n != 2 {
			t.Errorf("the root's thread has %d replies, want 2", n)
		}
		got := w.wantComponents("", map[string]string{"API": "operational", "Web UI": "operational"})
		if i := slices.IndexFunc(got, func(c component) bool { return c.Name == "API" }); i >= 0 && got[i].StatusRaw != "operational" {
			t.Errorf("API status_raw %q", got[i].StatusRaw)
		}
		got = w.wantComponents(atDegraded, map[string]string{"API": "degraded", "Web UI": "operational"})
		if i := slices.IndexFunc(got, func(c component) bool { return c.Name == "API" }); i >= 0 && got[i].StatusRaw != "degraded_performance" {
			t.Errorf("?at= degraded: API status_raw %q, want degraded_performance", got[i].StatusRaw)
		}
		w.wantComponents(atMajor, map[string]string{"API": "major_outage", "Web UI": "operational"})
		w.wantHistory("API operational→degraded", "API degraded→major_outage", "API major_outage→operational")
		var since []struct{ Component, From, To string }
		w.get("/api/v1/sources/acme/components/history?from="+atDegraded, &since)
		if len(since) != 2 || since[0].To != "major_outage" || since[1].To != "operational" {
			t.Errorf("components/history?from= after the degradation: %+v, want the major outage and the recovery", since)
		}
	})

	t.Run("open incident naming the component", func(t *testing.T) {
		t.Parallel()
		w := newCompWorld(t, "")
		at := time.Now().UTC().Truncate(time.Second)
		w.incs = []fakepage.Incident{{ID: "inc1", Name: "Elevated API errors", Status: "investigating", Impact: "major",
			CreatedAt: at, UpdatedAt: at, StartedAt: at, Components: []fakepage.Component{{ID: apiID, Name: "API", Status: "degraded_performance"}},
			Updates: []fakepage.Update{{ID: "inc1-u1", Status: "investigating", Body: "We are looking into API errors.", CreatedAt: at, UpdatedAt: at, DisplayAt: at}}}}
		w.publish()
		w.set(apiID, "degraded_performance")
		c := w.calls(2)
		var root string
		if len(c) == 2 {
			if c[0].Method != "chat.postMessage" || c[0].ThreadTS != "" || !strings.Contains(c[0].Text, "Elevated API errors") {
				t.Errorf("incident root: got %s thread=%q %q", c[0].Method, c[0].ThreadTS, c[0].Text)
			}
			root = c[0].TS
			wantCall(t, "degraded in the incident's thread", c[1], "chat.postMessage", root, "Acme · API: operational → degraded")
		}
		atDegraded := now()
		w.wantGauge("degraded", map[string]string{"API": "2", "Web UI": "0"})
		w.wantQuietPolls()

		w.worsenAndRecover("the incident's thread", root, "0")

		w.wantComponents(atDegraded, map[string]string{"API": "degraded", "Web UI": "operational"})
		w.wantComponents("", map[string]string{"API": "operational", "Web UI": "operational"})
		w.wantHistory("API operational→degraded", "API degraded→major_outage", "API major_outage→operational")
	})

	t.Run("maintenance window naming the component", func(t *testing.T) {
		t.Parallel()
		w := newCompWorld(t, "")
		at := time.Now().UTC().Truncate(time.Second)
		until := at.Add(2 * time.Hour)
		w.mnts = []fakepage.Incident{{ID: "mnt1", Name: "API database upgrade", Status: "in_progress", Impact: "maintenance",
			CreatedAt: at, UpdatedAt: at, StartedAt: at, ScheduledFor: &at, ScheduledUntil: &until,
			Components: []fakepage.Component{{ID: apiID, Name: "API", Status: "operational"}},
			Updates:    []fakepage.Update{{ID: "mnt1-u1", Status: "in_progress", Body: "The upgrade is under way.", CreatedAt: at, UpdatedAt: at, DisplayAt: at}}}}
		w.publish()
		w.poll()
		c := w.calls(1) // the maintenance's own root
		var root string
		if len(c) == 1 {
			root = c[0].TS
			if c[0].ThreadTS != "" || !strings.Contains(c[0].Text, "API database upgrade") {
				t.Errorf("maintenance root: got thread=%q %q", c[0].ThreadTS, c[0].Text)
			}
		}

		w.set(apiID, "under_maintenance")
		atMaint := now()
		w.wantGauge("maintenance", map[string]string{"API": "1", "Web UI": "0"})
		w.wantQuietPolls()
		w.set(apiID, "operational")
		w.wantGauge("back", map[string]string{"API": "0", "Web UI": "0"})
		w.wantQuietPolls()

		// Sentinel: Web UI, which no maintenance names, degrades: its root is the only call.
		w.set(webID, "degraded_performance")
		c = w.calls(1)
		wantCall(t, "sentinel", c[0], "chat.postMessage", "", "Acme: Web UI degraded — no incident posted")
		if c[0].TS == root {
			t.Errorf("sentinel went into the maintenance's thread")
		}
		w.wantGauge("sentinel", map[string]string{"API": "0", "Web UI": "2"})

		// Worse than maintenance inside the window is told, in the maintenance's thread.
		w.set(apiID, "degraded_performance")
		c = w.calls(1)
		wantCall(t, "degraded in the maintenance's thread", c[0], "chat.postMessage", root, "Acme · API: operational → degraded")
		w.wantQuietPolls()
		w.worsenAndRecover("the maintenance's thread", root, "2")

		w.wantComponents(atMaint, map[string]string{"API": "maintenance", "Web UI": "operational"})
		w.wantComponents("", map[string]string{"API": "operational", "Web UI": "degraded"})
		w.wantHistory("API operational→maintenance", "API maintenance→operational", "Web UI operational→degraded",
			"API operational→degraded", "API degraded→major_outage", "API major_outage→operational")
	})

	t.Run("component_changes archive", func(t *testing.T) {
		t.Parallel()
		w := newCompWorld(t, "    component_changes: archive\n")
		w.set(apiID, "degraded_performance")
		atDegraded := now()
		w.wantGauge("degraded", map[string]string{"API": "2", "Web UI": "0"})
		w.wantQuietPolls()
		w.set(apiID, "major_outage")
		w.wantGauge("major outage", map[string]string{"API": "4", "Web UI": "0"})
		w.wantQuietPolls()
		w.set(apiID, "operational")
		w.wantGauge("recovered", map[string]string{"API": "0", "Web UI": "0"})
		w.wantQuietPolls()

		// Sentinel: an incident; its root is the only call.
		at := time.Now().UTC().Truncate(time.Second)
		w.incs = []fakepage.Incident{{ID: "inc9", Name: "Login failures", Status: "investigating", Impact: "minor", CreatedAt: at, UpdatedAt: at, StartedAt: at,
			Updates: []fakepage.Update{{ID: "inc9-u1", Status: "investigating", Body: "Some logins fail.", CreatedAt: at, UpdatedAt: at, DisplayAt: at}}}}
		w.publish()
		w.poll()
		c := w.calls(1)
		if c[0].ThreadTS != "" || !strings.Contains(c[0].Text, "Login failures") {
			t.Errorf("sentinel: got thread=%q %q, want the incident's root", c[0].ThreadTS, c[0].Text)
		}
		w.wantComponents(atDegraded, map[string]string{"API": "degraded", "Web UI": "operational"})
		w.wantHistory("API operational→degraded", "API degraded→major_outage", "API major_outage→operational")
	})
}
