package e2e

// TestSearchEveryVersionEndToEnd is the end-to-end test of issue 15's "search finds
// removed words": a Statuspage page whose incident update loses a word ("DNS") in its
// second version, and a Japanese notice that loses 障害 ("outage"), polled by the built
// binary running as a daemon. GET /api/v1/incidents?q= finds both with matched.latest
// false, the search page marks them "removed in version 2" with a link to that change,
// and `watcher incidents -q`, which goes through the daemon's API while the daemon holds
// the archive, prints where.

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

func TestSearchEveryVersionEndToEnd(t *testing.T) {
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	update := func(id, body string, at time.Time) fakepage.Update {
		return fakepage.Update{ID: id, Status: "investigating", Body: body, CreatedAt: t0, UpdatedAt: at, DisplayAt: t0}
	}
	incident := func(id, name, body string, at time.Time) fakepage.Incident {
		return fakepage.Incident{ID: id, Name: name, Status: "investigating", Impact: "major",
			CreatedAt: t0, UpdatedAt: at, StartedAt: t0, Updates: []fakepage.Update{update(id+"u1", body, at)}}
	}
	page := &fakepage.Statuspage{Name: "Acme"}
	page.Set(nil, nil)
	w := newWorld(t, page, "statuspage", atRoot, "")

	// Version 1 of each, then version 2 without the word.
	page.Set([]fakepage.Incident{
		incident("dnsinc00001", "Elevated API errors", "We are investigating a bad DNS change in eu-west.", t0),
		incident("jpinc000001", "決済の遅延", "決済サービスで障害が発生しています。", t0),
	}, nil)
	w.poll()
	later := t0.Add(10 * time.Minute)
	page.Set([]fakepage.Incident{
		incident("dnsinc00001", "Elevated API errors", "We are investigating a configuration change in eu-west.", later),
		incident("jpinc000001", "決済の遅延", "決済サービスで遅延が発生しています。", later),
	}, nil)
	w.poll()

	type item struct {
		ID       string `json:"id"`
		Versions int    `json:"versions"`
		Matched  *struct {
			Version int    `json:"version"`
			Field   string `json:"field"`
			Latest  bool   `json:"latest"`
		} `json:"matched"`
	}
	for _, tt := range []struct {
		q, id  string
		latest bool
		v      int
		field  string
	}{
		{"dns", "dnsinc00001", false, 1, "updates"},
		{"DNS eu-west", "dnsinc00001", false, 1, "updates"},
		{"configuration", "dnsinc00001", true, 2, "updates"},
		{"障害", "jpinc000001", false, 1, "updates"},
		{"遅延", "jpinc000001", true, 2, "title"},
	} {
		var got []item
		w.get("/api/v1/incidents?q="+url.QueryEscape(tt.q), &got)
		if len(got) == 1 && got[0].Matched != nil {
			t.Logf("q=%s: matched %+v", tt.q, *got[0].Matched)
		}
		if len(got) != 1 || got[0].ID != tt.id || got[0].Versions != 2 || got[0].Matched == nil ||
			got[0].Matched.Latest != tt.latest || got[0].Matched.Version != tt.v || got[0].Matched.Field != tt.field {
			t.Errorf("q=%s: got %+v, want %s matched in version %d (latest %v) in its %s", tt.q, got, tt.id, tt.v, tt.latest, tt.field)
		}
	}
	var none []item
	if w.get("/api/v1/incidents?q=dns+nowhere", &none); len(none) != 0 {
		t.Errorf("q=dns nowhere: got %+v, want nothing", none)
	}

	for _, tt := range []struct{ q, id string }{{"dns", "dnsinc00001"}, {"障害", "jpinc000001"}} {
		resp, err := http.Get(w.d.URL("/search?q=" + url.QueryEscape(tt.q)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		html := string(b)
		if !strings.Contains(html, "removed in version 2") || !strings.Contains(html, `href="/incidents/acme/`+tt.id+`/changes/2"`) {
			t.Errorf("search page for %s: no \"removed in version 2\" linked to the change:\n%s", tt.q, html)
		}
	}

	cfg := filepath.Join(filepath.Dir(w.db), "config.yaml")
	r := testbin.Must(t, 0, []string{"WATCHER_CONFIG=" + cfg, "SLACK_BOT_TOKEN=" + compToken}, "incidents", "-q", "dns")
	if !strings.Contains(r.Stdout, "acme/dnsinc00001") || !strings.Contains(r.Stdout, "v1 updates, removed in v2") {
		t.Errorf("watcher incidents -q dns:\n%s", r.Stdout)
	}
}
