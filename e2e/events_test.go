package e2e

// TestEventsEndToEnd is the end-to-end test of "is it the cloud?" (issue 15, item 4):
// four local Statuspage pages polled by the built binary running as a daemon with a bot
// token against a fake Slack, one poll at a time (POST /api/v1/sources/{name}/poll):
// Cloudflare, Vercel and Netlify post incidents naming us-east-1 within ten minutes,
// GitHub an unrelated one at the same time. Then:
//
//   - GET /api/v1/events lists one event: the three, not GitHub;
//   - GET …/related of Vercel's incident gives Cloudflare's and Netlify's, with the
//     reasons "same term: us-east-1" and how far apart they started;
//   - each root posted once its incident joined the event names the others ("Also
//     affected: Cloudflare" for Vercel's, both for Netlify's); Cloudflare's, posted
//     alone, and GitHub's do not, until Cloudflare's root is edited after its next
//     reply: then it names Netlify and Vercel;
//   - GET /events and /events/{id} show the event, with its time-line.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

const eventsToken = "xoxb-e2e-events"

func TestEventsEndToEnd(t *testing.T) {
	slack := fakeslack.New(fakeslack.Options{Token: eventsToken})
	t.Cleanup(slack.Close)
	start := time.Now().UTC().Add(-40 * time.Minute).Truncate(time.Second)
	type vendor struct {
		name, title, id, incident, body string
		minute                          int
	}
	vendors := []vendor{
		{"cloudflare", "Cloudflare", "cf0001", "Elevated errors for requests served from Ashburn", "Origins in AWS us-east-1 time out.", 0},
		{"vercel", "Vercel", "vc0001", "Increased function errors", "Functions deployed to iad1 (us-east-1) return 502 errors.", 4},
		{"github", "GitHub", "gh0001", "Delayed webhook deliveries", "Webhook deliveries are delayed by up to ten minutes.", 5},
		{"netlify", "Netlify", "nf0001", "Builds failing", "Builds running in us-east-1 fail to start.", 8},
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "watcher.db")
	pages := map[string]*fakepage.Statuspage{}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "database: %s\nlisten: %s\nslack:\n  token: ${SLACK_BOT_TOKEN}\n  channel: \"#vendor-status\"\n  api_url: %s\nsources:\n",
		db, testbin.FreeAddr(t), slack.APIURL())
	for _, v := range vendors {
		at := start.Add(time.Duration(v.minute) * time.Minute)
		page := &fakepage.Statuspage{Name: v.title}
		page.Set([]fakepage.Incident{{
			ID: v.id, Name: v.incident, Status: "investigating", Impact: "major",
			CreatedAt: at, UpdatedAt: at, StartedAt: at,
			Updates: []fakepage.Update{{ID: v.id + "u1", Status: "investigating", Body: v.body, CreatedAt: at, UpdatedAt: at, DisplayAt: at}},
		}}, nil)
		pages[v.name] = page
		srv := httptest.NewServer(page)
		t.Cleanup(srv.Close)
		// A channel each: Slack's pacing of one message a second per channel does not
		// slow the test.
		fmt.Fprintf(&cfg, "  - name: %s\n    title: %s\n    url: %q\n    kind: statuspage\n    schedule: \"@every 1h\"\n    timeout: 10s\n    channel: \"#%s\"\n",
			v.name, v.title, srv.URL+"/", v.name)
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	d := testbin.StartDaemon(t, testbin.Build(t), []string{"WATCHER_CONFIG=" + path, "SLACK_BOT_TOKEN=" + eventsToken})

	get := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(d.URL(path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: HTTP %d %s", path, resp.StatusCode, b)
		}
		if s, ok := v.(*string); ok {
			*s = string(b)
		} else if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, b)
		}
	}
	// Each vendor is polled in turn and its root awaited before the next poll, so that
	// each root is rendered with the vendors polled before it, and only those.
	roots := map[string]fakeslack.Call{}
	for _, v := range vendors {
		if code, body := d.PollNow(t, v.name); code != http.StatusOK {
			t.Fatalf("poll %s: HTTP %d %v\n%s", v.name, code, body, d.Log())
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			var out []json.RawMessage
			get("/api/v1/outbox", &out)
			calls := slack.Calls()
			if len(out) == 0 && len(calls) == len(roots)+1 {
				c := calls[len(calls)-1]
				if c.Method != "chat.postMessage" || !c.OK() || !strings.Contains(c.Text, v.title) {
					t.Fatalf("%s: got %s %q (%q), want its root", v.name, c.Method, c.Text, c.Error)
				}
				roots[v.name] = c
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no root within 15s; outbox %d, %d calls\n%s", v.name, len(out), len(calls), d.Log())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for name, want := range map[string]string{
		"cloudflare": "", "github": "",
		"vercel":  "Also affected: Cloudflare",
		"netlify": "Also affected: Cloudflare, Vercel",
	} {
		blocks := string(roots[name].Blocks)
		switch {
		case want == "" && strings.Contains(blocks, "Also affected"):
			t.Errorf("%s's root names others: %s", name, blocks)
		case want != "" && !strings.Contains(blocks, want+`"`):
			t.Errorf("%s's root: want %q in %s", name, want, blocks)
		}
	}

	// Cloudflare's root, posted alone, is edited after its next reply: it names the
	// others now.
	at := start.Add(20 * time.Minute)
	pages["cloudflare"].Set([]fakepage.Incident{{
		ID: "cf0001", Name: vendors[0].incident, Status: "identified", Impact: "major",
		CreatedAt: start, UpdatedAt: at, StartedAt: start,
		Updates: []fakepage.Update{
			{ID: "cf0001u2", Status: "identified", Body: "The cause is an AWS outage in us-east-1.", CreatedAt: at, UpdatedAt: at, DisplayAt: at},
			{ID: "cf0001u1", Status: "investigating", Body: vendors[0].body, CreatedAt: start, UpdatedAt: start, DisplayAt: start},
		},
	}}, nil)
	if code, body := d.PollNow(t, "cloudflare"); code != http.StatusOK {
		t.Fatalf("poll cloudflare: HTTP %d %v", code, body)
	}
	root := roots["cloudflare"]
	deadline := time.Now().Add(15 * time.Second)
	for {
		m, ok := slack.Message(root.ChannelID, root.TS)
		if ok && m.Edits > 0 {
			if !strings.Contains(string(m.Blocks), `Also affected: Netlify, Vercel"`) {
				t.Errorf("cloudflare's edited root: want \"Also affected: Netlify, Vercel\" in %s", m.Blocks)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cloudflare's root not edited within 15s; calls:\n%s\n%s", describe(slack.Calls()), d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}

	var evs []api.Event
	get("/api/v1/events", &evs)
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1: %+v", len(evs), evs)
	}
	ev := evs[0]
	if !slices.Equal(ev.Sources, []string{"cloudflare", "netlify", "vercel"}) || ev.ID != "cloudflare.cf0001" ||
		!slices.Contains(ev.Terms, "us-east-1") || !time.Time(ev.StartedAt).Equal(start) || !time.Time(ev.EndedAt).IsZero() {
		t.Errorf("event %+v, want cloudflare.cf0001 of cloudflare, netlify and vercel on us-east-1 from %s, open", ev, start)
	}
	var rel []api.Related
	get("/api/v1/incidents/vercel/vc0001/related", &rel)
	if len(rel) != 2 || rel[0].Source != "cloudflare" || rel[1].Source != "netlify" {
		t.Fatalf("related %+v, want cloudflare then netlify", rel)
	}
	if want := []string{"same term: us-east-1", "started 4m apart"}; !slices.Equal(rel[0].Reasons, want) {
		t.Errorf("reasons %q, want %q", rel[0].Reasons, want)
	}
	if want := []string{"same term: us-east-1", "started 4m apart"}; !slices.Equal(rel[1].Reasons, want) {
		t.Errorf("netlify's reasons %q, want %q", rel[1].Reasons, want)
	}
	get("/api/v1/incidents/github/gh0001/related", &rel)
	if len(rel) != 0 {
		t.Errorf("github related to %+v, want nothing", rel)
	}

	var page string
	get("/events", &page)
	if !strings.Contains(page, `href="/events/cloudflare.cf0001"`) || !strings.Contains(page, "Cloudflare, Netlify and Vercel") {
		t.Errorf("/events does not list the event:\n%s", page)
	}
	get("/events/cloudflare.cf0001", &page)
	if strings.Count(page, `class="ev-bar ev-open"`) != 3 || !strings.Contains(page, `href="/incidents/netlify/nf0001"`) {
		t.Errorf("/events/cloudflare.cf0001 lacks its time-line:\n%s", page)
	}
}
