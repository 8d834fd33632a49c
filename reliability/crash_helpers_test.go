package reliability

// The helpers of TestCrashLoops (crash_test.go): its seed flag, the changing vendor pages,
// the tap on Slack's answers, the processes' lives, and the checks of what each receiver
// took.

import (
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/fakesmtp"
	"github.com/statuswatch/statuswatch/internal/faketeams"
	"github.com/statuswatch/statuswatch/internal/model"
)

var crashSeed = flag.Uint64("crash-seed", 0, "seed of TestCrashLoops' schedule; 0 takes one from the clock")

// killWindow bounds how long after Slack's answer a kill may come for a repeated message to
// be explained by it: the process must die before the mark-sent transaction commits. That
// is one write after the answer, usually under a millisecond, but it queues behind the
// polls' writes for bbolt's single writer and their fsyncs: up to 0.6 s was seen on two
// busy cores.
const killWindow = 2 * time.Second

// crashPages serves a fake Statuspage page per source under /<source>/ and logs, for every
// incidents.json request, which state of the page it served: each change of a page is a
// new state, numbered from 0.
type crashPages struct {
	mu      sync.Mutex
	pages   map[string]*fakepage.Statuspage
	incs    map[string][]fakepage.Incident
	history map[string][]map[string]string // source → state → incident id → fingerprint
	hits    []pageHit
	t0      time.Time
	seq     int
}

// pageHit is one incidents.json request: the page state it was answered from, and how.
type pageHit struct {
	source string
	state  int
	status int
}

func (p *crashPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	src, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	rec := httptest.NewRecorder()
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + rest
	p.mu.Lock()
	page := p.pages[src]
	if page == nil {
		p.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	page.ServeHTTP(rec, r2)
	if rest == "api/v2/incidents.json" {
		p.hits = append(p.hits, pageHit{src, len(p.history[src]) - 1, rec.Code})
	}
	p.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// state returns the current state number of each source.
func (p *crashPages) state() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for s, h := range p.history {
		out[s] = len(h) - 1
	}
	return out
}

// set publishes a source's incidents as its next state; the caller holds mu.
func (p *crashPages) set(source string) {
	p.pages[source].Set(p.incs[source], nil)
	fps := map[string]string{}
	for _, in := range p.incs[source] {
		fps[in.ID] = pageFP(in)
	}
	p.history[source] = append(p.history[source], fps)
}

func (p *crashPages) at() time.Time {
	p.seq++
	return p.t0.Add(time.Duration(p.seq) * time.Minute)
}

func (p *crashPages) newIncident(source string) {
	at := p.at()
	id := fmt.Sprintf("%s-%d", source, len(p.incs[source])+1)
	in := fakepage.Incident{ID: id, Name: "Elevated errors " + id, Status: "investigating", Impact: "major", CreatedAt: at, UpdatedAt: at, StartedAt: at,
		Updates: []fakepage.Update{{ID: id + "-u1", Status: "investigating", Body: "We are looking into errors on " + id + ".", CreatedAt: at, UpdatedAt: at, DisplayAt: at}}}
	p.incs[source] = append([]fakepage.Incident{in}, p.incs[source]...)
}

// change makes one vendor change on one or two sources, at random: most often a new
// update (with a new status), sometimes a silent edit of an earlier update, sometimes a
// new incident. It returns what it did.
func (p *crashPages) change(rng *rand.Rand, round int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	sources := slices.Sorted(maps.Keys(p.pages))
	rng.Shuffle(len(sources), func(i, j int) { sources[i], sources[j] = sources[j], sources[i] })
	n := 1
	if rng.IntN(4) == 0 {
		n = 2
	}
	var did []string
	for _, src := range sources[:n] {
		incs := p.incs[src]
		at := p.at()
		switch x := rng.IntN(10); {
		case x == 0 && len(incs) < 4:
			p.newIncident(src)
			did = append(did, "new "+p.incs[src][0].ID)
		case x < 3:
			in := &incs[rng.IntN(len(incs))]
			u := &in.Updates[rng.IntN(len(in.Updates))]
			u.Body += fmt.Sprintf(" Edited in round %d.", round)
			u.UpdatedAt, in.UpdatedAt = at, at
			did = append(did, "edit "+u.ID)
		default:
			in := &incs[rng.IntN(len(incs))]
			status := []string{"investigating", "identified", "monitoring"}[rng.IntN(3)]
			id := fmt.Sprintf("%s-u%d", in.ID, len(in.Updates)+1)
			in.Updates = append([]fakepage.Update{{ID: id, Status: status, Body: fmt.Sprintf("Round %d: %s on %s.", round, status, in.ID),
				CreatedAt: at, UpdatedAt: at, DisplayAt: at}}, in.Updates...)
			in.Status, in.UpdatedAt = status, at
			did = append(did, "update "+id)
		}
		p.set(src)
	}
	return strings.Join(did, ", ")
}

// pageFP and modelFP fingerprint an incident's content as the page serves it and as the
// archive keeps it: its status and every update's id and text.
func pageFP(in fakepage.Incident) string {
	ups := make([]string, 0, len(in.Updates))
	for _, u := range in.Updates {
		ups = append(ups, u.ID+"="+u.Body)
	}
	sort.Strings(ups)
	return in.Status + "|" + strings.Join(ups, "|")
}

func modelFP(in model.Incident) string {
	ups := make([]string, 0, len(in.Updates))
	for _, u := range in.Updates {
		ups = append(ups, u.ID+"="+u.Body)
	}
	sort.Strings(ups)
	return in.StatusRaw + "|" + strings.Join(ups, "|")
}

// slackTap sits between the daemon and the fake Slack and signals each chat.postMessage
// answer once it has gone back to the daemon, so a kill can follow it closely.
type slackTap struct {
	proxy *httputil.ReverseProxy
	posts chan struct{}
}

func newSlackTap(s *fakeslack.Server) *slackTap {
	u, _ := url.Parse(s.URL())
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // a request cut by a kill is no news
	return &slackTap{proxy: proxy, posts: make(chan struct{}, 1)}
}

func (s *slackTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.proxy.ServeHTTP(w, r)
	if strings.HasSuffix(r.URL.Path, "/chat.postMessage") {
		http.NewResponseController(w).Flush()
		select {
		case s.posts <- struct{}{}:
		default:
		}
	}
}

// arm forgets answers signalled so far.
func (s *slackTap) arm() {
	select {
	case <-s.posts:
	default:
	}
}

// crashLife is one process of the crash loop, `watcher run` or `watcher poll`.
type crashLife struct {
	round        int
	what         string // "run" or "poll"
	trigger      string
	start, death time.Time
	killAt       time.Time // zero: not killed (it exited on its own, or was stopped)
	changes      string
}

// took is one copy of a message a receiver took: the message's name (messageKey's), and
// when the receiver answered.
type took struct {
	key string
	at  time.Time
}

// checkTaken checks what one receiver took against the outbox messages it was owed, by
// name: none lost, none taken for no message, and a message taken again only when the
// process that first delivered it was killed right after the answer (before it could
// mark the message sent). It returns the lost and repeated counts.
func checkTaken(t *testing.T, receiver string, want map[string]model.Message, got []took, lives []crashLife) (lost, dups int) {
	t.Helper()
	byKey := map[string][]time.Time{}
	for _, g := range got {
		byKey[g.key] = append(byKey[g.key], g.at)
	}
	for k, m := range want {
		if len(byKey[k]) == 0 {
			lost++
			t.Errorf("LOST: %s message %d (%s) never taken", receiver, m.ID, k)
		}
	}
	for k, ats := range byKey {
		if _, ok := want[k]; !ok {
			t.Errorf("%s took %d copies of %q, no outbox message of it", receiver, len(ats), k)
		}
		for _, at := range ats[:len(ats)-1] {
			dups++
			if l := ownerAt(lives, at); l == nil || l.killAt.IsZero() || l.killAt.Sub(at) > killWindow {
				t.Errorf("REPEATED: %s took %s at %s from a process not killed right after (%+v)", receiver, k, at.Format("15:04:05.000"), l)
			}
		}
	}
	return lost, dups
}

// teamsKey names the message a Teams card announces by its link: the incident's page for
// its first card, the version's diff for a later one (as callKey names Slack's).
func teamsKey(p faketeams.Post) string {
	m := linkRE.FindStringSubmatch(string(p.Body))
	switch {
	case m == nil:
		return ""
	case m[3] == "":
		return "root " + m[1] + "/" + m[2]
	}
	return m[1] + "/" + m[2] + " v" + m[3]
}

// mailIDRE reads a mail's Message-ID: the incident's thread id for its first message,
// the version and outbox id added for a later one.
var mailIDRE = regexp.MustCompile(`^<incident\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)(?:\.v(\d+)\.m\d+)?@example\.test>$`)

// mailKey names the message a mail carries by its Message-ID.
func mailKey(m fakesmtp.Message) string {
	id := mailIDRE.FindStringSubmatch(m.Header().Get("Message-Id"))
	switch {
	case id == nil:
		return "Message-ID " + m.Header().Get("Message-Id")
	case id[3] == "":
		return "root " + id[1] + "/" + id[2]
	}
	return id[1] + "/" + id[2] + " v" + id[3]
}

// ownerAt is the process that started last before at: processes run one after the
// other, and a request sent just before a kill may be answered just after.
func ownerAt(lives []crashLife, at time.Time) *crashLife {
	var out *crashLife
	for i := range lives {
		if !at.Before(lives[i].start) {
			out = &lives[i]
		}
	}
	return out
}

// appendConfig adds text at the end of the config file cfg.
func appendConfig(t *testing.T, cfg, text string) {
	t.Helper()
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// waitSlackQuiet waits until the fake Slack has had no call for d.
func waitSlackQuiet(s *fakeslack.Server, d time.Duration) {
	deadline := time.Now().Add(30 * time.Second)
	n := len(s.Calls())
	last := time.Now()
	for time.Now().Before(deadline) && time.Since(last) < d {
		time.Sleep(100 * time.Millisecond)
		if m := len(s.Calls()); m != n {
			n, last = m, time.Now()
		}
	}
}
