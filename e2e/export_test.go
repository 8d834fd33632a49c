package e2e

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
	"github.com/statuswatch/statuswatch/internal/web/export"
)

// served records every body a page answered with 200, by path.
type served struct {
	h  http.Handler
	mu sync.Mutex
	by map[string][][]byte
}

func (s *served) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
	if rec.Code == http.StatusOK {
		s.mu.Lock()
		s.by[r.URL.Path] = append(s.by[r.URL.Path], bytes.Clone(rec.Body.Bytes()))
		s.mu.Unlock()
	}
}

// isServed reports whether data is byte for byte a body the page answered.
func (s *served) isServed(data []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, bodies := range s.by {
		for _, b := range bodies {
			if bytes.Equal(b, data) {
				return true
			}
		}
	}
	return false
}

// pushWorld is a daemon polling one fake Statuspage page "acme", with notifications
// on standard output (no Slack): what the export and hook tests need.
type pushWorld struct {
	t    *testing.T
	page *fakepage.Statuspage
	seen *served
	d    *testbin.Daemon
	cfg  string
}

// newPushWorld starts the daemon; extra is appended to the source's keys, top level
// keys after the sources.
func newPushWorld(t *testing.T, extra, topLevel string) *pushWorld {
	t.Helper()
	w := &pushWorld{t: t, page: &fakepage.Statuspage{Name: "Acme"}}
	w.page.Set(nil, nil)
	w.seen = &served{h: w.page, by: map[string][][]byte{}}
	srv := httptest.NewServer(w.seen)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	w.cfg = filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf("database: %s\nlisten: %s\n%s\nsources:\n  - name: acme\n    title: Acme\n    url: %q\n    kind: statuspage\n"+
		"    schedule: \"@every 1h\"\n    timeout: 10s\n%s", filepath.Join(dir, "watcher.db"), testbin.FreeAddr(t), topLevel, srv.URL+"/", extra)
	if err := os.WriteFile(w.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	w.d = testbin.StartDaemon(t, testbin.Build(t), []string{"WATCHER_CONFIG=" + w.cfg})
	return w
}

func (w *pushWorld) poll() {
	w.t.Helper()
	if code, body := w.d.PollNow(w.t, "acme"); code != http.StatusOK {
		w.t.Fatalf("poll: HTTP %d %v\n%s", code, body, w.d.Log())
	}
}

// incident is acme's incident "exp1" after n updates.
func exportIncident(t0 time.Time, n int) fakepage.Incident {
	inc := fakepage.Incident{
		ID: "exp1incident", Name: "Elevated errors on the *API* <b>now</b>", Status: "investigating", Impact: "major",
		CreatedAt: t0, UpdatedAt: t0, StartedAt: t0, Shortlink: "https://stspg.io/exp1",
	}
	for i := range n {
		at := t0.Add(time.Duration(i) * 10 * time.Minute)
		inc.Updates = append([]fakepage.Update{{ID: fmt.Sprintf("exp1upd%05d", i), Status: "investigating",
			Body: fmt.Sprintf("Update %d: we are looking into `errors`.", i+1), CreatedAt: at, UpdatedAt: at, DisplayAt: at}}, inc.Updates...)
		inc.UpdatedAt = at
	}
	return inc
}

// TestExportEndToEnd: a page's incident goes through two versions on the built binary;
// `watcher export` (through the daemon, then over the file once the daemon stopped) and
// GET …/export give bundles whose hashes verify, with the same files, whose raw payloads
// are byte for byte bodies the page served: both polls' incidents.json among them.
func TestExportEndToEnd(t *testing.T) {
	w := newPushWorld(t, "", "")
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	w.page.Set([]fakepage.Incident{exportIncident(t0, 1)}, nil)
	w.poll()
	w.page.Set([]fakepage.Incident{exportIncident(t0, 2)}, nil)
	w.poll()

	verify := func(name string, data []byte) (*export.Manifest, map[string][]byte) {
		t.Helper()
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: not a zip: %v", name, err)
		}
		m, files, err := export.Verify(zr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m, files
	}
	pathsOf := func(m *export.Manifest) []string {
		var out []string
		for _, f := range m.Files {
			out = append(out, f.Path)
		}
		return out
	}

	resp, err := http.Get(w.d.URL("/api/v1/incidents/acme/exp1incident/export"))
	if err != nil {
		t.Fatal(err)
	}
	fromAPI, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET export: HTTP %d %s", resp.StatusCode, fromAPI)
	}
	apiManifest, files := verify("GET export", fromAPI)

	var snapshots int
	for _, f := range apiManifest.Files {
		if !strings.HasPrefix(f.Path, "snapshots/") {
			continue
		}
		snapshots++
		if !w.seen.isServed(files[f.Path]) {
			t.Errorf("%s (%s): not a body the page served: %.200q", f.Path, f.Endpoint, files[f.Path])
		}
	}
	for i, b := range w.seen.by["/api/v2/incidents.json"] {
		found := false
		for _, f := range files {
			found = found || bytes.Equal(f, b)
		}
		if !found {
			t.Errorf("incidents.json as served on poll %d is not in the bundle", i+1)
		}
	}
	if snapshots == 0 || len(w.seen.by["/api/v2/incidents.json"]) != 2 {
		t.Errorf("%d raw payloads in the bundle, incidents.json served %d times", snapshots, len(w.seen.by["/api/v2/incidents.json"]))
	}
	for _, want := range []string{"versions/1.json", "versions/2.json", "changes/2.json", "report.md"} {
		if !slices.Contains(pathsOf(apiManifest), want) {
			t.Errorf("no %s in %q", want, pathsOf(apiManifest))
		}
	}
	if rep := string(files["report.md"]); !strings.Contains(rep, `Elevated errors on the \*API\* \<b\>now\<\/b\>`) {
		t.Errorf("report.md: the title is not there, escaped:\n%s", rep)
	}

	// The list as CSV, and the API's description, from the same binary.
	for _, c := range []struct{ path, ctype, want string }{
		{"/api/v1/incidents?format=csv&source=acme", "text/csv; charset=utf-8",
			"source,id,title,status,impact,kind,started_at,resolved_at,versions,url,ui_url,removed,last_changed_at\n" +
				"acme,exp1incident,Elevated errors on the *API* <b>now</b>,investigating,major,incident,"},
		{"/api/v1/openapi.json", "application/json; charset=utf-8", `"openapi": "3.1.0"`},
	} {
		resp, err := http.Get(w.d.URL(c.path))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != c.ctype || !strings.Contains(string(body), c.want) {
			t.Errorf("GET %s: HTTP %d %s, want %q in\n%.400s", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.want, body)
		}
	}

	exportCLI := func(step string) []byte {
		t.Helper()
		dest := filepath.Join(t.TempDir(), "evidence.zip")
		r := testbin.Run(t, []string{"WATCHER_CONFIG=" + w.cfg}, "export", "acme/exp1incident", dest)
		if r.Code != 0 || !strings.Contains(r.Stdout, "written to "+dest) {
			t.Fatalf("%s: watcher export: exit %d\n%s%s", step, r.Code, r.Stdout, r.Stderr)
		}
		data, err := os.ReadFile(dest)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, step := range []string{"through the daemon", "over the file"} {
		if step == "over the file" {
			if code := w.d.Stop(t); code != 0 {
				t.Fatalf("daemon exit %d", code)
			}
		}
		m, _ := verify(step, exportCLI(step))
		if got, want := pathsOf(m), pathsOf(apiManifest); !slices.Equal(got, want) {
			t.Errorf("%s: files\ngot  %q\nwant %q", step, got, want)
		}
		for i, f := range m.Files {
			if a := apiManifest.Files[i]; f.Path != "report.md" && !strings.HasPrefix(f.Path, "versions/") && f.SHA256 != a.SHA256 {
				t.Errorf("%s: %s differs from the API's", step, f.Path)
			}
		}
	}

	r := testbin.Run(t, []string{"WATCHER_CONFIG=" + w.cfg}, "export", "acme/nope", filepath.Join(t.TempDir(), "x.zip"))
	if r.Code != 1 || !strings.Contains(r.Stderr, "no incident acme/nope") {
		t.Errorf("unknown incident: exit %d, stderr %q", r.Code, r.Stderr)
	}
}
