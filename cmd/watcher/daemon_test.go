package main

// End-to-end tests of `watcher run`: the real binary under a fake service manager
// (NOTIFY_SOCKET), against an httptest Statuspage page, driven through its HTTP API and
// signals.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// notifySocket is a fake systemd notify socket that records every datagram.
type notifySocket struct {
	conn *net.UnixConn
	path string
	mu   sync.Mutex
	got  []string
	ch   chan string
}

func newNotifySocket(t *testing.T) *notifySocket {
	t.Helper()
	// Unix socket paths are short: keep it out of the long TempDir.
	dir, err := os.MkdirTemp("", "sdn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	s := &notifySocket{conn: conn, path: path, ch: make(chan string, 256)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			msg := string(buf[:n])
			s.mu.Lock()
			s.got = append(s.got, msg)
			s.mu.Unlock()
			select {
			case s.ch <- msg:
			default:
			}
		}
	}()
	t.Cleanup(func() { conn.Close() })
	return s
}

// waitFor waits until a datagram equal to want arrives.
func (s *notifySocket) waitFor(t *testing.T, want string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case msg := <-s.ch:
			if msg == want {
				return
			}
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("no %q from the daemon within %s; got %q", want, within, s.got)
		}
	}
}

// daemonProc is a running `watcher run` (internal/testbin).
type daemonProc struct{ *testbin.Daemon }

// startDaemon runs `watcher run -config cfg` and waits until it serves.
func startDaemon(t *testing.T, cfg string, env ...string) *daemonProc {
	t.Helper()
	return &daemonProc{testbin.StartDaemon(t, binary, env, "-config", cfg)}
}

func (d *daemonProc) log() string { return d.Log() }

func (d *daemonProc) url(path string) string { return d.URL(path) }

// stop sends SIGTERM and expects a clean exit.
func (d *daemonProc) stop(t *testing.T) {
	t.Helper()
	if code := d.Stop(t); code != 0 {
		t.Errorf("daemon exited %d after SIGTERM:\n%s", code, d.Log())
	}
}

func getJSON(t *testing.T, url string, into any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatalf("GET %s: decode: %v", url, err)
		}
	}
	return resp.StatusCode
}

func postPoll(t *testing.T, d *daemonProc, source string) (int, map[string]any) {
	t.Helper()
	return d.PollNow(t, source)
}

func daemonConfig(t *testing.T, dir string, sources map[string]string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nlisten: %s\nsources:\n", filepath.Join(dir, "watcher.db"), freeAddr(t, dir))
	for _, name := range sortedKeys(sources) {
		fmt.Fprintf(&b, "  - name: %s\n    url: %s\n    kind: statuspage\n    schedule: \"@every 1h\"\n", name, sources[name])
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// freeAddr picks a loopback port once per test directory, so the browse commands can reach
// the daemon at its configured listen address.
func freeAddr(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "listen")
	if b, err := os.ReadFile(path); err == nil {
		return string(b)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	os.WriteFile(path, []byte(addr), 0o600)
	return addr
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}

func TestDaemonNotifyReloadAndMetrics(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page.Set([]fakepage.Incident{{
		ID: "inc1", Name: "API errors", Status: "investigating", Impact: "major", CreatedAt: t0, UpdatedAt: t0, StartedAt: t0,
		Updates: []fakepage.Update{{ID: "u1", Status: "investigating", Body: "Looking into it.", CreatedAt: t0, UpdatedAt: t0, DisplayAt: t0}},
	}}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	dir := t.TempDir()
	cfg := daemonConfig(t, dir, map[string]string{"acme": srv.URL})
	sock := newNotifySocket(t)

	d := startDaemon(t, cfg, "NOTIFY_SOCKET="+sock.path, "WATCHDOG_USEC=2000000")
	sock.waitFor(t, "READY=1", 10*time.Second)
	sock.waitFor(t, "WATCHDOG=1", 10*time.Second)

	t.Run("poll through the API", func(t *testing.T) {
		code, body := postPoll(t, d, "acme")
		if code != http.StatusOK || body["changes"] != float64(1) {
			t.Fatalf("POST poll: %d %v, want 200 {changes: 1}", code, body)
		}
		var inc map[string]any
		if code := getJSON(t, d.url("/api/v1/incidents/acme/inc1"), &inc); code != 200 || inc["title"] != "API errors" {
			t.Errorf("GET incident: %d %v", code, inc)
		}
		if code, _ := postPoll(t, d, "nope"); code != http.StatusNotFound {
			t.Errorf("POST poll of an unknown source: %d, want 404", code)
		}
	})

	t.Run("browse commands go through the daemon", func(t *testing.T) {
		r := watcher(t, cfg, "incidents")
		if r.code != exitOK || !strings.Contains(r.stdout, "acme/inc1") {
			t.Errorf("incidents while the daemon runs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("SIGHUP with a broken config keeps the old one", func(t *testing.T) {
		good, _ := os.ReadFile(cfg)
		os.WriteFile(cfg, []byte("sources: [\n"), 0o600)
		d.Cmd.Process.Signal(syscall.SIGHUP)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(d.log(), "reload refused") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(d.log(), "reload refused") {
			t.Fatalf("no \"reload refused\" in the log:\n%s", d.log())
		}
		os.WriteFile(cfg, good, 0o600)
		if code, _ := postPoll(t, d, "acme"); code != http.StatusOK {
			t.Errorf("after a refused reload, POST poll: %d, want 200", code)
		}
	})

	t.Run("SIGHUP adds a source", func(t *testing.T) {
		cfg2 := daemonConfig(t, dir, map[string]string{"acme": srv.URL, "beta": srv.URL + "/beta"})
		if cfg2 != cfg {
			t.Fatal("config path moved")
		}
		d.Cmd.Process.Signal(syscall.SIGHUP)
		sock.waitFor(t, "RELOADING=1", 10*time.Second)
		sock.waitFor(t, "READY=1", 10*time.Second)
		var sources []map[string]any
		getJSON(t, d.url("/api/v1/sources"), &sources)
		var names []string
		for _, s := range sources {
			names = append(names, fmt.Sprint(s["name"]))
		}
		if strings.Join(names, ",") != "acme,beta" {
			t.Errorf("sources after reload: %v, want acme,beta", names)
		}
		var acme map[string]any
		for _, s := range sources {
			if s["name"] == "acme" {
				acme = s
			}
		}
		if acme["last_success_at"] == nil {
			t.Errorf("acme lost its poll state across the reload: %v", acme)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		resp, err := http.Get(d.url("/metrics"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, want := range []string{
			`watcher_polls_total{result="ok",source="acme"} 1`,
			`watcher_changes_total{source="acme"} 1`,
			`watcher_source_open_incidents{impact="major",source="acme"} 1`,
			`watcher_source_last_success_timestamp_seconds{source="acme"}`,
			`watcher_outbox_messages{state="pending"}`,
			`watcher_notifications_total{receiver="console",result="sent"} 1`,
			`watcher_build_info{`,
		} {
			if !strings.Contains(string(b), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	})

	t.Run("healthz", func(t *testing.T) {
		resp, err := http.Get(d.url("/healthz"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("/healthz: %d, want 200", resp.StatusCode)
		}
	})

	d.stop(t)
}

// TestDaemonBuildsSearchIndexOfOlderArchive starts `watcher run` on an archive of layout 4
// (its index in the old form): before READY=1 it tells the service manager that it is
// building the index, extending the start timeout, and once ready a search through the
// API finds the words the vendor removed.
func TestDaemonBuildsSearchIndexOfOlderArchive(t *testing.T) {
	dir := t.TempDir()
	cfg := daemonConfig(t, dir, map[string]string{"src-0": "http://127.0.0.1:1/unused"})
	testbin.Gunzip(t, "../../internal/archive/testdata/search-layout-4.db.gz", filepath.Join(dir, "watcher.db"))
	sock := newNotifySocket(t)
	d := startDaemon(t, cfg, "NOTIFY_SOCKET="+sock.path)
	sock.waitFor(t, "READY=1", 30*time.Second)
	sock.mu.Lock()
	got := append([]string(nil), sock.got...)
	sock.mu.Unlock()
	extended := false
	for _, msg := range got {
		if msg == "READY=1" {
			break
		}
		extended = extended || strings.HasPrefix(msg, "EXTEND_TIMEOUT_USEC=60000000\nSTATUS=building the search index: ")
	}
	if !extended || !slices.Contains(got, "STATUS=") {
		t.Errorf("no EXTEND_TIMEOUT_USEC with a STATUS before READY=1, or that STATUS not cleared: %q", got)
	}
	var hits []struct {
		Source  string `json:"source"`
		Matched struct {
			Field string `json:"field"`
		} `json:"matched"`
	}
	if code := getJSON(t, d.url("/api/v1/incidents?q=renamed"), &hits); code != 200 || len(hits) == 0 || hits[0].Matched.Field != "title" {
		t.Errorf("search after the build: %d, %+v", code, hits)
	}
	d.stop(t)
}
