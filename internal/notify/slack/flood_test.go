package slack

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
