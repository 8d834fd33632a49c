package e2e

// TestFollowUpsEndToEnd: on an hourly schedule with open_interval 1s, the built daemon
// polls a source on its own while it has an open incident, so a follow-up the vendor
// posts reaches Slack without anyone asking for a poll, and so does the resolution; the
// page answers 304 to the follow-up polls in between. Nothing but the follow-ups can
// deliver them: the next scheduled poll is up to an hour away.

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

func TestFollowUpsEndToEnd(t *testing.T) {
	page := &fakepage.Statuspage{Name: "Acme"}
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	inc := fakepage.Incident{
		ID: "fu1", Name: "Elevated API errors", Status: "investigating", Impact: "major",
		CreatedAt: t0, UpdatedAt: t0, StartedAt: t0,
		Updates: []fakepage.Update{{ID: "fu1-1", Status: "investigating", Body: "We are investigating elevated errors.", CreatedAt: t0, UpdatedAt: t0, DisplayAt: t0}},
	}
	page.Set([]fakepage.Incident{inc}, nil)
	w := newWorld(t, page, "statuspage", atRoot, "    open_interval: 1s\n")
	w.page = page
	root := w.calls(1)[0]
	if !strings.Contains(root.Text, "Elevated API errors") {
		t.Fatalf("first poll: root %q, want the open incident", root.Text)
	}

	for i, step := range []struct{ status, body string }{
		{"identified", "We found the faulty deploy and are rolling it back."},
		{"resolved", "Errors are back to normal."},
	} {
		at := t0.Add(time.Duration(i+1) * time.Minute)
		inc.Status, inc.UpdatedAt = step.status, at
		if step.status == "resolved" {
			inc.ResolvedAt = &at
		}
		inc.Updates = append([]fakepage.Update{{ID: inc.ID + "-" + step.status, Status: step.status, Body: step.body, CreatedAt: at, UpdatedAt: at, DisplayAt: at}}, inc.Updates...)
		page.Requests()
		page.Set([]fakepage.Incident{inc}, nil) // no PollNow: the follow-up polls find it
		got := w.calls(2)[0]                    // the reply, then the root edited to the new status
		if got.ThreadTS != root.TS || !strings.Contains(got.Text+string(got.Blocks), step.body) {
			t.Errorf("%s: got %s thread=%q %q, want a reply in the incident's thread quoting %q", step.status, got.Method, got.ThreadTS, got.Text, step.body)
		}
	}
	// The polls between were conditional: the page answered 304 to all but the one that
	// found the change.
	var full, notModified int
	for _, r := range page.Requests() {
		switch {
		case r.Path != "/api/v2/incidents.json":
		case r.Status == http.StatusNotModified:
			notModified++
		default:
			full++
		}
	}
	if full > 1 {
		t.Errorf("incidents.json read whole %d times since the resolution was served, want at most once (%d × 304)", full, notModified)
	}
}
