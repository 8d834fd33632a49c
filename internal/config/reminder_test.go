package config

import (
	"strings"
	"testing"
	"time"
)

// maintenance_reminder defaults to 1h, is inherited from defaults unless a source sets
// its own, 0 turns it off, and what is under a minute or over 30 days is refused.
func TestMaintenanceReminder(t *testing.T) {
	cfg := mustParse(t, "sources:\n  - {name: a, url: 'https://a.test'}\n")
	if got := cfg.Source("a").MaintenanceReminder; got != time.Hour {
		t.Errorf("default: got %v, want 1h", got)
	}
	cfg = mustParse(t, "defaults:\n  maintenance_reminder: 2d\nsources:\n"+
		"  - {name: a, url: 'https://a.test'}\n  - {name: b, url: 'https://b.test', maintenance_reminder: 0}\n"+
		"  - {name: c, url: 'https://c.test', maintenance_reminder: 15m}\n")
	a, b, c := cfg.Source("a").MaintenanceReminder, cfg.Source("b").MaintenanceReminder, cfg.Source("c").MaintenanceReminder
	if a != 48*time.Hour || b != 0 || c != 15*time.Minute {
		t.Errorf("got a %v, b %v, c %v; want 48h (inherited), 0, 15m (their own)", a, b, c)
	}
	for _, bad := range []string{"30s", "-1h", "31d", "soon"} {
		_, err := Parse([]byte("defaults:\n  maintenance_reminder: "+bad+"\n"), "config.yaml")
		if err == nil || !strings.Contains(err.Error(), "defaults.maintenance_reminder") {
			t.Errorf("defaults %s: got %v, want an error naming defaults.maintenance_reminder", bad, err)
		}
		_, err = Parse([]byte("sources:\n  - {name: a, url: 'https://a.test', maintenance_reminder: "+bad+"}\n"), "config.yaml")
		if err == nil || !strings.Contains(err.Error(), "sources[0].maintenance_reminder") {
			t.Errorf("source %s: got %v, want an error naming sources[0].maintenance_reminder", bad, err)
		}
	}
}

// A route may match the reminder by its event, with or without the maintenance kind;
// with kinds that never have it, it never matches and is refused.
func TestRouteMaintenanceSoon(t *testing.T) {
	src := "sources:\n  - {name: acme, url: 'https://a.test'}\n"
	cfg := mustParse(t, src+"routes:\n  - match: {kinds: [maintenance], events: [maintenance_soon]}\n    receivers: [slack]\n")
	if got := cfg.Routes[0].Match.Events; len(got) != 1 || got[0] != "maintenance_soon" {
		t.Errorf("events: got %q, want [maintenance_soon]", got)
	}
	_, err := Parse([]byte(src+"routes:\n  - match: {kinds: [incident], events: [maintenance_soon]}\n    receivers: [slack]\n"), "config.yaml")
	if err == nil || !strings.Contains(err.Error(), "routes[0].match") {
		t.Errorf("incident kind: got %v, want an error naming routes[0].match", err)
	}
}
