package slack

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	slackapi "github.com/slack-go/slack"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

func floodNote(items []notify.FloodItem, count int, link string) *notify.Notification {
	return &notify.Notification{Message: model.Message{Source: "acme"}, SourceTitle: "Acme Cloud",
		Flood: &notify.Flood{Count: count, Items: items, Link: link}}
}

var floodItems = []notify.FloodItem{
	{What: "New incident", Title: "Elevated API errors", Link: base + "/incidents/acme/i1", VendorURL: "https://status.acme.example/incidents/i1"},
	{What: "New incident", Title: "Login failures", Link: base + "/incidents/acme/i2"},
	{What: "Resolved", Title: "Slow dashboard", VendorURL: "https://status.acme.example/incidents/i3"},
}

// TestFloodGolden checks the flood's payloads byte for byte, like TestGolden.
func TestFloodGolden(t *testing.T) {
	for _, tc := range []struct {
		name    string
		webhook bool
		n       *notify.Notification
	}{
		{"bot_flood", false, floodNote(floodItems, 5000, base+"/sources/acme")},
		{"webhook_flood_no_base_url", true, floodNote(floodItems[2:], 21, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pretty(t, build(tc.n, tc.webhook))
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

// A flood's vendor titles are escaped and a vendor link that is not http(s) is left out.
func TestFloodVendorTextEscaped(t *testing.T) {
	n := floodNote([]notify.FloodItem{{What: "New incident", Title: "<!channel> *pwned* <https://evil.example|click>",
		VendorURL: "javascript:alert(1)"}}, 30, "")
	got := string(pretty(t, build(n, false)))
	for _, bad := range []string{"<!channel>", "javascript:", "<https://evil"} {
		if strings.Contains(got, bad) {
			t.Errorf("flood payload carries %q:\n%s", bad, got)
		}
	}
}

// linkMarkup is a Slack link as link builds it.
var linkMarkup = regexp.MustCompile(`<https?://[^|<>]+\|[^<>]*>`)

// FuzzFlood checks, for any vendor title and link, that a flood's message never panics
// and never lets a < or > through apart from its own links.
func FuzzFlood(f *testing.F) {
	f.Add("Elevated API errors", "https://status.acme.example/i1", true)
	f.Add("<!channel> *x* <https://evil.example|click>", "javascript:alert(1)", false)
	f.Add("東京で障害 <@U1>", "https://a.example/x?a=<b>|c", false)
	f.Add("", "", true)
	f.Fuzz(func(t *testing.T, title, vendorURL string, ours bool) {
		it := notify.FloodItem{What: "New incident", Title: title, VendorURL: vendorURL}
		if ours {
			it.Link = base + "/incidents/acme/x"
		}
		m := build(floodNote([]notify.FloodItem{it, it}, 40, base+"/sources/acme"), false)
		for _, s := range append([]string{m.Text}, sectionTexts(m)...) {
			if rest := linkMarkup.ReplaceAllString(s, ""); strings.ContainsAny(rest, "<>") {
				t.Fatalf("got %q, want no < or > outside the links", s)
			}
		}
	})
}

// sectionTexts are the mrkdwn texts of m's blocks.
func sectionTexts(m message) []string {
	var out []string
	for _, b := range m.Blocks {
		switch b := b.(type) {
		case *slackapi.SectionBlock:
			out = append(out, b.Text.Text)
		case *slackapi.ContextBlock:
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slackapi.TextBlockObject); ok {
					out = append(out, t.Text)
				}
			}
		}
	}
	return out
}
