package diff

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// update rewrites the golden files: go test ./internal/diff -update (as go/printer's
// tests do). Review the rewritten files with git diff before committing them.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: got\n%s\nwant\n%s", path, got, want)
	}
}

// renderCases are the change sets every rendering is checked on.
func renderCases() []struct {
	name          string
	before, after *model.Incident
} {
	edited := edit(func(i *model.Incident) {
		i.Title = "Elevated API error rates in EU regions"
		i.Status = model.StatusResolved
		i.Impact = model.ImpactMinor
		i.ResolvedAt = ts("2025-03-04T16:02:00Z")
		i.Components = []string{"API", "Webhooks"}
		i.Updates[1].Body = "The issue has been identified as a misconfigured load balancer health check that restarted healthy nodes."
		i.Updates[2].Status = model.StatusResolved
		i.Updates = append(i.Updates[1:], model.Update{ID: "u4", Status: model.StatusResolved,
			Body: "This incident has been resolved.\n\nWe will publish a postmortem."})
		i.Postmortem = &model.Postmortem{
			Body:        "## Root cause\nA health check marked healthy nodes as failed & restarted them.\n\n## Fix\nWe changed the <health check> timeout.",
			PublishedAt: ts("2025-03-07T09:00:00Z"),
		}
	})
	unicodeBefore := &model.Incident{
		Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title:      "서비스 장애 발생",
		Components: []string{"東京リージョン"},
		Updates: []model.Update{
			{ID: "ja1", Status: model.StatusInvestigating, Body: "東京リージョンで障害が発生しています。"},
			{ID: "ko1", Status: model.StatusInvestigating, Body: "일부 사용자가 로그인할 수 없습니다 🔴"},
		},
	}
	unicodeAfter := clone(unicodeBefore)
	unicodeAfter.Title = "서비스 장애 해결"
	unicodeAfter.Components = []string{"大阪リージョン", "東京リージョン"}
	unicodeAfter.Updates[0].Body = "東京リージョンと大阪リージョンで障害が発生しています。"
	unicodeAfter.Updates[1].Body = "모든 사용자가 다시 로그인할 수 있습니다 🟢 👍🏽"
	hostile := edit(func(i *model.Incident) {
		i.Title = "<!channel> API down & <@U123> paged <http://evil.example|click here>"
		i.Updates[0].Body = "We are investigating\x1b[31m elevated error rates on the API.\r\n<!here> *not bold* ~not struck~"
	})
	return []struct {
		name          string
		before, after *model.Incident
	}{
		{"new", nil, fixture()},
		{"edits", fixture(), edited},
		{"unicode", unicodeBefore, unicodeAfter},
		{"hostile", fixture(), hostile},
		{"removed", fixture(), nil},
		{"none", fixture(), fixture()},
	}
}

func TestMrkdwnGolden(t *testing.T) {
	for _, tc := range renderCases() {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, "mrkdwn_"+tc.name, Mrkdwn(Changes(tc.before, tc.after), 0, ""))
		})
	}
	t.Run("cut", func(t *testing.T) {
		edits := renderCases()[1]
		checkGolden(t, "mrkdwn_cut", Mrkdwn(Changes(edits.before, edits.after), 300, "https://watch.example.com/incidents/acme/p7h2k9x8bh1v/changes/4"))
	})
}

func TestEscapeMrkdwn(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<!channel>", "&lt;!channel&gt;"},
		{"<!here|here>", "&lt;!here|here&gt;"},
		{"<@U123>", "&lt;@U123&gt;"},
		{"<#C123>", "&lt;#C123&gt;"},
		{"<http://x|y>", "&lt;http://x|y&gt;"},
		{"R&D", "R&amp;D"},
		{"&amp;", "&amp;amp;"},
		{"*bold* _it_ ~s~ `c`", "*bold* _it_ ~s~ `c`"},
		{"서비스 🔴", "서비스 🔴"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := EscapeMrkdwn(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMrkdwn(t *testing.T) {
	s := func(v string) *string { return &v }
	change := func(field, before, after string) model.Change {
		c := model.Change{Field: field, Before: s(before), After: s(after)}
		c.Ops = Words(before, after)
		return c
	}
	tests := []struct {
		name    string
		changes []model.Change
		want    string
	}{
		{"insert keeps its space outside", []model.Change{change("title", "The fix is deployed", "The fix is being deployed")},
			"*Title*: The fix is *being* deployed"},
		{"replacement with no space between", []model.Change{change("title", "Some users", "All users")},
			"*Title*: ~Some~\u200b*All* users"},
		{"markers inside a CJK sentence", []model.Change{change("title", "東京で障害", "大阪で障害")},
			"*Title*: ~東京~\u200b*大阪*\u200bで障害"},
		{"markers per line", []model.Change{{Field: "postmortem.body", After: s("Root cause\n\n  Fix  "),
			Ops: Words("", "Root cause\n\n  Fix  ")}},
			"*Postmortem*: *Root cause*\n\n  *Fix*  "},
		{"plain field", []model.Change{{Field: "status", Before: s("monitoring"), After: s("resolved")}},
			"*Status*: ~monitoring~ → *resolved*"},
		{"new field", []model.Change{{Field: "impact", After: s("major")}}, "*Impact*: *major*"},
		{"removed field", []model.Change{{Field: "resolved_at", Before: s("2025-03-04T16:00:00Z")}},
			"*Resolved*: ~2025-03-04 16:00 UTC~"},
		{"update labels", []model.Change{
			{Field: "updates[a]", After: s("x"), Ops: Words("", "x")},
			{Field: "updates[b]", Before: s("y"), Ops: Words("y", "")},
			{Field: "updates[c].status", Before: s("identified"), After: s("monitoring")},
			{Field: "updates[<!channel>]", After: s("")},
		}, "*New update*: *x*\n*Update removed*: ~y~\n*Update status*: ~identified~ → *monitoring*\n*New update*: (empty)"},
		{"unknown field escaped", []model.Change{{Field: "<!channel>", After: s("x")}}, "*&lt;!channel&gt;*: *x*"},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mrkdwn(tt.changes, 0, ""); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestMrkdwnEscapesVendorText checks that no vendor string can reach Slack as a mention
// or a link, in any field, before or after.
func TestMrkdwnEscapesVendorText(t *testing.T) {
	hostile := "<!channel> <!here> <@U123> <http://evil.example|click> & more"
	before := edit(func(i *model.Incident) {
		i.Components = []string{"<!subteam^S1>"}
		i.Updates[0].Body = hostile
	})
	after := edit(func(i *model.Incident) {
		i.Title = hostile
		i.Status = "<!everyone>"
		i.Components = []string{"<@U999>", "R&D"}
		i.Updates[0].Body = "Fixed " + hostile
		i.Updates = append(i.Updates, model.Update{ID: "<@U1>", Body: hostile})
		i.Postmortem = &model.Postmortem{Body: hostile}
	})
	out := Mrkdwn(Changes(before, after), 0, "")
	if strings.ContainsAny(out, "<>") {
		t.Errorf("got %q, want no < or > left", out)
	}
	for _, want := range []string{"&lt;!channel&gt;", "&lt;@U123&gt;", "&lt;http://evil.example|click&gt;", "R&amp;D", "&amp; more", "&lt;!everyone&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("got %q, want it to contain %q", out, want)
		}
	}
	if strings.Contains(strings.ReplaceAll(out, "&amp;", ""), "& ") {
		t.Errorf("got a bare & in %q", out)
	}
}

func TestMrkdwnCut(t *testing.T) {
	const url = "https://watch.example.com/incidents/acme/p7h2k9x8bh1v/changes/4"
	const link = "… <" + url + "|full diff>"
	body := strings.Repeat("The load balancer & its health check restarted healthy nodes again. ", 20)
	changes := []model.Change{
		{Field: "status", Before: new("monitoring"), After: new("resolved")},
		{Field: "updates[u4]", After: &body, Ops: Words("", body)},
	}
	full := Mrkdwn(changes, 0, "")
	tests := []struct {
		name    string
		limit   int
		moreURL string
		suffix  string
	}{
		{"with link", 300, url, link},
		{"plain ellipsis", 300, "", "…"},
		{"tight", 120, url, link},
		{"only the link fits", utf8.RuneCountInString(link) + 3, url, link},
		{"not even the link fits", 10, url, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Mrkdwn(changes, tt.limit, tt.moreURL)
			if n := utf8.RuneCountInString(got); n > tt.limit {
				t.Errorf("got %d runes, want at most %d: %q", n, tt.limit, got)
			}
			cut, ok := strings.CutSuffix(got, tt.suffix)
			if !ok {
				t.Fatalf("got %q, want it to end with %q", got, tt.suffix)
			}
			// The cut ends a word: the full rendering goes on with a space or a marker.
			cut = strings.TrimSuffix(cut, zwsp)
			closing := ""
			if strings.HasSuffix(cut, "*") && strings.Count(cut, "*")%2 == 0 && !strings.HasPrefix(full, cut) {
				cut, closing = cut[:len(cut)-1], "*"
			}
			if !strings.HasPrefix(full, cut) {
				t.Fatalf("got %q, want a prefix of the full rendering", got)
			}
			if rest := full[len(cut):]; cut != "" && !strings.HasPrefix(rest, " ") && !strings.HasPrefix(rest, "*") && !strings.HasPrefix(rest, "\n") {
				t.Errorf("got a cut before %q, want one at the end of a word", rest[:min(len(rest), 10)])
			}
			if strings.Count(cut+closing, "*")%2 != 0 {
				t.Errorf("got %q, want balanced markers", got)
			}
			if strings.Contains(got, "&amp") && strings.Count(got, "&") != strings.Count(got, "&amp;") {
				t.Errorf("got %q, want no entity cut in half", got)
			}
		})
	}
	if got := Mrkdwn(changes, utf8.RuneCountInString(full), url); got != full {
		t.Errorf("limit equal to the length: got %q, want the full rendering", got)
	}
}

// TestMrkdwnCutLongWord checks that a first word longer than the limit is cut between
// its tokens rather than dropped.
func TestMrkdwnCutLongWord(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("segment/", 40)
	changes := []model.Change{{Field: "title", After: &long, Ops: Words("", long)}}
	got := Mrkdwn(changes, 80, "")
	if n := utf8.RuneCountInString(got); n > 80 {
		t.Errorf("got %d runes, want at most 80", n)
	}
	if !strings.HasPrefix(got, "*Title*: *https://example.com/segment/") || !strings.HasSuffix(got, "*\u200b…") {
		t.Errorf("got %q, want the long word cut between tokens and its marker closed", got)
	}
}

// FuzzMrkdwn checks, for any texts and limit, that Mrkdwn never panics, never goes over
// the limit, and never lets a < or > through apart from its own link.
func FuzzMrkdwn(f *testing.F) {
	f.Add("The fix is deployed", "The fix is <!channel> being deployed & more", 40)
	f.Add("東京で障害", "大阪で障害 <@U1>", 12)
	f.Add("a\n\n  b  ", "*a* ~b~\r\n", 3)
	f.Add("", "x", 0)
	f.Fuzz(func(t *testing.T, before, after string, limit int) {
		limit %= 1000
		const url = "https://watch.example.com/d?a=1&b=2"
		changes := []model.Change{
			{Field: "updates[x].body", Before: &before, After: &after, Ops: Words(before, after)},
			{Field: "status", Before: &after, After: &before},
			{Field: FieldStartedAt, Before: &before, After: &after},
		}
		// The update's caption carries vendor text too (its status).
		inc := &model.Incident{Updates: []model.Update{{ID: "x", Status: model.Status(after)}}}
		got := Mrkdwn(changes, limit, url, inc)
		if n := utf8.RuneCountInString(got); limit > 0 && n > limit {
			t.Fatalf("got %d runes, want at most %d", n, limit)
		}
		got = strings.TrimSuffix(got, " <"+EscapeMrkdwn(url)+"|full diff>")
		if strings.ContainsAny(got, "<>") {
			t.Fatalf("got %q, want no < or > outside the link", got)
		}
	})
}
