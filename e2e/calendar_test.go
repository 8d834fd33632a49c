package e2e

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// TestMaintenanceCalendarEndToEnd: a maintenance scheduled on a page, polled by the
// built binary, is a VEVENT of /maintenance.ics and of the source's calendar; a second
// version bumps its SEQUENCE; removed from the page before its window, it reads
// STATUS:CANCELLED. Python's icalendar reads the feed.
func TestMaintenanceCalendarEndToEnd(t *testing.T) {
	w := newPushWorld(t, "", "")
	start := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Hour)
	until := start.Add(2 * time.Hour)
	m := fakepage.Incident{ID: "mnt0window01", Name: "Database upgrade; phase 1, all regions", Status: "scheduled", Impact: "maintenance",
		CreatedAt: start.Add(-48 * time.Hour), UpdatedAt: start.Add(-48 * time.Hour), StartedAt: start,
		ScheduledFor: &start, ScheduledUntil: &until,
		Updates: []fakepage.Update{{ID: "mnt0update01", Status: "scheduled", Body: "We will upgrade the primary database.",
			CreatedAt: start.Add(-48 * time.Hour), UpdatedAt: start.Add(-48 * time.Hour), DisplayAt: start.Add(-48 * time.Hour)}}}
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(w.d.URL(path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/calendar; charset=utf-8" {
			t.Fatalf("GET %s: HTTP %d %s\n%s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		return string(body)
	}
	want := func(step, cal string, wants ...string) {
		t.Helper()
		for _, s := range wants {
			if !strings.Contains(cal, s) {
				t.Errorf("%s: no %q in\n%s", step, s, cal)
			}
		}
	}

	// A second maintenance stays on the page throughout: a page that drops every
	// maintenance at once is read as a broken answer, not as removals.
	keep := m
	keep.ID, keep.Name, keep.Updates = "mnt0keeper01", "Network change", nil
	w.page.Set(nil, []fakepage.Incident{m, keep})
	w.poll()
	dt := "DTSTART:" + start.Format("20060102T150405Z") + "\r\nDTEND:" + until.Format("20060102T150405Z") + "\r\n"
	cal := get("/maintenance.ics")
	want("scheduled", cal, "UID:acme/mnt0window01@statuswatch\r\n", dt, "SEQUENCE:0\r\n", "STATUS:CONFIRMED\r\n",
		"SUMMARY:Acme: Database upgrade\\; phase 1\\, all regions\r\n")
	want("the source's", get("/sources/acme/maintenance.ics"), "UID:acme/mnt0window01@statuswatch\r\n")

	m.Name += " (moved)"
	w.page.Set(nil, []fakepage.Incident{m, keep})
	w.poll()
	want("a second version", get("/maintenance.ics"), "SEQUENCE:1\r\n", "(moved)")

	// Removed before its window: two well-formed polls without it.
	w.page.Set(nil, []fakepage.Incident{keep})
	w.poll()
	w.poll()
	cal = get("/maintenance.ics")
	want("removed", cal, "UID:acme/mnt0window01@statuswatch\r\n", "STATUS:CANCELLED\r\n")

	if err := exec.Command("/usr/bin/python3", "-c", "import icalendar").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3-icalendar is not installed: %v", err)
		}
		t.Skip("python3-icalendar is not installed (apt-get install python3-icalendar)")
	}
	py := exec.Command("/usr/bin/python3", "-c", `import sys, icalendar
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
print(sorted((str(e['UID']), str(e['STATUS'])) for e in cal.walk('VEVENT')))`)
	py.Stdin = strings.NewReader(cal)
	out, err := py.CombinedOutput()
	if err != nil {
		t.Fatalf("icalendar: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "[('acme/mnt0keeper01@statuswatch', 'CONFIRMED'), ('acme/mnt0window01@statuswatch', 'CANCELLED')]" {
		t.Errorf("icalendar read %s", got)
	}
}
