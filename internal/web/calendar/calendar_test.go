package calendar

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"

	"github.com/statuswatch/statuswatch/internal/model"
)

var now = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func mnt(id, title string, from, until time.Time) Maintenance {
	return Maintenance{
		Source: "acme", SourceTitle: "Acme", ID: id, Versions: 3, LastChanged: now.Add(-time.Hour),
		UIURL: "https://watch.example.com/incidents/acme/" + id,
		Latest: &model.Incident{
			ID: id, Kind: model.KindMaintenance, Title: title, Status: model.StatusScheduled, StatusRaw: "scheduled",
			ScheduledFor: from, ScheduledUntil: until, StartedAt: from, Components: []string{"API", "Dashboard"},
			URL:     "https://status.acme.test/incidents/" + id,
			Updates: []model.Update{{ID: "u1", Status: model.StatusScheduled, Body: "We will upgrade the database.", PostedAt: now.Add(-2 * time.Hour)}},
		},
	}
}

// checkLines checks what RFC 5545 asks of every content line: CRLF ends and at most
// 75 octets, folds starting with a space and splitting no UTF-8 sequence.
func checkLines(t testing.TB, out []byte) {
	t.Helper()
	if !bytes.HasSuffix(out, []byte("\r\n")) {
		t.Fatalf("does not end in CRLF: %q", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\r\n"), "\r\n") {
		if len(line) > 75 {
			t.Errorf("line of %d octets: %q", len(line), line)
		}
		if strings.ContainsAny(line, "\r\n") {
			t.Errorf("bare CR or LF in %q", line)
		}
		if !utf8.ValidString(line) {
			t.Errorf("line splits a UTF-8 sequence: %q", line)
		}
		for _, r := range line {
			if r < 0x20 && r != '\t' || r == 0x7f {
				t.Errorf("control character %U in %q", r, line)
			}
		}
	}
}

func write(t testing.TB, ms ...Maintenance) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, "Vendor maintenance", ms, now); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWrite(t *testing.T) {
	long := strings.Repeat("データベースの移行; ", 20) // multi-byte, long, with semicolons
	cancelled := mnt("m3", "Called off", now.Add(48*time.Hour), now.Add(50*time.Hour))
	cancelled.Removed, cancelled.RemovedAt = true, now.Add(-30*time.Minute)
	old := mnt("m4", "Long ago", now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour+time.Hour))
	incident := mnt("i1", "Not a maintenance", now, now.Add(time.Hour))
	incident.Latest.Kind = model.KindIncident
	out := write(t,
		mnt("m1", `Upgrade, "db"; \ and more`+"\nsecond line", now.Add(24*time.Hour), now.Add(26*time.Hour)),
		mnt("m2", long, now.Add(72*time.Hour), now.Add(73*time.Hour)),
		cancelled, old, incident)
	checkLines(t, out)
	// The escapes themselves, as written.
	if !bytes.Contains(out, []byte(`SUMMARY:Acme: Upgrade\, "db"\; \\ and more\nsecond line`+"\r\n")) {
		t.Errorf("SUMMARY not escaped as RFC 5545 says:\n%s", out)
	}

	cal, err := ics.ParseCalendar(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parse back: %v\n%s", err, out)
	}
	events := cal.Events()
	if len(events) != 3 {
		t.Fatalf("got %d events, want 3 (the old one and the incident left out):\n%s", len(events), out)
	}
	prop := func(e *ics.VEvent, p ics.ComponentProperty) string {
		if v := e.GetProperty(p); v != nil {
			return v.Value
		}
		return ""
	}
	tests := []struct {
		i                                     int
		uid, summary, start, end, status, seq string
	}{
		{0, "acme/m1@statuswatch", `Acme: Upgrade, "db"; \ and more` + "\nsecond line", "20260702T120000Z", "20260702T140000Z", "CONFIRMED", "2"},
		{1, "acme/m2@statuswatch", "Acme: " + long, "20260704T120000Z", "20260704T130000Z", "CONFIRMED", "2"},
		{2, "acme/m3@statuswatch", "Acme: Called off", "20260703T120000Z", "20260703T140000Z", "CANCELLED", "2"},
	}
	for _, tt := range tests {
		e := events[tt.i]
		for _, c := range []struct {
			p          ics.ComponentProperty
			got, wantV string
		}{
			{ics.ComponentPropertyUniqueId, prop(e, ics.ComponentPropertyUniqueId), tt.uid},
			{ics.ComponentPropertySummary, prop(e, ics.ComponentPropertySummary), tt.summary},
			{ics.ComponentPropertyDtStart, prop(e, ics.ComponentPropertyDtStart), tt.start},
			{ics.ComponentPropertyDtEnd, prop(e, ics.ComponentPropertyDtEnd), tt.end},
			{ics.ComponentPropertyStatus, prop(e, ics.ComponentPropertyStatus), tt.status},
			{ics.ComponentPropertySequence, prop(e, ics.ComponentPropertySequence), tt.seq},
			{ics.ComponentPropertyDtstamp, prop(e, ics.ComponentPropertyDtstamp), "20260701T110000Z"},
		} {
			if c.got != c.wantV {
				t.Errorf("event %d %s: got %q, want %q", tt.i, c.p, c.got, c.wantV)
			}
		}
	}
	if !bytes.Contains(out, []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")) || !bytes.Contains(out, []byte("METHOD:PUBLISH\r\n")) {
		t.Errorf("no calendar header:\n%s", out)
	}

	t.Run("an outside parser", func(t *testing.T) { pythonParse(t, out, 3) })
}

// pythonParse parses out with Python's icalendar (Debian's python3-icalendar) and
// checks it holds want VEVENTs, each with a UTC DTSTART. It is required under CI=true.
func pythonParse(t *testing.T, out []byte, want int) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import icalendar").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3-icalendar is not installed: %v", err)
		}
		t.Skip("python3-icalendar is not installed (apt-get install python3-icalendar)")
	}
	script := `
import sys, icalendar
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
events = cal.walk('VEVENT')
for e in events:
    assert e.decoded('DTSTART').tzinfo is not None and e.decoded('DTSTART').utcoffset().total_seconds() == 0
    print(e['UID'], '|', e['SUMMARY'], '|', e['STATUS'], '|', e['SEQUENCE'])
print(len(events))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(out)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("icalendar refused it: %v\n%s", err, got)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if last := lines[len(lines)-1]; last != strings.TrimSpace(string(rune('0'+want))) {
		t.Errorf("icalendar read %s events, want %d:\n%s", last, want, got)
	}
	if !strings.Contains(string(got), `Acme: Upgrade, "db"; \ and more`+"\nsecond line") {
		t.Errorf("icalendar read the summary otherwise:\n%s", got)
	}
}

func TestCancelled(t *testing.T) {
	m := mnt("m", "x", now.Add(time.Hour), now.Add(2*time.Hour))
	if m.Cancelled() {
		t.Error("a scheduled maintenance reads cancelled")
	}
	m.Latest.StatusRaw = "Cancelled"
	if !m.Cancelled() {
		t.Error("status Cancelled does not read cancelled")
	}
	m.Latest.StatusRaw = "completed"
	m.Removed, m.RemovedAt = true, now.Add(3*time.Hour) // removed after its window: done, not cancelled
	if m.Cancelled() {
		t.Error("removed after its window reads cancelled")
	}
	m.RemovedAt = now
	if !m.Cancelled() {
		t.Error("removed before its window does not read cancelled")
	}
}

// FuzzWrite: whatever the vendor's title, update and URL, every line is a valid
// content line, and the title reads back as sent, less what clean drops.
func FuzzWrite(f *testing.F) {
	f.Add("Database upgrade", "We will upgrade.", "https://status.acme.test/x")
	f.Add("a,b;c\\d\r\ne\x1b[31m", "\u202e\u200bbody\n\n", "javascript:alert(1)")
	f.Add(strings.Repeat("é", 100), strings.Repeat("漢", 300), "https://x.test/"+strings.Repeat("a", 200))
	f.Fuzz(func(t *testing.T, title, body, url string) {
		m := mnt("m", title, now.Add(time.Hour), now.Add(2*time.Hour))
		m.Latest.Updates[0].Body = body
		m.Latest.URL = url
		out := write(t, m)
		checkLines(t, out)
		cal, err := ics.ParseCalendar(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("parse back: %v\n%q", err, out)
		}
		events := cal.Events()
		if len(events) != 1 {
			t.Fatalf("got %d events", len(events))
		}
		got := events[0].GetProperty(ics.ComponentPropertySummary).Value
		if want := clean("Acme: " + title); got != want {
			t.Errorf("summary: got %q, want %q", got, want)
		}
	})
}
