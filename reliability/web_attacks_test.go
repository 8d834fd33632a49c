package reliability

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// The web server under attack, on the built binary: a vendor that leaves 5,000 incidents
// open, clients that hold idle connections until the file descriptors run out, and a DNS
// rebinding page that names its own host.

// webConfig writes a config for one Statuspage source at pageURL, polled only when asked,
// with extra YAML appended, and returns its path.
func webConfig(t *testing.T, pageURL, extra string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	body := fmt.Sprintf("database: %s\nlisten: %s\non_first_poll: none\ndefaults:\n  schedule: \"@every 1h\"\n%ssources:\n  - name: acme\n    url: %s\n    kind: statuspage\n",
		filepath.Join(dir, "watcher.db"), testbin.FreeAddr(t), extra, pageURL)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// procStatus reads a field of /proc/PID/status in bytes ("VmHWM", "VmRSS"); the test
// fails without it, as the budget it checks would go unchecked.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	n, err := testbin.ReadProcStatus(pid, field)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFiveThousandOpenIncidents: a vendor leaves 5,000 incidents open; ten viewers at a
// time load each page. Every answer stays small (the source page's 90-day strip used to
// list every open incident on every day: 28 MB) and the daemon's peak RSS stays within
// the budget of 150 MB.
func TestFiveThousandOpenIncidents(t *testing.T) {
	const (
		open      = 5000
		viewers   = 10
		rounds    = 1
		maxAnswer = 1 << 20
		budget    = 150 << 20
	)
	now := time.Now().UTC()
	incs := make([]fakepage.Incident, open)
	for i := range incs {
		at := now.Add(-time.Duration(i%85)*24*time.Hour - time.Duration(i)*time.Second)
		id := fmt.Sprintf("inc%05d", i)
		incs[i] = fakepage.Incident{ID: id, Name: fmt.Sprintf("Elevated errors on service %d", i), Status: "investigating",
			Impact: []string{"minor", "major", "critical"}[i%3], CreatedAt: at, UpdatedAt: at, StartedAt: at,
			Shortlink: "https://stspg.io/" + id,
			Updates: []fakepage.Update{{ID: id + "-u1", Status: "investigating",
				Body: "We are investigating elevated error rates on service " + strconv.Itoa(i) + ".", CreatedAt: at, UpdatedAt: at, DisplayAt: at}}}
	}
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(incs, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()

	d := startDaemon(t, []string{"WATCHER_CONFIG=" + webConfig(t, srv.URL+"/", "")})
	if code, res := d.poll(t, "acme"); code != 200 || res["changes"] != float64(open) {
		t.Fatalf("poll: %d %v, want 200 {changes: %d}\n%s", code, res, open, d.log())
	}
	pid := d.Cmd.Process.Pid
	afterPoll := procStatus(t, pid, "VmHWM")
	// Reset the peak, so that what follows measures the viewers alone (Linux 4.0 on);
	// where it cannot be reset, the peak so far is kept, which is stricter.
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)

	pages := []struct {
		path string
		want string // in the answer
	}{
		{"/sources/acme", " more</title>"},
		{"/", "more, listed on their sources' pages"},
		{"/search?q=errors", "the newest 100 shown"},
		{"/api/v1/incidents?open=true&limit=1000", `"status":"investigating"`},
		{"/feed.atom", "<feed"},
		{"/sources/acme/feed.atom", "<feed"},
	}
	sizes := map[string]int{}
	var mu sync.Mutex
	for _, p := range pages {
		var wg sync.WaitGroup
		for range viewers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					resp, err := http.Get(d.url(p.path))
					if err != nil {
						t.Errorf("GET %s: %v", p.path, err)
						return
					}
					body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
					resp.Body.Close()
					if err != nil || resp.StatusCode != http.StatusOK {
						t.Errorf("GET %s: %d, %v", p.path, resp.StatusCode, err)
						return
					}
					if !strings.Contains(string(body), p.want) {
						t.Errorf("GET %s: want the answer to contain %q", p.path, p.want)
					}
					mu.Lock()
					sizes[p.path] = max(sizes[p.path], len(body))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	peak := procStatus(t, pid, "VmHWM")
	for _, p := range pages {
		t.Logf("GET %s: %d bytes", p.path, sizes[p.path])
		if sizes[p.path] > maxAnswer {
			t.Errorf("GET %s: got %d bytes, want at most %d", p.path, sizes[p.path], maxAnswer)
		}
	}
	t.Logf("peak RSS: %.1f MiB after the poll of %d open incidents, %.1f MiB while %d viewers at once loaded each page (%d rounds)",
		float64(afterPoll)/(1<<20), open, float64(peak)/(1<<20), viewers, rounds)
	if peak > budget {
		t.Errorf("peak RSS while viewing: got %.1f MiB, want under %d MiB", float64(peak)/(1<<20), budget>>20)
	}
}

// holdIdle opens a connection to addr, sends one keep-alive request for /healthz, reads
// the answer and leaves the connection open and idle. It reports whether that worked
// within a bound of 5 s.
func holdIdle(addr string) (net.Conn, bool) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, false
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		return c, false
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return c, false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c.SetDeadline(time.Time{})
	return c, resp.StatusCode == http.StatusOK
}

// TestConnectionExhaustion: under a limit of 1,024 file descriptors, clients open 1,200
// keep-alive connections and leave them idle. /healthz and the API still answer, and the
// daemon never runs out of descriptors (before the limit: "accept4: too many open files",
// and nothing answered until the idle connections timed out).
func TestConnectionExhaustion(t *testing.T) {
	const fds, idle = 1024, 1200
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(nil, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	wrapper := filepath.Join(t.TempDir(), "watcher-ulimit")
	script := fmt.Sprintf("#!/bin/sh\nulimit -n %d || exit 1\nexec %s \"$@\"\n", fds, testbin.Build(t))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	d := &daemon{testbin.StartDaemon(t, wrapper, []string{"WATCHER_CONFIG=" + webConfig(t, srv.URL+"/", "")})}

	var (
		mu    sync.Mutex
		conns []net.Conn
		sem   = make(chan struct{}, 64)
		wg    sync.WaitGroup
		held  int
	)
	for range idle {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, ok := holdIdle(d.Addr)
			mu.Lock()
			defer mu.Unlock()
			if c != nil {
				conns = append(conns, c)
			}
			if ok {
				held++
			}
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	t.Logf("%d of %d idle keep-alive connections were answered", held, idle)

	client := &http.Client{Timeout: 10 * time.Second} // a bound, not a measure
	for _, path := range []string{"/healthz", "/api/v1/sources"} {
		resp, err := client.Get(d.url(path))
		if err != nil {
			t.Errorf("GET %s with %d idle connections held: %v\n%s", path, idle, err, d.log())
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with %d idle connections held: got %d, want 200", path, idle, resp.StatusCode)
		}
	}
	if code, res := d.poll(t, "acme"); code != 200 {
		t.Errorf("poll with %d idle connections held: %d %v, want 200", idle, code, res)
	}
	if strings.Contains(d.log(), "too many open files") {
		t.Errorf("the daemon ran out of file descriptors:\n%s", d.log())
	}
}

// TestHostRebinding: with the default loopback, no-auth setup, a request that names
// another host (a DNS rebinding page) is refused, backup and polls included; the loopback
// names, the listen address and base_url's host are answered, and /healthz answers any
// host. With web.auth set, any host is answered with the credentials.
func TestHostRebinding(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(nil, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	open := startDaemon(t, []string{"WATCHER_CONFIG=" + webConfig(t, srv.URL+"/", "base_url: https://watch.example.com\n")})
	authed := startDaemon(t, []string{"WEB_TOKEN=s3cret", "WATCHER_CONFIG=" + webConfig(t, srv.URL+"/",
		"web:\n  auth:\n    bearer_token: ${WEB_TOKEN}\n")})
	_, port, _ := net.SplitHostPort(open.Addr)
	tests := []struct {
		d                  *daemon
		method, host, path string
		token              bool
		want               int
	}{
		{open, "GET", "evil.example", "/api/v1/backup", false, http.StatusMisdirectedRequest},
		{open, "GET", "evil.example:" + port, "/api/v1/sources", false, http.StatusMisdirectedRequest},
		{open, "POST", "evil.example", "/api/v1/sources/acme/poll", false, http.StatusMisdirectedRequest},
		{open, "POST", "evil.example", "/api/v1/outbox/1/drop", false, http.StatusMisdirectedRequest},
		{open, "GET", "evil.example", "/", false, http.StatusMisdirectedRequest},
		{open, "POST", "evil.example", "/mcp", false, http.StatusMisdirectedRequest},
		{open, "GET", "evil.example", "/healthz", false, http.StatusOK},
		{open, "GET", open.Addr, "/api/v1/backup", false, http.StatusOK},
		{open, "GET", "localhost:" + port, "/api/v1/sources", false, http.StatusOK},
		{open, "GET", "watch.example.com", "/", false, http.StatusOK},
		{authed, "GET", "evil.example", "/api/v1/sources", true, http.StatusOK},
		{authed, "GET", "evil.example", "/api/v1/sources", false, http.StatusUnauthorized},
		{authed, "POST", "evil.example", "/mcp", false, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, tt.d.url(tt.path), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tt.host
		if tt.token {
			req.Header.Set("Authorization", "Bearer s3cret")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s (Host %s): %v", tt.method, tt.path, tt.host, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s with Host %q (auth %v): got %d, want %d", tt.method, tt.path, tt.host, tt.d == authed, resp.StatusCode, tt.want)
		}
	}
}
