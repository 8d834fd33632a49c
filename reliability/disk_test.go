package reliability

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// mountTmpfs mounts a small tmpfs at a new directory, or skips when this process may not
// mount (not root, no CAP_SYS_ADMIN). CI runs as root.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount tmpfs: %v: %s", err, out)
		}
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestDiskFullAndReadOnly fills the archive's file system, then makes it read-only: the
// poll fails with a clear error and writes no partial version, the daemon keeps serving
// reads, and it records again once space returns.
func TestDiskFullAndReadOnly(t *testing.T) {
	disk := mountTmpfs(t, "4m")
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page := &fakepage.Statuspage{Name: "Acme"}
	in := incident(t0, "inc1", "investigating")
	page.Set([]fakepage.Incident{in}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()

	cfg := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("database: %s\nlisten: %s\nsources:\n  - name: acme\n    url: %s\n    kind: statuspage\n    schedule: \"@every 1h\"\n",
		filepath.Join(disk, "watcher.db"), testbin.FreeAddr(t), srv.URL)), 0o600)
	d := startDaemon(t, []string{"WATCHER_CONFIG=" + cfg})
	if code, body := d.poll(t, "acme"); code != 200 || body["changes"] != float64(1) {
		t.Fatalf("first poll: %d %v", code, body)
	}

	step := func(n int) {
		in.Updates = append([]fakepage.Update{{ID: fmt.Sprintf("u%d", n+1), Status: "identified", Body: strings.Repeat(fmt.Sprintf("Update %d. ", n), 200), CreatedAt: t0.Add(time.Duration(n) * time.Minute), UpdatedAt: t0.Add(time.Duration(n) * time.Minute), DisplayAt: t0.Add(time.Duration(n) * time.Minute)}}, in.Updates...)
		page.Set([]fakepage.Incident{in}, nil)
	}
	versions := func() int {
		var v []map[string]any
		if code := d.get(t, "/api/v1/incidents/acme/inc1/versions", &v); code != 200 {
			t.Fatalf("read versions: HTTP %d", code)
		}
		return len(v)
	}

	t.Run("disk full", func(t *testing.T) {
		filler := filepath.Join(disk, "filler")
		exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=64k").Run() // until ENOSPC
		defer os.Remove(filler)
		step(1)
		code, body := d.poll(t, "acme")
		if code != 502 || !strings.Contains(fmt.Sprint(body["error"]), "no space left") {
			t.Errorf("poll on a full disk: %d %v, want 502 with \"no space left\"", code, body)
		}
		if n := versions(); n != 1 {
			t.Errorf("after the failed write: %d versions, want 1 (no partial version)", n)
		}
		os.Remove(filler)
		if code, body := d.poll(t, "acme"); code != 200 || body["changes"] != float64(1) {
			t.Errorf("poll after space returned: %d %v, want 200 {changes: 1}", code, body)
		}
		if n := versions(); n != 2 {
			t.Errorf("after recovery: %d versions, want 2", n)
		}
	})

	d.stop(t)

	// A file open for writing keeps a mount from going read-only, so the read-only case is
	// a daemon started on a file system that is read-only already.
	t.Run("read-only", func(t *testing.T) {
		if out, err := exec.Command("mount", "-o", "remount,ro", disk).CombinedOutput(); err != nil {
			t.Fatalf("remount ro: %v: %s", err, out)
		}
		env := []string{"WATCHER_CONFIG=" + cfg}
		r := testbin.Run(t, env, "run")
		if r.Code != 1 || !strings.Contains(r.Stderr, "read-only file system") || !strings.Contains(r.Stderr, "watcher.db") {
			t.Errorf("run on a read-only archive: exit %d, stderr %q; want exit 1 naming the file and the cause", r.Code, r.Stderr)
		}
		r = testbin.Run(t, env, "incidents")
		if r.Code != 0 || !strings.Contains(r.Stdout, "acme/inc1") {
			t.Errorf("incidents on a read-only archive: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		if out, err := exec.Command("mount", "-o", "remount,rw", disk).CombinedOutput(); err != nil {
			t.Fatalf("remount rw: %v: %s", err, out)
		}
		d := startDaemon(t, env)
		step(2)
		if code, body := d.poll(t, "acme"); code != 200 || body["changes"] != float64(1) {
			t.Errorf("poll once writable again: %d %v", code, body)
		}
		d.stop(t)
	})
}
