package config

import (
	"strings"
	"testing"
	"time"
)

// open_interval is inherited from defaults unless a source sets its own; 0 turns it off;
// under a second is refused.
func TestOpenInterval(t *testing.T) {
	cfg := mustParse(t, "defaults:\n  open_interval: 1m\nsources:\n"+
		"  - {name: a, url: 'https://a.test'}\n  - {name: b, url: 'https://b.test', open_interval: 0}\n")
	if a, b := cfg.Source("a").OpenInterval, cfg.Source("b").OpenInterval; a != time.Minute || b != 0 {
		t.Errorf("got a %v, b %v; want 1m (inherited), 0 (its own)", a, b)
	}
	cfg = mustParse(t, "sources:\n  - {name: a, url: 'https://a.test'}\n")
	if got := cfg.Source("a").OpenInterval; got != 30*time.Second {
		t.Errorf("default: got %v, want 30s", got)
	}
	for _, bad := range []string{"500ms", "-1s", "soon"} {
		_, err := Parse([]byte("sources:\n  - {name: a, url: 'https://a.test', open_interval: "+bad+"}\n"), "config.yaml")
		if err == nil || !strings.Contains(err.Error(), "sources[0].open_interval") {
			t.Errorf("open_interval %s: got %v, want an error naming sources[0].open_interval", bad, err)
		}
	}
}
