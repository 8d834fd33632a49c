package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakepagerduty"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/fakesmtp"
	"github.com/statuswatch/statuswatch/internal/faketeams"
	"github.com/statuswatch/statuswatch/internal/fakewebhook"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// TestCrashLoops kills the daemon (and `watcher poll`) with SIGKILL at random points of
// poll, record and delivery, round after round while the vendor pages change, then runs it
// to quiescence and checks what docs/design.md §7 promises: the archive passes bbolt's check, no
// archived version is lost, every change set reaches Slack, and a message is repeated only
// when a kill fell between Slack's answer and the mark-sent write.
//
// What counts as archived (so must never be lost): a page state the daemon acknowledged
// (POST /poll answered 200, or `watcher poll` finished without an error for the source),
// and a page state later answered 304 (the daemon sent its ETag, which is stored in the
// same transaction as the versions). A state that a killed poll fetched but never
// committed was never archived: the next poll reads the page afresh.
func TestCrashLoops(t *testing.T) {
	started := time.Now()
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (go test ./reliability/ -run TestCrashLoops -crash-seed %d replays this schedule)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	rounds := 120
	if *long {
		rounds *= 10
	}
	bin := testbin.Build(t)

	sources := []string{"acme", "beta", "gamma"}
	pages := &crashPages{pages: map[string]*fakepage.Statuspage{}, incs: map[string][]fakepage.Incident{}, history: map[string][]map[string]string{},
		t0: time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)}
	for _, s := range sources {
		pages.pages[s] = &fakepage.Statuspage{Name: s}
		pages.newIncident(s)
		pages.newIncident(s)
		pages.set(s)
	}
	srv := httptest.NewServer(pages)
	defer srv.Close()
	slack := fakeslack.New(fakeslack.Options{Token: slackToken})
	defer slack.Close()
	tap := newSlackTap(slack)
	tapSrv := httptest.NewServer(tap)
	defer tapSrv.Close()
	dir := t.TempDir()
	cfg, db := writeSlackConfig(t, dir, "127.0.0.1:0", srv.URL, tapSrv.URL+"/api/", sources)
	// Every message goes to a signed webhook too, its own queue in the outbox: the same
	// kills must lose and repeat nothing there either.
	// So does PagerDuty (a trigger per new incident), Teams (a card per message) and email
	// (a mail per message, over plain SMTP: the e2e suite covers STARTTLS).
	hook := fakewebhook.New("crash-loops-secret")
	defer hook.Close()
	pd := fakepagerduty.New(fakepagerduty.Options{RoutingKey: "crash-loops-key"})
	defer pd.Close()
	ms := faketeams.New(faketeams.Options{})
	defer ms.Close()
	mail, err := fakesmtp.New(fakesmtp.Options{NoTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mail.Close()
	// Teams takes a card a second per webhook: one Teams channel per source, as a team
	// would have, keeps its cards from outlasting the rest.
	var rc, routes strings.Builder
	rc.WriteString("receivers:\n  - name: hooks\n    webhook: {url: " + hook.URL() + ", secret: crash-loops-secret}\n" +
		"  - name: oncall\n    pagerduty: {routing_key: crash-loops-key, api_url: \"" + pd.URL() + "\"}\n" +
		"  - name: mail\n    email: {smtp: \"" + mail.Addr() + "\", from: watcher@example.test, to: [sre@example.test], starttls: false}\n")
	routes.WriteString("routes:\n")
	for _, s := range sources {
		fmt.Fprintf(&rc, "  - name: ops-%s\n    teams: {webhook_url: \"%s\"}\n", s, ms.WebhookURL(s))
		fmt.Fprintf(&routes, "  - match: {sources: [%s]}\n    receivers: [slack, hooks, oncall, ops-%s, mail]\n", s, s)
	}
	appendConfig(t, cfg, rc.String()+routes.String())
	env := slackEnv(cfg, slackToken)

	// acked[source][state]: the daemon said it archived that state.
	var ackMu sync.Mutex
	acked := map[string]map[int]bool{}
	ack := func(src string, state int) {
		ackMu.Lock()
		defer ackMu.Unlock()
		if acked[src] == nil {
			acked[src] = map[int]bool{}
		}
		acked[src][state] = true
	}

	// The first poll, to completion: every incident is announced.
	first := time.Now()
	// Teams takes a card a second: its six roots need more than poll's default 5 s.
	testbin.Must(t, 0, env, "poll", "-deliver-timeout", "30s")
	for src, st := range pages.state() {
		ack(src, st)
	}
	lives := []crashLife{{what: "poll (first)", start: first, death: time.Now()}}

	client := &http.Client{Timeout: 30 * time.Second}
	var kills, slackKills, earlyExits, pollRuns, cutPolls int
	var logs []string
	for round := 1; round <= rounds; round++ {
		did := pages.change(rng, round)
		states := pages.state()
		l := crashLife{round: round, changes: did}
		afterSlack := rng.IntN(10) < 3
		// Half the kills anywhere in 0–400 ms, half in the first 60 ms, where the polls
		// and their writes are.
		delay := time.Duration(rng.IntN(401)) * time.Millisecond
		if rng.IntN(2) == 0 {
			delay = time.Duration(rng.IntN(61)) * time.Millisecond
		}
		if afterSlack {
			// Right after Slack answered, or a little later: in the mark-sent write, or
			// past it.
			delay = time.Duration(max(0, rng.IntN(40)-15)) * time.Millisecond
			l.trigger = fmt.Sprintf("%s after a Slack answer", delay)
		} else {
			l.trigger = fmt.Sprintf("%s after the poll began", delay)
		}
		tap.arm()
		kill := func(p *os.Process, exited <-chan struct{}) {
			if afterSlack {
				select {
				case <-tap.posts:
				case <-exited:
				case <-time.After(5 * time.Second):
					l.trigger += " (no Slack answer within 5s)"
				}
			}
			select {
			case <-time.After(delay):
			case <-exited:
			}
			select {
			case <-exited:
				earlyExits++
			default:
				l.killAt = time.Now()
				p.Signal(syscall.SIGKILL)
				kills++
				if afterSlack {
					slackKills++
				}
			}
		}

		if rng.IntN(4) == 0 {
			// `watcher poll`: the kill can fall anywhere from opening the archive on.
			pollRuns++
			l.what = "poll"
			cmd := exec.Command(bin, "poll")
			cmd.Env = append(append(os.Environ(), "SLACK_BOT_TOKEN=", "STATE_DIRECTORY=", "WATCHER_CONFIG="), env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			l.start = time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			kill(cmd.Process, exited)
			<-exited
			l.death = time.Now()
			if l.killAt.IsZero() {
				if code := cmd.ProcessState.ExitCode(); code != 0 && code != 3 {
					t.Errorf("round %d: watcher poll exited %d:\n%s", round, code, stderr.String())
				}
				for _, src := range sources {
					if !strings.Contains(stderr.String(), "\n"+src+": ") && !strings.HasPrefix(stderr.String(), src+": ") {
						ack(src, states[src])
					}
				}
			}
			logs = append(logs, fmt.Sprintf("== round %d watcher poll\n%s", round, stderr.String()))
		} else {
			l.what = "run"
			l.start = time.Now()
			d := startDaemon(t, env)
			var wg sync.WaitGroup
			var answered atomic.Int32
			for _, src := range sources {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := client.Post(d.url("/api/v1/sources/"+src+"/poll"), "application/json", nil)
					if err != nil {
						return // killed
					}
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						ack(src, states[src])
						answered.Add(1)
					}
				}()
			}
			kill(d.Cmd.Process, d.Done())
			<-d.Done()
			l.death = time.Now()
			wg.Wait()
			if int(answered.Load()) < len(sources) {
				cutPolls++
			}
			if l.killAt.IsZero() {
				t.Errorf("round %d: the daemon exited on its own:\n%s", round, d.log())
			}
			logs = append(logs, fmt.Sprintf("== round %d watcher run\n%s", round, d.log()))
		}
		lives = append(lives, l)
		t.Logf("round %2d: %-34s %s, killed %s", round, did, l.what, l.trigger)
	}
	loopTime := time.Since(started)

	// Quiescence: a daemon polls every source once more and delivers everything.
	final := crashLife{what: "run (final)", start: time.Now()}
	d := startDaemon(t, env)
	states := pages.state()
	for _, src := range sources {
		if code, body := d.poll(t, src); code != 200 {
			t.Fatalf("final poll of %s: %d %v\n%s", src, code, body, d.log())
		}
		ack(src, states[src])
	}
	waitUntil(t, 120*time.Second, "an empty outbox", func() bool { return len(undelivered(t, d)) == 0 },
		func() string { return fmt.Sprintf("%+v\n%s", undelivered(t, d), d.log()) })
	waitSlackQuiet(slack, 1500*time.Millisecond)
	d.stop(t)
	final.death = time.Now()
	lives = append(lives, final)
	defer func() {
		if !t.Failed() {
			return
		}
		// Every process's log, in a file that outlives the test: a failure names its round.
		logs = append(logs, "== final watcher run\n"+d.log())
		f, err := os.CreateTemp("", fmt.Sprintf("crash-loops-%d-*.log", seed))
		if err != nil {
			t.Logf("process logs:\n%s", strings.Join(logs, "\n"))
			return
		}
		f.WriteString(strings.Join(logs, "\n"))
		f.Close()
		t.Logf("every process's log: %s", f.Name())
	}()

	// The archive: `watcher incidents` opens it, bbolt's own check passes.
	if r := testbin.Must(t, 0, env, "incidents"); !strings.Contains(r.Stdout, "acme/acme-1") {
		t.Errorf("watcher incidents:\n%s", r.Stdout)
	}
	bdb, err := bolt.Open(db, 0o600, &bolt.Options{ReadOnly: true, Timeout: 10 * time.Second, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	var checkErrs []error
	bdb.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			checkErrs = append(checkErrs, err)
		}
		return nil
	})
	bdb.Close()
	for _, err := range checkErrs {
		t.Errorf("bbolt check: %v", err)
	}

	// Versions: none lost, none invented, none doubled.
	store, err := archive.Open(db, archive.Options{ReadOnly: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	pages.mu.Lock()
	history, hits, incs := pages.history, slices.Clone(pages.hits), pages.incs
	pages.mu.Unlock()
	for _, s := range hits {
		if s.status == http.StatusNotModified {
			ack(s.source, s.state) // the daemon held this state's ETag: it had archived it
		}
	}
	servedOK := map[string]map[int]bool{}
	for _, s := range hits {
		if s.status == http.StatusOK {
			if servedOK[s.source] == nil {
				servedOK[s.source] = map[int]bool{}
			}
			servedOK[s.source][s.state] = true
		}
	}
	var nVersions, nIncidents, nAcked int
	versions := map[string][]model.Version{} // source/id → versions
	for _, src := range sources {
		nAcked += len(acked[src])
		for _, in := range incs[src] {
			nIncidents++
			key := src + "/" + in.ID
			vs, err := store.Versions(src, in.ID)
			if err != nil {
				t.Errorf("versions of %s: %v", key, err)
				continue
			}
			versions[key] = vs
			nVersions += len(vs)
			have := map[string]int{}
			for i, v := range vs {
				fp := modelFP(v.Incident)
				if v.N != i+1 {
					t.Errorf("%s: version %d at position %d", key, v.N, i+1)
				}
				if i > 0 && fp == modelFP(vs[i-1].Incident) {
					t.Errorf("%s: versions %d and %d are the same content: a poll recorded twice", key, i, i+1)
				}
				have[fp] = v.N
				found := false
				for st := range servedOK[src] {
					found = found || history[src][st][in.ID] == fp
				}
				if !found {
					t.Errorf("%s version %d is no state the page served:\n%s", key, v.N, fp)
				}
			}
			if len(vs) == 0 || modelFP(vs[len(vs)-1].Incident) != pageFP(in) {
				t.Errorf("%s: the latest version is not the page's final state", key)
			}
			distinct := map[string]bool{}
			for st := range acked[src] {
				fp, ok := history[src][st][in.ID]
				if !ok {
					continue // not on the page yet in that state
				}
				distinct[fp] = true
				if _, ok := have[fp]; !ok {
					t.Errorf("%s: LOST: page state %d of %s was archived (acknowledged) but has no version:\n%s", key, st, src, fp)
				}
			}
			if len(vs) < len(distinct) {
				t.Errorf("%s: %d versions for %d distinct acknowledged states", key, len(vs), len(distinct))
			}
		}
	}

	// Messages: one per version, all sent; on Slack each at least once, and a repeat only
	// where a kill fell between Slack's answer and the mark-sent write.
	msgs, err := store.Messages()
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	perVersion := map[string]int{}
	known := map[string]model.Message{}
	hookRows := map[string]model.Message{}        // the webhook's, by delivery id
	rows := map[string]map[string]model.Message{} // the other receivers', by messageKey
	for _, m := range msgs {
		if m.State != model.MessageSent {
			t.Errorf("message %d (%s, receiver %q) is %s after quiescence: %s", m.ID, messageKey(m), m.Receiver, m.State, m.LastError)
		}
		if m.Receiver == "ops-"+m.Source {
			m.Receiver = "ops" // one Teams channel per source
		}
		perVersion[fmt.Sprintf("%s/%s v%d %s", m.Source, m.IncidentID, m.Version, m.Receiver)]++
		switch m.Receiver {
		case "hooks":
			hookRows[strconv.FormatUint(m.ID, 10)] = m
		case "":
			known[messageKey(m)] = m
		default:
			if rows[m.Receiver] == nil {
				rows[m.Receiver] = map[string]model.Message{}
			}
			rows[m.Receiver][messageKey(m)] = m
		}
	}
	for key, vs := range versions {
		for _, v := range vs {
			for _, r := range []string{"", "hooks", "oncall", "ops", "mail"} {
				if n := perVersion[fmt.Sprintf("%s v%d %s", key, v.N, r)]; n != 1 {
					t.Errorf("%s version %d has %d outbox messages for receiver %q, want 1", key, v.N, n, r)
				}
			}
		}
	}

	calls := slack.Calls()
	// A call is the process's that started last before Slack answered it: processes run
	// one after the other, and a request sent just before a kill may be answered just after.
	owner := func(c fakeslack.Call) *crashLife { return ownerAt(lives, c.At) }
	// lastCall[process] is the last call Slack answered to it, of any kind.
	lastCall := map[*crashLife]fakeslack.Call{}
	for _, c := range calls {
		if l := owner(c); l != nil {
			lastCall[l] = c
		} else {
			t.Errorf("a Slack call at %s from no process of the test", c.At.Format("15:04:05.000"))
		}
	}
	windows := 0
	for l, c := range lastCall {
		if !l.killAt.IsZero() && c.Method == "chat.postMessage" && c.OK() && l.killAt.Sub(c.At) <= killWindow {
			windows++
		}
	}
	byKey := map[string][]fakeslack.Call{}
	for _, c := range slackPosts(calls) {
		byKey[callKey(c)] = append(byKey[callKey(c)], c)
	}
	roots := map[string][]string{}
	for k, cs := range byKey {
		if strings.HasPrefix(k, "root ") {
			for _, c := range cs {
				roots[strings.TrimPrefix(k, "root ")] = append(roots[strings.TrimPrefix(k, "root ")], c.TS)
			}
		}
	}
	var dups, explained int
	var gaps []time.Duration
	for k, cs := range byKey {
		if _, ok := known[k]; !ok {
			t.Errorf("Slack got %d posts (%q) for no outbox message", len(cs), k)
		}
		for _, c := range cs {
			if m := linkRE.FindStringSubmatch(c.Text + string(c.Blocks)); c.ThreadTS != "" && m != nil && !slices.Contains(roots[m[1]+"/"+m[2]], c.ThreadTS) {
				t.Errorf("%s was posted in thread %s, none of its incident's roots %v", k, c.ThreadTS, roots[m[1]+"/"+m[2]])
			}
		}
		for _, c := range cs[:len(cs)-1] { // every copy but the last was repeated
			dups++
			l := owner(c)
			switch {
			case l == nil || l.killAt.IsZero():
				t.Errorf("REPEATED: %s was posted at %s by a process that was not killed (%+v)", k, c.At.Format("15:04:05.000"), l)
			case !lastCall[l].At.Equal(c.At) || callKey(lastCall[l]) != k:
				t.Errorf("REPEATED: %s was posted at %s by the process of round %d, which went on to call Slack again (%s %s) before its kill: it never marked the message sent",
					k, c.At.Format("15:04:05.000"), l.round, lastCall[l].Method, lastCall[l].At.Format("15:04:05.000"))
			case l.killAt.Sub(c.At) > killWindow:
				t.Errorf("REPEATED: %s was posted at %s by the process of round %d, killed %s later: far outside the mark-sent write",
					k, c.At.Format("15:04:05.000"), l.round, l.killAt.Sub(c.At))
			default:
				explained++
				gaps = append(gaps, l.killAt.Sub(c.At))
				t.Logf("repeated %-18s first posted by the %s of round %d, killed %s after Slack's answer", k, l.what, l.round, l.killAt.Sub(c.At))
			}
		}
	}

	// Root cards: after a reply the root is edited to the incident's latest state (docs/design.md §6).
	// The update owed is stored with the reply's mark-sent and cleared once done, so a kill
	// between a reply and its root's chat.update is made good by the next run: at the end
	// every root shows its incident's latest version.
	stale := 0
	for key, vs := range versions {
		n := len(vs)
		rts := roots[key]
		if n < 2 || len(rts) == 0 {
			continue
		}
		root := rts[len(rts)-1]
		edited := 0
		for _, c := range calls {
			if c.Method == "chat.update" && c.OK() && c.TS == root {
				if m := linkRE.FindStringSubmatch(c.Text + string(c.Blocks)); m != nil && m[3] != "" {
					edited, _ = strconv.Atoi(m[3])
				}
			}
		}
		if edited != n {
			stale++
			t.Errorf("the root of %s shows version %d, not the latest %d", key, edited, n)
		}
	}

	// The webhook: every row delivered, signed, with its own outbox id, and a repeat only
	// where a kill fell right after the webhook's answer.
	hookCalls := hook.Calls()
	delivered := map[string][]fakewebhook.Call{}
	for _, c := range hookCalls {
		if !c.SignatureOK {
			t.Errorf("webhook: delivery %s with a bad signature", c.Delivery)
		}
		if c.Status/100 == 2 {
			delivered[c.Delivery] = append(delivered[c.Delivery], c)
		}
	}
	var hookLost, hookDups int
	for id, m := range hookRows {
		cs := delivered[id]
		if len(cs) == 0 {
			hookLost++
			t.Errorf("LOST: webhook message %s (%s) never delivered", id, messageKey(m))
			continue
		}
		var p struct {
			Source   string `json:"source"`
			Incident *struct {
				ID string `json:"id"`
			} `json:"incident"`
		}
		if err := json.Unmarshal(cs[0].Body, &p); err != nil || p.Source != m.Source || (m.IncidentID != "" && (p.Incident == nil || p.Incident.ID != m.IncidentID)) {
			t.Errorf("webhook message %s (%s): payload %s (%v)", id, messageKey(m), cs[0].Body, err)
		}
		for _, c := range cs[:len(cs)-1] {
			hookDups++
			l := ownerAt(lives, c.At)
			if l == nil || l.killAt.IsZero() || l.killAt.Sub(c.At) > killWindow {
				t.Errorf("REPEATED: webhook message %s (%s) delivered at %s by a process not killed right after (%+v)", id, messageKey(m), c.At.Format("15:04:05.000"), l)
			}
		}
	}
	for id := range delivered {
		if _, ok := hookRows[id]; !ok {
			t.Errorf("the webhook got delivery %s for no outbox message", id)
		}
	}
	t.Logf("webhook: %d messages, %d deliveries, %d lost, %d repeated", len(hookRows), len(hookCalls), hookLost, hookDups)

	// PagerDuty, Teams, email: what each took, named as messageKey names its outbox
	// messages. PagerDuty pages a new incident only (nothing here resolves or worsens):
	// one accepted trigger per incident under dedup_key <source>/<id>.
	var pdTook, msTook, mailTook []took
	for _, e := range pd.Accepted() {
		if e.Action != "trigger" || e.RoutingKey != "crash-loops-key" {
			t.Errorf("PagerDuty: an accepted %s event under key %q for %s", e.Action, e.RoutingKey, e.DedupKey)
		}
		pdTook = append(pdTook, took{"root " + e.DedupKey, e.At})
	}
	pdWant := map[string]model.Message{}
	for k, m := range rows["oncall"] {
		if m.Event == model.EventNew {
			pdWant[k] = m
		}
	}
	for _, p := range ms.Accepted() {
		k := teamsKey(p)
		if !strings.HasPrefix(strings.TrimPrefix(k, "root "), p.Hook+"/") {
			t.Errorf("Teams: %q was posted to the channel of %s", k, p.Hook)
		}
		msTook = append(msTook, took{k, p.At})
	}
	for _, m := range mail.Messages() {
		mailTook = append(mailTook, took{mailKey(m), m.At})
	}
	for _, r := range []struct {
		name string
		want map[string]model.Message
		got  []took
	}{{"pagerduty", pdWant, pdTook}, {"teams", rows["ops"], msTook}, {"email", rows["mail"], mailTook}} {
		lost, dups := checkTaken(t, r.name, r.want, r.got, lives)
		t.Logf("%s: %d messages to take, %d taken, %d lost, %d repeated", r.name, len(r.want), len(r.got), lost, dups)
	}

	lost := 0
	for k, m := range known {
		if len(byKey[k]) == 0 {
			lost++
			t.Errorf("LOST: message %d (%s) never reached Slack", m.ID, k)
		}
	}
	slices.Sort(gaps)
	if windows == 0 {
		t.Errorf("no kill fell right after a Slack answer: the mark-sent window was never tried")
	}
	t.Logf("crash loops: seed %d; %d rounds (%d watcher run, %d watcher poll) in %s; %d SIGKILLs (%d right after a Slack answer, %d of a daemon before it answered every poll), %d processes finished first",
		seed, rounds, rounds-pollRuns, pollRuns, loopTime.Round(time.Second), kills, slackKills, cutPolls, earlyExits)
	t.Logf("archive: bbolt check clean: %v; %d incidents, %d versions, %d acknowledged page states, all archived (0 lost)",
		len(checkErrs) == 0, nIncidents, nVersions, nAcked)
	spread := "no repeat"
	if len(gaps) > 0 {
		spread = fmt.Sprintf("the kill %s to %s after Slack's answer, median %s", gaps[0], gaps[len(gaps)-1], gaps[len(gaps)/2])
	}
	t.Logf("Slack: %d messages, %d posts, %d lost, %d repeated, %d of them explained by a kill between Slack's answer and mark-sent (%s); %d kills fell within %s after a post's answer",
		len(known), len(slackPosts(calls)), lost, dups, explained, spread, windows, killWindow)
	t.Logf("root cards: %d of %d threads left showing an older version", stale, len(roots))
	t.Logf("total %s", time.Since(started).Round(time.Second))
}
