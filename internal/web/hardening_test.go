package web

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/model"
)

// TestVendorLinkOnlySafeSchemes: the incident page links the vendor's URL (a Statuspage
// shortlink) only when it is http, https or mailto; anything else shows no link, rather
// than a broken "#ZgotmplZ" one.
func TestVendorLinkOnlySafeSchemes(t *testing.T) {
	tests := []struct {
		url, want string // want: the href shown, "" for no link
	}{
		{"https://stspg.io/abc", "https://stspg.io/abc"},
		{"http://status.example.com/incidents/1", "http://status.example.com/incidents/1"},
		{"mailto:support@example.com", "mailto:support@example.com"},
		{"javascript:alert(1)", ""},
		{"JavaScript:alert(1)", ""},
		{" javascript:alert(1)", ""},
		{"data:text/html,<script>alert(1)</script>", ""},
		{"vbscript:msgbox(1)", ""},
		{"/relative/path", ""},
		{"https://", ""},
		{"http://[::1", ""},
		{"", ""},
	}
	e := newEnv(t)
	for i, tt := range tests {
		id := "inc-" + strconv.Itoa(i)
		e.record("links", t0.Add(time.Duration(i)*time.Minute), []model.Incident{{ID: id, Kind: model.KindIncident,
			Status: model.StatusInvestigating, Title: "Link " + id, StartedAt: t0, URL: tt.url}})
		body := string(e.get("/incidents/links/"+id, http.StatusOK).body)
		if strings.Contains(body, "ZgotmplZ") {
			t.Errorf("url %q: the page has a #ZgotmplZ link", tt.url)
		}
		got := ""
		if _, rest, ok := strings.Cut(body, "<dt>Vendor's page</dt><dd><a class=\"ext\" href=\""); ok {
			got, _, _ = strings.Cut(rest, "\"")
			got = html.UnescapeString(got)
		}
		if got != tt.want {
			t.Errorf("url %q: got link %q, want %q", tt.url, got, tt.want)
		}
	}
}

// TestHostCheck: without web.auth, only requests naming localhost, a loopback address, the
// server's own address or the hosts of listen and base_url are answered (DNS rebinding);
// with web.auth, any host; /healthz answers any host either way.
func TestHostCheck(t *testing.T) {
	withHosts := func(o *Options) {
		o.Listen = "watch.lan:8080"
		o.BaseURL = "https://Status.Example.com/watch/"
	}
	withAuth := func(o *Options) {
		withHosts(o)
		o.Auth.BearerToken = config.NewSecret("s3cret")
	}
	open, authed := newEnv(t, withHosts), newEnv(t, withAuth)
	tests := []struct {
		env        *env
		host, path string
		token      bool
		want       int
	}{
		{open, "localhost:8080", "/api/v1/sources", false, http.StatusOK},
		{open, "LOCALHOST.", "/api/v1/sources", false, http.StatusOK},
		{open, "127.0.0.1:8080", "/api/v1/sources", false, http.StatusOK},
		{open, "127.5.6.7", "/api/v1/backup", false, http.StatusOK},
		{open, "[::1]:8080", "/api/v1/sources", false, http.StatusOK},
		{open, "watch.lan:8080", "/api/v1/sources", false, http.StatusOK},
		{open, "status.example.com", "/", false, http.StatusOK},
		{open, "evil.example", "/api/v1/backup", false, http.StatusMisdirectedRequest},
		{open, "evil.example:8080", "/api/v1/sources", false, http.StatusMisdirectedRequest},
		{open, "evil.example", "/", false, http.StatusMisdirectedRequest},
		{open, "evil.example", "/no/such/page", false, http.StatusMisdirectedRequest},
		{open, "localhost.evil.example", "/api/v1/sources", false, http.StatusMisdirectedRequest},
		{open, "127.0.0.1.nip.io", "/api/v1/sources", false, http.StatusMisdirectedRequest},
		{open, "10.1.2.3:8080", "/api/v1/sources", false, http.StatusMisdirectedRequest},
		{open, "evil.example", "/healthz", false, http.StatusOK},
		{authed, "evil.example", "/api/v1/sources", true, http.StatusOK},
		{authed, "evil.example", "/api/v1/sources", false, http.StatusUnauthorized},
		{authed, "evil.example", "/healthz", false, http.StatusOK},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, tt.env.http.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tt.host
		if tt.token {
			req.Header.Set("Authorization", "Bearer s3cret")
		}
		resp, err := tt.env.http.Client().Do(req)
		if err != nil {
			t.Fatalf("GET %s (Host %s): %v", tt.path, tt.host, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("GET %s with Host %q, auth %v: got %d, want %d (%s)", tt.path, tt.host, tt.env == authed, resp.StatusCode, tt.want, b)
		}
		if tt.want == http.StatusMisdirectedRequest && !strings.Contains(string(b), "DNS rebinding") {
			t.Errorf("GET %s with Host %q: got body %s, want it to say why", tt.path, tt.host, b)
		}
	}
}

// TestConnectionLimit: clients holding idle connections (keep-alive between requests, or
// opened and silent) cannot hold more than the limit, and cannot lock out a request that
// wants an answer: /healthz and the API still answer, and the idle ones are closed to make
// room.
func TestConnectionLimit(t *testing.T) {
	const limit, idle, silent = 8, 16, 8
	e := newEnv(t)
	e.srv.maxConns = limit
	ln, cancel, done := e.serve()
	t.Cleanup(func() { cancel(); <-done })
	addr := ln.Addr().String()

	// get sends GET path on c and reads the answer; an error means the server closed c.
	get := func(c net.Conn, br *bufio.Reader, path string) (int, error) {
		c.SetDeadline(time.Now().Add(10 * time.Second)) // a bound, not a measure
		if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
			return 0, err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, err
	}
	type held struct {
		c  net.Conn
		br *bufio.Reader
	}
	var conns []held
	for i := range idle + silent {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		h := held{c, bufio.NewReader(c)}
		if i < idle {
			// A keep-alive request, then the connection is left idle. It may already be
			// closed to make room for a later one, which is what is tested.
			get(h.c, h.br, "/healthz")
		}
		conns = append(conns, h)
	}

	for _, path := range []string{"/healthz", "/api/v1/sources"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		status, err := get(c, bufio.NewReader(c), path)
		c.Close()
		if err != nil || status != http.StatusOK {
			t.Errorf("GET %s with %d connections held: got %d, %v; want 200", path, idle+silent, status, err)
		}
	}

	alive := 0
	for _, h := range conns {
		if status, err := get(h.c, h.br, "/healthz"); err == nil && status == http.StatusOK {
			alive++
		}
	}
	if alive > limit {
		t.Errorf("got %d of %d held connections still served, want at most the limit, %d", alive, len(conns), limit)
	}
}

// openIncidents are n open incidents started over the last 80 days, as a vendor that
// never closes anything leaves them.
func openIncidents(n int) []model.Incident {
	incs := make([]model.Incident, n)
	for i := range incs {
		incs[i] = model.Incident{ID: "inc-" + strconv.Itoa(i), Kind: model.KindIncident, Status: model.StatusInvestigating,
			Impact: model.ImpactMinor, Title: "Elevated errors on service number " + strconv.Itoa(i),
			StartedAt: now.Add(-time.Duration(i%80) * 24 * time.Hour), Components: []string{"API"},
			Updates: []model.Update{{ID: "u", Status: model.StatusInvestigating, Body: "We are investigating.",
				Format: model.FormatText, PostedAt: now.Add(-time.Duration(i%80) * 24 * time.Hour)}}}
	}
	return incs
}

// TestAnswersBounded: with 5,000 open incidents (and as many queued announcements), every
// page and list answers within a bound, and says what it left out. The source page's
// timeline used to list every open incident on each of its 90 days (17 MB here), the
// dashboard every open incident as a card (3.5 MB), the outbox every message.
func TestAnswersBounded(t *testing.T) {
	const n, maxAnswer = 5000, 512 << 10
	e := newEnv(t)
	e.record("big", now.Add(-time.Hour), openIncidents(n))
	tests := []struct {
		path string
		want []string // in the answer
	}{
		{"/sources/big", []string{"; and 4995 more</title>"}},
		{"/", []string{"5000 open incidents", "and 4950 more, listed on their sources' pages"}},
		{"/search?q=errors", []string{"the newest 100 shown"}},
		{"/feed.atom", nil},
		{"/sources/big/feed.atom", nil},
		{"/api/v1/incidents", nil},
		{"/api/v1/incidents?open=true&limit=1000", nil},
		{"/api/v1/outbox", nil},
		{"/api/v1/outbox?limit=1000", nil},
	}
	for _, tt := range tests {
		r := e.get(tt.path, http.StatusOK)
		if len(r.body) > maxAnswer {
			t.Errorf("GET %s: got %d bytes, want at most %d", tt.path, len(r.body), maxAnswer)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(r.body), w) {
				t.Errorf("GET %s: want the answer to contain %q", tt.path, w)
			}
		}
	}

	// The outbox's pages, followed, list every message once, oldest first.
	msgs, err := e.store.Messages(model.MessagePending, model.MessageParked)
	if err != nil || len(msgs) < n {
		t.Fatalf("queued messages: got %d, %v; want at least %d", len(msgs), err, n)
	}
	var ids []uint64
	for path, pages := "/api/v1/outbox?limit=700", 0; path != ""; pages++ {
		if pages > len(msgs) {
			t.Fatalf("the outbox's pages do not end")
		}
		var page []model.Message
		r := e.getJSON(path, http.StatusOK, &page)
		if len(page) > 700 {
			t.Fatalf("GET %s: got %d messages, want at most 700", path, len(page))
		}
		for _, m := range page {
			ids = append(ids, m.ID)
		}
		path = ""
		if c := r.header.Get("X-Next-Cursor"); c != "" {
			path = "/api/v1/outbox?limit=700&before=" + c
		}
	}
	once := slices.IsSorted(ids) && len(slices.Compact(slices.Clone(ids))) == len(ids)
	if len(ids) != len(msgs) || !once {
		t.Errorf("outbox pages: got %d ids (each once, in order: %v), want each of the %d messages once, oldest first", len(ids), once, len(msgs))
	}
}

// TestWholeArchiveReadsBounded: at most archiveReaders of the requests that read every
// archived incident run at once; the others wait their turn, and every route that reads
// the whole archive is among them.
func TestWholeArchiveReadsBounded(t *testing.T) {
	e := newEnv(t).seed()
	g := e.srv.readers
	for range archiveReaders {
		g.slots <- struct{}{} // every slot taken
	}
	paths := []string{"/", "/sources/acme", "/search?q=api", "/feed.atom", "/sources/acme/feed.atom",
		"/api/v1/incidents", "/api/v1/outbox"}
	done := make(chan int, len(paths))
	for _, p := range paths {
		go func() {
			resp, err := e.http.Client().Get(e.http.URL + p)
			if err != nil {
				done <- 0
				return
			}
			// Read to the end: the last chunk is written once the handler, and so the
			// gate's release, has returned.
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	// Every request waits (a bound of 20 s, not a measure).
	for deadline := time.Now().Add(20 * time.Second); g.waiting.Load() < int64(len(paths)); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("got %d requests waiting for the gate, want %d (%v)", g.waiting.Load(), len(paths), paths)
		}
	}
	select {
	case code := <-done:
		t.Fatalf("a request finished with every slot taken: status %d", code)
	default:
	}
	for range archiveReaders {
		<-g.slots
	}
	for range paths {
		if code := <-done; code != http.StatusOK {
			t.Errorf("got status %d once the gate opened, want 200", code)
		}
	}
	if n := len(g.slots); n != 0 {
		t.Errorf("got %d slots still taken, want 0", n)
	}

	// The requests themselves never run more than archiveReaders at a time.
	var running, peak atomic.Int64
	release := make(chan struct{})
	h := e.srv.wholeArchive(func(w http.ResponseWriter, r *http.Request) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		running.Add(-1)
	})
	var wg sync.WaitGroup
	for range 3 * archiveReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		}()
	}
	for deadline := time.Now().Add(20 * time.Second); g.waiting.Load() < 2*archiveReaders; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("got %d waiting, want %d", g.waiting.Load(), 2*archiveReaders)
		}
	}
	close(release)
	wg.Wait()
	if got := peak.Load(); got > archiveReaders {
		t.Errorf("got %d handlers running at once, want at most %d", got, archiveReaders)
	}
}

// FuzzHostAllowed: whatever Host a request names, the check never panics, and a host it
// lets through without web.auth is localhost, a loopback address, or one of the hosts of
// listen and base_url (the connection's own address is 127.0.0.1 here, so loopback).
func FuzzHostAllowed(f *testing.F) {
	for _, h := range []string{"localhost", "127.0.0.1:80", "[::1]:8080", "evil.example", "watch.lan", "[", "]:", "::1",
		"127.0.0.1.nip.io", "LOCALHOST.", "[fe80::1%eth0]:80", "0x7f000001", "2130706433", ""} {
		f.Add(h)
	}
	s := New(Options{Store: &archive.Store{}, Listen: "watch.lan:8080", BaseURL: "https://status.example.com/"})
	f.Fuzz(func(t *testing.T, host string) {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/sources", nil)
		r.Host = host
		if !s.hostAllowed(r) {
			return
		}
		h := host
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		h = normalHost(h)
		ip := net.ParseIP(h)
		if h != "" && h != "localhost" && !s.hosts[h] && (ip == nil || !ip.IsLoopback()) {
			t.Errorf("Host %q: let through, want refused", host)
		}
	})
}
