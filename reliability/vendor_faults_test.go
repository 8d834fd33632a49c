package reliability

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// faultyPage serves a fake Statuspage page through a switchable fault.
type faultyPage struct {
	page *fakepage.Statuspage
	mu   sync.Mutex
	mode string
	hits map[string]int
}

func (f *faultyPage) set(mode string) {
	f.mu.Lock()
	f.mode = mode
	f.mu.Unlock()
}

func (f *faultyPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	mode := f.mode
	if f.hits == nil {
		f.hits = map[string]int{}
	}
	f.hits[mode]++
	f.mu.Unlock()
	switch mode {
	case "ok", "":
		f.page.ServeHTTP(w, r)
	case "500":
		http.Error(w, "internal error", http.StatusInternalServerError)
	case "429":
		w.Header().Set("Retry-After", "120")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case "html":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><html><body><h1>We'll be right back</h1></body></html>")
	case "empty":
		w.Header().Set("Content-Type", "application/json")
	case "truncated":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"page":{"id":"x","name":"Acme"},"incidents":[{"id":"inc1","name":"API err`)
	case "empty-list":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"page":{"id":"x","name":"Acme"},"incidents":[],"scheduled_maintenances":[]}`)
	case "huge":
		// 64 MiB of a JSON string: the cap must stop reading at http.max_body.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"incidents":[{"id":"x","name":"`)
		chunk := strings.Repeat("a", 1<<20)
		for range 64 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}]}`)
	case "trickle":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		for i := 0; i < 600; i++ { // up to a minute; the source timeout ends it far sooner
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	case "reset":
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("no hijacker")
		}
		conn, _, _ := hj.Hijack()
		conn.Close()
	case "redirect-loop":
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	default:
		panic("unknown mode " + mode)
	}
}

func writeConfig(t *testing.T, dir, url, extra string) []string {
	t.Helper()
	cfg := filepath.Join(dir, "config.yaml")
	data := fmt.Sprintf("database: %s\nlisten: \"\"\nhttp:\n  max_body: 32MiB\nsources:\n  - name: acme\n    title: Acme\n    url: %s\n    kind: statuspage\n    timeout: 2s\n    failure_threshold: 3\n%s", filepath.Join(dir, "watcher.db"), url, extra)
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"WATCHER_CONFIG=" + cfg}
}

func incident(t0 time.Time, id, status string) fakepage.Incident {
	in := fakepage.Incident{
		ID: id, Name: "API errors " + id, Status: status, Impact: "major", CreatedAt: t0, UpdatedAt: t0, StartedAt: t0,
		Updates: []fakepage.Update{{ID: id + "u1", Status: "investigating", Body: "Looking into it.", CreatedAt: t0, UpdatedAt: t0, DisplayAt: t0}},
	}
	if status == "resolved" {
		end := t0.Add(time.Hour)
		in.ResolvedAt = &end
	}
	return in
}

// TestVendorFaults steps a page through every fault a vendor serves and checks, with the
// built binary, that each is a counted failure, never a false "resolved" or "removed",
// and that "cannot read" and "recovered" are said exactly once.
func TestVendorFaults(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set([]fakepage.Incident{incident(t0, "inc1", "investigating"), incident(t0.Add(-48*time.Hour), "old1", "resolved")}, nil)
	f := &faultyPage{page: page}
	srv := httptest.NewServer(f)
	defer srv.Close()
	env := writeConfig(t, t.TempDir(), srv.URL, "")

	r := testbin.Must(t, 0, env, "poll")
	if !strings.Contains(r.Stdout, "New incident: API errors inc1") {
		t.Fatalf("first poll did not announce inc1:\n%s", r.Stdout)
	}

	var console strings.Builder
	faults := []struct {
		mode, want string
	}{
		{"500", "HTTP 500"},
		{"429", "HTTP 429"},
		{"html", ""},
		{"empty", ""},
		{"truncated", ""},
		{"empty-list", "vanished"},
		{"huge", "response exceeds 33554432 bytes"},
		{"trickle", ""},
		{"reset", ""},
		{"redirect-loop", "redirect"},
	}
	for _, fault := range faults {
		t.Run(fault.mode, func(t *testing.T) {
			f.set(fault.mode)
			start := time.Now()
			r := testbin.Run(t, env, "poll")
			if r.Code != 3 {
				t.Fatalf("poll against %s: exit %d, want 3\n%s%s", fault.mode, r.Code, r.Stdout, r.Stderr)
			}
			if fault.want != "" && !strings.Contains(r.Stderr, fault.want) {
				t.Errorf("poll against %s: stderr lacks %q:\n%s", fault.mode, fault.want, r.Stderr)
			}
			for _, bad := range []string{"Resolved:", "Removed", "New incident"} {
				if strings.Contains(r.Stdout, bad) {
					t.Errorf("poll against %s announced %q:\n%s", fault.mode, bad, r.Stdout)
				}
			}
			if fault.mode == "huge" {
				t.Logf("64 MiB body: peak RSS %d MiB", r.MaxRSS>>20)
			}
			if fault.mode == "huge" && r.MaxRSS > 150<<20 {
				t.Errorf("64 MiB body: peak RSS %d MiB, want < 150 MiB", r.MaxRSS>>20)
			}
			if fault.mode == "trickle" && time.Since(start) > 30*time.Second {
				t.Errorf("a trickling body held the poll %s; the 2s source timeout should end it", time.Since(start))
			}
			console.WriteString(r.Stdout)
		})
	}
	f.set("ok")
	r = testbin.Must(t, 0, env, "poll")
	console.WriteString(r.Stdout)
	out := console.String()
	if n := strings.Count(out, "cannot read"); n != 1 {
		t.Errorf("%d \"cannot read\" messages over %d failures, want exactly 1:\n%s", n, len(faults), out)
	}
	if n := strings.Count(out, "readable again"); n != 1 {
		t.Errorf("%d \"recovered\" messages, want exactly 1:\n%s", n, out)
	}
	r = testbin.Must(t, 0, env, "incidents")
	if !strings.Contains(r.Stdout, "acme/inc1") || strings.Contains(r.Stdout, "removed") {
		t.Errorf("after the faults, incidents:\n%s", r.Stdout)
	}
}

// TestRemovalNeedsTwoWellFormedMisses checks the removal rule of docs/design.md §4 on the binary.
func TestRemovalNeedsTwoWellFormedMisses(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page := &fakepage.Statuspage{Name: "Acme"}
	keep := incident(t0.Add(-time.Hour), "keep", "investigating")
	gone := incident(t0, "gone", "investigating")
	page.Set([]fakepage.Incident{gone, keep}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	env := writeConfig(t, t.TempDir(), srv.URL, "")
	testbin.Must(t, 0, env, "poll")

	page.Set([]fakepage.Incident{keep}, nil)
	r := testbin.Must(t, 0, env, "poll")
	if strings.Contains(r.Stdout, "Removed") {
		t.Fatalf("removed after one miss:\n%s", r.Stdout)
	}
	page.Set([]fakepage.Incident{gone, keep}, nil) // back: the miss is forgotten
	testbin.Must(t, 0, env, "poll")
	page.Set([]fakepage.Incident{keep}, nil)
	r = testbin.Must(t, 0, env, "poll")
	if strings.Contains(r.Stdout, "Removed") {
		t.Fatalf("removed after a miss, a return and one miss:\n%s", r.Stdout)
	}
	r = testbin.Must(t, 0, env, "poll") // 304, the same answer: a second well-formed miss
	if strings.Count(r.Stdout, "Removed incident: API errors gone") != 1 {
		t.Errorf("second miss: want one removal message, got:\n%s", r.Stdout)
	}
	r = testbin.Must(t, 0, env, "incidents")
	if !strings.Contains(r.Stdout, "removed") {
		t.Errorf("incidents does not show the removal:\n%s", r.Stdout)
	}
}

// TestRemovalConfirmedByAnUnchangedPoll: after a first miss, the next poll answered 304 is
// the second well-formed poll without the incident.
func TestRemovalConfirmedByAnUnchangedPoll(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	page := &fakepage.Statuspage{Name: "Acme"}
	keep := incident(t0.Add(-time.Hour), "keep", "investigating")
	gone := incident(t0, "gone", "investigating")
	page.Set([]fakepage.Incident{gone, keep}, nil)
	srv := httptest.NewServer(page)
	defer srv.Close()
	env := writeConfig(t, t.TempDir(), srv.URL, "")
	testbin.Must(t, 0, env, "poll")
	page.Set([]fakepage.Incident{keep}, nil)
	if r := testbin.Must(t, 0, env, "poll"); strings.Contains(r.Stdout, "Removed") {
		t.Fatalf("removed after one miss:\n%s", r.Stdout)
	}
	r := testbin.Must(t, 0, env, "poll") // 304: same answer, second miss
	if strings.Count(r.Stdout, "Removed incident: API errors gone") != 1 {
		t.Errorf("an unchanged poll after a miss: want one removal, got:\n%s", r.Stdout)
	}
	if r := testbin.Must(t, 0, env, "poll"); r.Stdout != "" {
		t.Errorf("a further unchanged poll printed:\n%s", r.Stdout)
	}
}
