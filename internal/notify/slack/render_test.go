package slack

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

const (
	base     = "https://watch.example.com"
	rootTS   = "1700000000.000100"
	rootChan = "C0001"
)

// fixture is the texts a test incident is made of, so the hostile test can fill every
// one with an attack.
type fixture struct {
	source, title, component, body, body2, edited, resolved, postmortem, vendorURL, status, errText string
}

var plainFixture = fixture{
	source:     "Acme Cloud",
	title:      "Elevated API errors",
	component:  "API",
	body:       "We are investigating elevated error rates on the API.",
	body2:      "We identified a faulty deploy and are rolling it back.",
	edited:     "We are investigating elevated error rates on the API in eu-west-1.",
	resolved:   "This incident has been resolved.",
	postmortem: "Root cause: a configuration push disabled the connection pool.",
	vendorURL:  "https://status.acme.example/incidents/abc123",
	errText:    "GET https://status.acme.example/api/v2/incidents.json: 503 Service Unavailable",
}

// life is an incident's versions through its life: new, identified with a new update,
// an edit of the first update, resolved, postmortem.
func (f fixture) life() []model.Incident {
	first := model.Incident{
		ID: "abc123", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title: f.title, StartedAt: t0, Components: []string{f.component, "Dashboard"}, URL: f.vendorURL,
		Updates: []model.Update{{ID: "u1", Status: model.StatusInvestigating, Body: f.body, Format: model.FormatText, PostedAt: t0}},
	}
	if f.status != "" {
		first.Status = model.Status(f.status)
	}
	identified := first
	identified.Status = model.StatusIdentified
	identified.Updates = append(clone(first.Updates), model.Update{ID: "u2", Status: model.StatusIdentified, Body: f.body2, Format: model.FormatText, PostedAt: t0.Add(20 * time.Minute)})
	edited := identified
	edited.Updates = clone(identified.Updates)
	edited.Updates[0].Body = f.edited
	resolved := edited
	resolved.Status = model.StatusResolved
	resolved.ResolvedAt = t0.Add(91 * time.Minute)
	resolved.Updates = append(clone(edited.Updates), model.Update{ID: "u3", Status: model.StatusResolved, Body: f.resolved, Format: model.FormatText, PostedAt: t0.Add(91 * time.Minute)})
	pm := resolved
	pm.Status = model.StatusPostmortem
	pm.Postmortem = &model.Postmortem{Body: f.postmortem, Format: model.FormatMarkdown, PublishedAt: t0.Add(72 * time.Hour)}
	return []model.Incident{first, identified, edited, resolved, pm}
}

func (f fixture) maintenance() []model.Incident {
	m := model.Incident{
		ID: "m1", Kind: model.KindMaintenance, Status: model.StatusScheduled, Impact: model.ImpactMaintenance,
		Title: f.title, ScheduledFor: t0.Add(24 * time.Hour), ScheduledUntil: t0.Add(26 * time.Hour),
		Components: []string{f.component}, URL: f.vendorURL,
		Updates: []model.Update{{ID: "mu1", Status: model.StatusScheduled, Body: f.body, Format: model.FormatText, PostedAt: t0}},
	}
	started := m
	started.Status = model.StatusInProgress
	started.Updates = append(clone(m.Updates), model.Update{ID: "mu2", Status: model.StatusInProgress, Body: f.body2, Format: model.FormatText, PostedAt: t0.Add(24 * time.Hour)})
	done := started
	done.Status = model.StatusCompleted
	done.Updates = append(clone(started.Updates), model.Update{ID: "mu3", Status: model.StatusCompleted, Body: f.resolved, Format: model.FormatText, PostedAt: t0.Add(26 * time.Hour)})
	return []model.Incident{m, started, done}
}

func clone(us []model.Update) []model.Update { return append([]model.Update(nil), us...) }

// versions turns a life into archived versions, an hour apart.
func versions(life []model.Incident) []*model.Version {
	var out []*model.Version
	var prev *model.Incident
	for i := range life {
		cur := &life[i]
		ch := diff.Changes(prev, cur)
		out = append(out, &model.Version{N: i + 1, ObservedAt: t0.Add(time.Duration(i) * time.Hour), Incident: *cur, Changes: ch, Summary: diff.Summary(ch)})
		prev = cur
	}
	return out
}

// note builds the notification the Deliverer would for version v.
func note(f fixture, v *model.Version, ev model.Event, thread bool) *notify.Notification {
	n := &notify.Notification{
		Message:      model.Message{ID: uint64(v.N), Source: "acme", IncidentID: v.Incident.ID, Version: v.N, Event: ev, CreatedAt: v.ObservedAt},
		Version:      v,
		SourceTitle:  f.source,
		IncidentLink: base + "/incidents/acme/" + v.Incident.ID,
	}
	n.Link = fmt.Sprintf("%s/changes/%d", n.IncidentLink, v.N)
	if thread {
		n.Thread = &notify.Thread{Channel: rootChan, TS: rootTS}
	}
	return n
}

// renderCase is one golden payload.
type renderCase struct {
	name string
	fn   func() message
}

func cases(f fixture) []renderCase {
	inc := versions(f.life())
	mnt := versions(f.maintenance())
	bot := func(n *notify.Notification) func() message { return func() message { return render(n, false) } }
	hook := func(n *notify.Notification) func() message { return func() message { return render(n, true) } }
	catchUp := note(f, inc[2], model.EventNew, false)
	catchUp.Message.CatchUp, catchUp.FirstSeen = true, inc[0].ObservedAt
	lateRoot := note(f, inc[3], model.EventResolved, false)
	lateRoot.FirstSeen = inc[0].ObservedAt
	plain := note(f, inc[1], model.EventChanged, true)
	plain.PlainText = true
	removed := note(f, inc[2], model.EventRemoved, true)
	removed.Link = removed.IncidentLink
	noLinks := note(f, inc[0], model.EventNew, false)
	noLinks.Link, noLinks.IncidentLink = "", ""
	down := &notify.Notification{Message: model.Message{ID: 9, Source: "acme", Event: model.EventSourceDown, Text: f.errText}, SourceTitle: f.source}
	up := &notify.Notification{Message: model.Message{ID: 10, Source: "acme", Event: model.EventSourceUp}, SourceTitle: f.source}
	soon := note(f, mnt[0], model.EventMaintenanceSoon, true)
	soon.Message.CreatedAt = mnt[0].Incident.ScheduledFor.Add(-59*time.Minute - 30*time.Second)
	soon.Link = soon.IncidentLink
	soonRoot := *soon
	soonRoot.Thread = nil
	digest := &notify.Notification{Message: model.Message{Source: "acme"}, Digest: &notify.Digest{
		Count: 12, MaxAge: 24 * time.Hour, Link: base + "/",
		Sources: []notify.SourceCount{{Source: f.source, Count: 3}, {Source: "GitHub", Count: 9}}}}
	out := []renderCase{
		{"bot_root_new", bot(note(f, inc[0], model.EventNew, false))},
		{"bot_root_no_base_url", bot(noLinks)},
		{"bot_root_catch_up", bot(catchUp)},
		{"bot_root_late_resolved", bot(lateRoot)},
		{"bot_reply_update", bot(note(f, inc[1], model.EventChanged, true))},
		{"bot_reply_edited", bot(note(f, inc[2], model.EventChanged, true))},
		{"bot_reply_resolved", bot(note(f, inc[3], model.EventResolved, true))},
		{"bot_reply_postmortem", bot(note(f, inc[4], model.EventPostmortem, true))},
		{"bot_reply_removed", bot(removed)},
		{"bot_reply_plain_text", bot(plain)},
		{"bot_root_edit_identified", func() message { return renderRoot(note(f, inc[1], model.EventChanged, true)) }},
		{"bot_root_edit_postmortem", func() message { return renderRoot(note(f, inc[4], model.EventPostmortem, true)) }},
		{"bot_maintenance_scheduled", bot(note(f, mnt[0], model.EventNew, false))},
		{"bot_maintenance_started", bot(note(f, mnt[1], model.EventChanged, true))},
		{"bot_maintenance_completed", bot(note(f, mnt[2], model.EventResolved, true))},
		{"bot_maintenance_soon", bot(soon)},
		{"bot_maintenance_soon_root", bot(&soonRoot)},
		{"webhook_maintenance_soon", hook(soon)},
		{"bot_source_down", bot(down)},
		{"bot_source_up", bot(up)},
		{"bot_digest", bot(digest)},
		{"webhook_new", hook(note(f, inc[0], model.EventNew, false))},
		{"webhook_update", hook(note(f, inc[1], model.EventChanged, false))},
		{"webhook_edited", hook(note(f, inc[2], model.EventChanged, false))},
		{"webhook_resolved", hook(note(f, inc[3], model.EventResolved, false))},
		{"webhook_postmortem", hook(note(f, inc[4], model.EventPostmortem, false))},
		{"webhook_removed", hook(removed)},
		{"webhook_maintenance_started", hook(note(f, mnt[1], model.EventChanged, false))},
		{"webhook_source_down", hook(down)},
		{"webhook_digest", hook(digest)},
	}
	return append(out, componentCases(f)...)
}

// TestGolden checks every payload byte for byte; `go test ./internal/notify/... -update`
// rewrites the files after a deliberate change.
func TestGolden(t *testing.T) {
	for _, tc := range cases(plainFixture) {
		t.Run(tc.name, func(t *testing.T) {
			got := pretty(t, tc.fn())
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("payload differs from %s (run with -update after a deliberate change):\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// pretty is m as JSON, indented, with < > & left as they are so the golden files read
// like what Slack shows.
func pretty(t *testing.T, m message) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	// slack-go's block marshalers escape HTML themselves; undo it, to the same JSON.
	return []byte(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(b.String()))
}

// hostile is vendor text that would ping the channel, mention a user and smuggle a link
// if it reached Slack unescaped.
const hostile = "<!channel> <@U123> <http://evil|click> & x"

// hostileFixture puts the attack in every vendor string.
var hostileFixture = fixture{
	source:     "Acme " + hostile,
	title:      "Title " + hostile,
	component:  "Component " + hostile,
	body:       "Body " + hostile,
	body2:      "Second " + hostile,
	edited:     "Body edited " + hostile,
	resolved:   "Resolved " + hostile,
	postmortem: "Postmortem " + hostile,
	vendorURL:  "https://status.acme.example/x?a=1&b=<!channel>|<@U123>",
	status:     "investigating " + hostile,
	errText:    "Error " + hostile,
}

// TestVendorTextEscaped renders every kind of payload with the attack in every vendor
// field and checks no string of the payload carries it unescaped.
func TestVendorTextEscaped(t *testing.T) {
	for _, tc := range cases(hostileFixture) {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.fn()
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if s := unescapedAttack(data); s != "" {
				t.Errorf("unescaped vendor text in %q", s)
			}
		})
	}
}

// unescapedAttack returns the first string in a JSON document that carries a piece of the
// attack unescaped, or "".
func unescapedAttack(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return "invalid JSON: " + err.Error()
	}
	var found string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			for _, bad := range []string{"<!channel>", "<@U123>", "<http://evil", "& x", "<!channel", "|<@"} {
				if strings.Contains(x, bad) && found == "" {
					found = x
				}
			}
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return found
}

// TestLimits feeds the largest inputs a vendor can produce and checks every payload
// against Slack's limits.
func TestLimits(t *testing.T) {
	long := strings.Repeat("word ", 4000) + "end"
	huge := fixture{
		source: strings.Repeat("S", 500), title: strings.Repeat("Title ", 200), component: strings.Repeat("c", 3000),
		body: long, body2: long, edited: long + " edited", resolved: long, postmortem: long,
		vendorURL: "https://status.example/" + strings.Repeat("x", 5000), errText: long,
	}
	life := huge.life()
	// Ten new updates in one change set, and a hundred components.
	many := life[1]
	for i := range 10 {
		many.Updates = append(clone(many.Updates), model.Update{ID: fmt.Sprintf("x%d", i), Status: model.StatusIdentified, Body: long, PostedAt: t0.Add(time.Duration(30+i) * time.Minute)})
	}
	for i := range 100 {
		many.Components = append(many.Components, fmt.Sprintf("Component %d %s", i, strings.Repeat("z", 40)))
	}
	vs := versions([]model.Incident{life[0], many})
	all := cases(huge)
	all = append(all,
		renderCase{"many updates", func() message { return render(note(huge, vs[1], model.EventChanged, true), false) }},
		renderCase{"many updates webhook", func() message { return render(note(huge, vs[1], model.EventChanged, false), true) }},
	)
	for _, tc := range all {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.fn()
			data, _ := json.Marshal(m.Blocks)
			if err := checkLimits(m, data); err != "" {
				t.Error(err)
			}
		})
	}
	t.Run("long body cut at a word with a link", func(t *testing.T) {
		data := pretty(t, render(note(huge, vs[1], model.EventChanged, true), false))
		if !strings.Contains(string(data), "word…") && !strings.Contains(string(data), "word …") {
			t.Errorf("no cut at a word in %.300s", data)
		}
		if !strings.Contains(string(data), "|full text>") {
			t.Errorf("no link to the full text in the cut body")
		}
	})
}

// checkLimits returns what in m breaks a Slack limit, or "".
func checkLimits(m message, blocksJSON []byte) string {
	if n := utf8.RuneCountInString(m.Text); n > 4000 {
		return fmt.Sprintf("text: %d chars, want ≤ 4000", n)
	}
	var blocks []map[string]any
	if err := json.Unmarshal(blocksJSON, &blocks); err != nil && len(blocksJSON) > 0 && string(blocksJSON) != "null" {
		return err.Error()
	}
	if len(blocks) > 50 {
		return fmt.Sprintf("%d blocks, want ≤ 50", len(blocks))
	}
	total := 0
	for i, b := range blocks {
		if t, ok := b["text"].(map[string]any); ok {
			n := utf8.RuneCountInString(t["text"].(string))
			total += n
			if n > 3000 {
				return fmt.Sprintf("block %d: section text %d chars, want ≤ 3000", i, n)
			}
		}
		if fs, ok := b["fields"].([]any); ok {
			if len(fs) > 10 {
				return fmt.Sprintf("block %d: %d fields, want ≤ 10", i, len(fs))
			}
			for _, f := range fs {
				n := utf8.RuneCountInString(f.(map[string]any)["text"].(string))
				total += n
				if n > 2000 {
					return fmt.Sprintf("block %d: field %d chars, want ≤ 2000", i, n)
				}
			}
		}
		if es, ok := b["elements"].([]any); ok {
			if len(es) > 10 {
				return fmt.Sprintf("block %d: %d context elements, want ≤ 10", i, len(es))
			}
			for _, e := range es {
				total += utf8.RuneCountInString(e.(map[string]any)["text"].(string))
			}
		}
	}
	if total > 12000 {
		return fmt.Sprintf("blocks hold %d chars, want ≤ 12000", total)
	}
	return ""
}

func TestCutVendor(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int
		more     string
		want     string
	}{
		{"fits", "a & b", 20, "", "a &amp; b"},
		{"cut at a word", "alpha beta gamma", 12, "", "alpha beta…"},
		{"entity never split", "a & b & c & d", 9, "", "a &amp;…"},
		{"with a link", "alpha beta gamma delta epsilon zeta eta theta iota", 40, "https://x.example/d", "alpha beta… <https://x.example/d|more>"},
		{"one long word", "abcdefghij", 5, "", "abcd…"},
		{"link with a pipe", "alpha beta gamma delta epsilon zeta eta theta iota kappa", 45, "https://x.example/a|b", "alpha beta… <https://x.example/a%7Cb|more>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutVendor(tt.in, tt.limit, tt.more, "more")
			if got != tt.want {
				t.Errorf("cutVendor(%q, %d): got %q, want %q", tt.in, tt.limit, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > tt.limit {
				t.Errorf("got %d runes, want ≤ %d", n, tt.limit)
			}
		})
	}
}

func TestCutMrkdwn(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"fits", "a b", 5, "a b"},
		{"at a space", "alpha beta gamma", 12, "alpha beta…"},
		{"never inside a link", "see <https://x.example/a|the full diff> now", 30, "see…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cutMrkdwn(tt.in, tt.limit); got != tt.want {
				t.Errorf("cutMrkdwn(%q, %d): got %q, want %q", tt.in, tt.limit, got, tt.want)
			}
		})
	}
}
