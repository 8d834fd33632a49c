package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// seedArchive writes an archive at path directly, one Record per snapshot: each snapshot
// of source at its time, with one incident whose update body is the snapshot's index.
func seedArchive(t *testing.T, path string, snaps map[string][]time.Time, body func(i int) []byte) {
	t.Helper()
	st, err := archive.Open(path, archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for source, times := range snaps {
		for i, at := range times {
			inc := model.Incident{ID: "inc1", Kind: model.KindIncident, Status: model.StatusInvestigating, Title: "API errors",
				StartedAt: times[0], Updates: []model.Update{{ID: "u1", Status: model.StatusInvestigating,
					Body: fmt.Sprintf("Update %d.", i), Format: model.FormatText, PostedAt: times[0]}}}
			data := []byte(fmt.Sprintf(`{"snapshot":%d}`, i))
			if body != nil {
				data = body(i)
			}
			snap := &model.Snapshot{Source: source, FetchedAt: at, Listings: []model.Listing{{Kind: model.KindIncident}},
				Incidents: []model.Incident{inc}}
			if _, err := st.Record(source, snap, nil, []model.Body{{Endpoint: "incidents", Data: data}}, archive.Policy{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestRetentionExtremes: retention.raw_snapshots of 100 years puts the prune cutoff
// before 1970, and prunes exactly what is older than it (once every snapshot but the
// newest was deleted); a day prunes what is older than a day; longer is refused; a
// snapshot asked for before 1970 is not the newest.
func TestRetentionExtremes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "watcher.db")
	now := time.Now().UTC().Truncate(time.Second)
	acme := []time.Time{now.Add(-72 * time.Hour), now.Add(-48 * time.Hour), now.Add(-time.Hour)}
	// A retired source with snapshots before 1970: the 1900 one is older than any cutoff
	// here, so each start prunes exactly one snapshot, and the log line says when.
	control := []time.Time{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1910, 1, 1, 0, 0, 0, 0, time.UTC)}
	seedArchive(t, db, map[string][]time.Time{"acme": acme, "control": control}, nil)

	start := func(retention string) (*daemon, []string) {
		cfg := filepath.Join(dir, "config.yaml")
		os.WriteFile(cfg, []byte(fmt.Sprintf("database: %s\nlisten: %s\nretention:\n  raw_snapshots: %s\nsources:\n  - name: acme\n    url: http://127.0.0.1:1\n    kind: statuspage\n    schedule: \"@every 1h\"\n",
			db, testbin.FreeAddr(t), retention)), 0o600)
		env := []string{"WATCHER_CONFIG=" + cfg}
		return startDaemon(t, env), env
	}
	fetched := func(d *daemon, source string, at time.Time) (int, string) {
		var snap struct {
			FetchedAt string `json:"fetched_at"`
		}
		code := d.get(t, "/api/v1/sources/"+source+"/snapshots?at="+at.Format(time.RFC3339), &snap)
		return code, snap.FetchedAt
	}
	pruned := func(d *daemon) {
		waitUntil(t, 20*time.Second, "the start-up prune", func() bool { return strings.Contains(d.log(), "pruned raw snapshots") },
			d.log)
		if !strings.Contains(d.log(), "snapshots=1 ") {
			t.Errorf("start-up prune: want exactly 1 snapshot pruned (control's 1900 one)\n%s", d.log())
		}
	}

	t.Run("100 years", func(t *testing.T) {
		d, _ := start("36500d")
		defer d.stop(t)
		pruned(d)
		for i, at := range acme {
			if code, got := fetched(d, "acme", at); code != 200 || got != at.Format(time.RFC3339) {
				t.Errorf("acme snapshot %d (%s): got %d %s, want it kept", i, at, code, got)
			}
		}
		if code, got := fetched(d, "acme", time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)); code != 404 {
			t.Errorf("acme snapshot at 1960: got %d %s, want 404", code, got)
		}
		if code, got := fetched(d, "control", time.Date(1915, 1, 1, 0, 0, 0, 0, time.UTC)); code != 200 || !strings.HasPrefix(got, "1910-01-01") {
			t.Errorf("control snapshot at 1915: got %d %s, want the 1910 one", code, got)
		}
	})

	t.Run("1d", func(t *testing.T) {
		d, _ := start("1d")
		defer d.stop(t)
		pruned(d)
		if code, got := fetched(d, "acme", acme[0]); code != 404 {
			t.Errorf("acme snapshot of 72 h ago: got %d %s, want 404 (pruned)", code, got)
		}
		for _, at := range acme[1:] { // 48 h ago stays: it was in force at the cutoff
			if code, got := fetched(d, "acme", at); code != 200 || got != at.Format(time.RFC3339) {
				t.Errorf("acme snapshot %s: got %d %s, want it kept", at, code, got)
			}
		}
	})

	t.Run("more than 100 years", func(t *testing.T) {
		cfg := filepath.Join(dir, "config-long.yaml")
		os.WriteFile(cfg, []byte("database: "+db+"\nretention:\n  raw_snapshots: 36501d\nsources:\n  - name: acme\n    url: http://127.0.0.1:1\n"), 0o600)
		r := testbin.Run(t, []string{"WATCHER_CONFIG=" + cfg}, "check")
		if r.Code == 0 || !strings.Contains(r.Stderr, "retention.raw_snapshots") || !strings.Contains(r.Stderr, "at most 36500d") {
			t.Errorf("check with 36501d: exit %d, stderr %q; want refused", r.Code, r.Stderr)
		}
	})
}

// randomText is n bytes of base64 of random bytes: text that compresses to no less
// than three quarters of itself.
func randomText(r *rand.Rand, n int) string {
	raw := make([]byte, n*3/4)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// TestBackupUnderAGrowingArchive: a backup whose client stops reading holds nothing:
// while it stalls, polls grow the archive well past its mapped size (bbolt remaps), and
// each completes; the backup, read at last, is a sound archive of when it began.
// (Before, every write froze until the backup's stall timeout: 50 s observed.)
func TestBackupUnderAGrowingArchive(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "watcher.db")
	r := rand.New(rand.NewPCG(5, 6))
	times := make([]time.Time, 6)
	for i := range times {
		times[i] = time.Now().UTC().Add(time.Duration(i-10) * time.Hour)
	}
	// About 12 MB of incompressible raw bodies: more than socket buffers hold.
	seedArchive(t, db, map[string][]time.Time{"retired": times}, func(int) []byte { return []byte(randomText(r, 2<<20)) })

	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page := &fakepage.Statuspage{Name: "Acme"}
	in := incident(t0, "inc1", "investigating")
	page.Set([]fakepage.Incident{in}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("database: %s\nlisten: %s\nhttp:\n  max_body: 64MiB\nsources:\n  - name: acme\n    url: %s\n    kind: statuspage\n    schedule: \"@every 1h\"\n",
		db, testbin.FreeAddr(t), srv.URL)), 0o600)
	d := startDaemon(t, []string{"WATCHER_CONFIG=" + cfg})
	defer d.stop(t)
	if code, body := d.poll(t, "acme"); code != 200 {
		t.Fatalf("first poll: %d %v", code, body)
	}
	before, _ := os.Stat(db)

	// A client with a small receive buffer that reads the headers and a little, then
	// stops.
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := dialer.Dial("tcp", strings.TrimPrefix(d.url(""), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/backup HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(d.url(""), "http://"))
	head := make([]byte, 4096)
	if _, err := io.ReadFull(conn, head); err != nil {
		t.Fatalf("backup: %v", err)
	}
	if !bytes.HasPrefix(head, []byte("HTTP/1.1 200")) {
		t.Fatalf("backup: %q", head[:64])
	}

	// Grow the archive several times over while the backup stalls: each poll adds a
	// 1 MB update, and archives the whole page again.
	for i := 2; i <= 6; i++ {
		in.Updates = append([]fakepage.Update{{ID: fmt.Sprintf("u%d", i), Status: "identified", Body: randomText(r, 1<<20),
			CreatedAt: t0.Add(time.Duration(i) * time.Minute), UpdatedAt: t0.Add(time.Duration(i) * time.Minute), DisplayAt: t0.Add(time.Duration(i) * time.Minute)}}, in.Updates...)
		page.Set([]fakepage.Incident{in}, nil)
		done := make(chan int, 1)
		go func() { code, _ := d.poll(t, "acme"); done <- code }()
		select { // a guard against hanging, not a measurement: a poll takes well under a second
		case code := <-done:
			if code != 200 {
				t.Fatalf("poll %d during the backup: HTTP %d", i, code)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("poll %d blocked while a backup stalled", i)
		}
	}
	after, _ := os.Stat(db)
	t.Logf("archive grew from %.0f MB to %.0f MB while a backup stalled", float64(before.Size())/(1<<20), float64(after.Size())/(1<<20))
	if code := d.get(t, "/healthz", nil); code != 200 {
		t.Errorf("/healthz during the stalled backup: %d, want 200", code)
	}

	// Read the rest: a sound archive.
	resp, err := http.ReadResponse(bufioReader(head, conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "backup.db")
	f, _ := os.Create(copyPath)
	if _, err := io.Copy(f, resp.Body); err != nil {
		t.Fatalf("read the backup: %v", err)
	}
	f.Close()
	bcfg := filepath.Join(dir, "backup.yaml")
	os.WriteFile(bcfg, []byte("database: "+copyPath+"\nsources:\n  - name: acme\n    url: "+srv.URL+"\n"), 0o600)
	if r := testbin.Run(t, []string{"WATCHER_CONFIG=" + bcfg}, "check", "-archive"); r.Code != 0 || !strings.Contains(r.Stdout, "archive OK") {
		t.Errorf("check -archive of the backup: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := testbin.Run(t, []string{"WATCHER_CONFIG=" + bcfg}, "history", "acme/inc1"); r.Code != 0 || strings.Count(r.Stdout, "\n") < 1 {
		t.Errorf("history from the backup: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// bufioReader reads what was read already, then the connection.
func bufioReader(head []byte, conn net.Conn) *bufio.Reader {
	return bufio.NewReader(io.MultiReader(bytes.NewReader(head), conn))
}

// archiveDamages are the kinds of damage a disk, a copy or a crash leaves, as functions
// of a sound file's bytes.
var archiveDamages = []struct {
	name string
	// recoverable: bbolt reads past it by design (the other meta page is whole).
	recoverable bool
	damage      func(data []byte) []byte
}{
	{"0 bytes", false, func([]byte) []byte { return nil }},
	{"truncated", false, func(data []byte) []byte { return data[:len(data)/3] }},
	{"garbage meta pages", false, func(data []byte) []byte {
		d := bytes.Clone(data)
		for i := 16; i < 2*os.Getpagesize(); i++ {
			d[i] = byte(i * 7)
		}
		return d
	}},
	{"one garbage meta page", true, func(data []byte) []byte {
		d := bytes.Clone(data)
		for i := 16; i < 200; i++ {
			d[i] = byte(i * 7)
		}
		return d
	}},
	{"corrupted leaf page", false, func(data []byte) []byte {
		d := bytes.Clone(data)
		ps := os.Getpagesize()
		// Every page that names source-07 (the leaf that lists the sources among them):
		// its header and first elements.
		for page := 2 * ps; page+ps <= len(d); page += ps {
			if bytes.Contains(d[page:page+ps], []byte("source-07")) {
				for j := page; j < page+64; j++ {
					d[j] = 0xff
				}
			}
		}
		return d
	}},
}

// noCrash fails the test if out shows a panic or a Go fault.
func noCrash(t *testing.T, what, out string) {
	t.Helper()
	for _, sign := range []string{"\npanic:", "fatal error", "goroutine ", "[signal SIG"} {
		if strings.Contains("\n"+out, sign) {
			t.Errorf("%s crashed (%q):\n%s", what, sign, out)
			return
		}
	}
}

// startOrExit runs `watcher run` with env: when it exits on its own within 10 s (it
// refused the archive), it returns its exit code and output; else it is serving, and it
// is started again as a daemon under test.
func startOrExit(t *testing.T, env []string) (*testbin.Daemon, int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testbin.Build(t), "run")
	cmd.Env = append(append(os.Environ(), "SLACK_BOT_TOKEN=", "STATE_DIRECTORY=", "WATCHER_CONFIG="), env...)
	out, _ := cmd.CombinedOutput()
	if ctx.Err() == nil {
		return nil, cmd.ProcessState.ExitCode(), string(out)
	}
	d := testbin.StartDaemon(t, testbin.Build(t), env)
	return d, 0, string(out) + d.Log()
}

// TestDamagedArchives: for each kind of damage, the built binary never panics. `watcher
// run` either refuses the file with one line naming it and what to do, or serves, and
// then a poll that meets the damage fails that poll, the process lives on, and /healthz
// reports the archive; `watcher check -archive` names the damage; a browse command
// fails with one line.
func TestDamagedArchives(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set([]fakepage.Incident{incident(time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC), "inc2", "investigating")}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()

	soundDir := t.TempDir()
	sound := filepath.Join(soundDir, "watcher.db")
	snaps := map[string][]time.Time{}
	for i := range 40 {
		snaps[fmt.Sprintf("source-%02d", i)] = []time.Time{time.Now().UTC().Add(-time.Hour)}
	}
	seedArchive(t, sound, snaps, nil)
	data, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range archiveDamages {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "watcher.db")
			os.WriteFile(db, tt.damage(data), 0o600)
			cfg := filepath.Join(dir, "config.yaml")
			os.WriteFile(cfg, []byte(fmt.Sprintf("database: %s\nlisten: %s\nsources:\n  - name: source-07\n    url: %s\n    kind: statuspage\n    schedule: \"@every 1h\"\n",
				db, testbin.FreeAddr(t), srv.URL)), 0o600)
			env := []string{"WATCHER_CONFIG=" + cfg}

			r := testbin.Run(t, env, "check", "-archive")
			noCrash(t, "check -archive", r.Stdout+r.Stderr)
			if !tt.recoverable && (r.Code == 0 || !strings.Contains(r.Stderr, "is damaged: restore it from a backup")) {
				t.Errorf("check -archive: exit %d, want the damage named\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			t.Logf("check -archive: exit %d: %s", r.Code, strings.TrimSpace(r.Stderr))

			r = testbin.Run(t, env, "incidents")
			noCrash(t, "incidents", r.Stdout+r.Stderr)
			if !tt.recoverable && r.Code == 0 {
				t.Errorf("incidents on a damaged archive: exit 0\n%s", r.Stdout)
			}

			d, code, out := startOrExit(t, env)
			noCrash(t, "run", out)
			if d == nil {
				lines := strings.Split(strings.TrimSpace(out), "\n")
				last := lines[len(lines)-1]
				if code != 1 || !strings.Contains(last, db) || !strings.Contains(last, "restore it from a backup") ||
					!strings.Contains(last, "watcher check -archive") {
					t.Errorf("run: exit %d, last line %q; want exit 1 and one line naming the file and what to do", code, last)
				}
				return
			}
			defer d.Stop(t)
			if tt.recoverable {
				return
			}
			pcode, body := d.PollNow(t, "source-07")
			if pcode == 200 {
				t.Errorf("poll of a damaged source: got 200 %v, want a failure", body)
			}
			select {
			case <-d.Done():
				t.Fatalf("the daemon died on a damaged page:\n%s", d.Log())
			default:
			}
			resp, err := http.Get(d.URL("/healthz"))
			if err != nil {
				t.Fatalf("/healthz: %v (the daemon died?)\n%s", err, d.Log())
			}
			hb, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 503 || !strings.Contains(string(hb), "damaged") {
				t.Errorf("/healthz after the damage: %d %q, want 503 naming the damage", resp.StatusCode, hb)
			}
			noCrash(t, "run", d.Log())
			t.Logf("poll: %d %v; /healthz: %q", pcode, body["error"], hb)
		})
	}
}
