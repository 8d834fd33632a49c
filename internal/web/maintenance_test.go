package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/model"
)

func TestMaintenanceCalendar(t *testing.T) {
	e := newEnv(t).seed()
	other := mnt1
	other.ID, other.Title = "mnt-2", "Network change, phase 1; <b>all</b> regions"
	other.ScheduledFor, other.ScheduledUntil = t0.Add(24*time.Hour), t0.Add(25*time.Hour)
	e.record("gamma", t0.Add(time.Hour), []model.Incident{other})
	e.record("gamma", t0.Add(2*time.Hour), []model.Incident{func() model.Incident { o := other; o.Title += " (updated)"; return o }()})

	get := func(path string) string {
		t.Helper()
		r := e.get(path, http.StatusOK)
		if got := r.header.Get("Content-Type"); got != "text/calendar; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", path, got)
		}
		return string(r.body)
	}

	all := get("/maintenance.ics")
	if n := strings.Count(all, "BEGIN:VEVENT\r\n"); n != 2 {
		t.Fatalf("got %d events, want 2 (no incident):\n%s", n, all)
	}
	// Soonest first; gamma's has a second version, so SEQUENCE 1.
	g, a := strings.Index(all, "UID:gamma/mnt-2@statuswatch\r\n"), strings.Index(all, "UID:acme/mnt-1@statuswatch\r\n")
	if g < 0 || a < 0 || g > a {
		t.Errorf("UIDs at %d and %d:\n%s", g, a, all)
	}
	for _, want := range []string{
		"SUMMARY:Gamma: Network change\\, phase 1\\; <b>all</b> regions (updated)\r\n",
		"DTSTART:20260702T120000Z\r\nDTEND:20260702T130000Z\r\n", "SEQUENCE:1\r\n", "SEQUENCE:0\r\n",
		"STATUS:CONFIRMED\r\n", "X-WR-CALNAME:Vendor maintenance\r\n",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in\n%s", want, all)
		}
	}

	one := get("/sources/acme/maintenance.ics")
	if strings.Count(one, "BEGIN:VEVENT") != 1 || !strings.Contains(one, "UID:acme/mnt-1@statuswatch") ||
		!strings.Contains(one, "X-WR-CALNAME:Acme maintenance\r\n") {
		t.Errorf("acme's calendar:\n%s", one)
	}
	e.get("/sources/nope/maintenance.ics", http.StatusNotFound)

	t.Run("behind web.auth", func(t *testing.T) {
		e := authEnv(t, config.Auth{BearerToken: config.NewSecret(bearerSecret)})
		e.get("/maintenance.ics", http.StatusUnauthorized)
		r := e.do(http.MethodGet, "/maintenance.ics", http.Header{"Authorization": {"Bearer " + bearerSecret}})
		if r.status != http.StatusOK {
			t.Errorf("with the token: %d", r.status)
		}
	})
}
