package historyfeed

import (
	"fmt"
	"html"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the US zones, on hosts without zone data
)

// TestFeedLooseUSZones: a paragraph whose US zone abbreviation contradicts its item's
// numeric timestamp by the daylight-saving hour is read in the vendor's zone; one that
// agrees, or an item that says nothing of its zone, is taken as written.
func TestFeedLooseUSZones(t *testing.T) {
	for _, tc := range []struct {
		name, pubDate, stamps string
		want                  []string // UTC, oldest first
	}{
		{"PST in summer", "Mon, 14 Jul 2025 11:30:00 -0700", "Jul 14, 11:00 PST|Jul 14, 10:00 PST",
			[]string{"2025-07-14T17:00:00Z", "2025-07-14T18:00:00Z"}},
		{"EST in summer", "Mon, 14 Jul 2025 11:30:00 -0400", "Jul 14, 11:00 EST|Jul 14, 10:00 EST",
			[]string{"2025-07-14T14:00:00Z", "2025-07-14T15:00:00Z"}},
		{"CST in summer", "Mon, 14 Jul 2025 11:30:00 -0500", "Jul 14, 11:00 CST|Jul 14, 10:00 CST",
			[]string{"2025-07-14T15:00:00Z", "2025-07-14T16:00:00Z"}},
		{"MST in summer", "Mon, 14 Jul 2025 11:30:00 -0600", "Jul 14, 11:00 MST|Jul 14, 10:00 MST",
			[]string{"2025-07-14T16:00:00Z", "2025-07-14T17:00:00Z"}},
		{"PDT in winter", "Mon, 13 Jan 2025 11:30:00 -0800", "Jan 13, 11:00 PDT|Jan 13, 10:00 PDT",
			[]string{"2025-01-13T18:00:00Z", "2025-01-13T19:00:00Z"}},
		{"across the change, each on its own date", "Thu, 20 Mar 2025 11:30:00 -0700", "Mar 20, 10:00 PST|Mar 5, 10:00 PST",
			[]string{"2025-03-05T18:00:00Z", "2025-03-20T17:00:00Z"}},
		{"PST in winter, as written", "Mon, 13 Jan 2025 11:30:00 -0800", "Jan 13, 11:00 PST|Jan 13, 10:00 PST",
			[]string{"2025-01-13T18:00:00Z", "2025-01-13T19:00:00Z"}},
		{"Arizona MST in summer, as written", "Mon, 14 Jul 2025 11:30:00 -0700", "Jul 14, 11:00 MST|Jul 14, 10:00 MST",
			[]string{"2025-07-14T17:00:00Z", "2025-07-14T18:00:00Z"}},
		{"an item in UTC says nothing", "Mon, 14 Jul 2025 18:30:00 +0000", "Jul 14, 11:00 PST|Jul 14, 10:00 PST",
			[]string{"2025-07-14T18:00:00Z", "2025-07-14T19:00:00Z"}},
		{"two hours off is not DST", "Mon, 14 Jul 2025 11:30:00 -0600", "Jul 14, 11:00 PST|Jul 14, 10:00 PST",
			[]string{"2025-07-14T18:00:00Z", "2025-07-14T19:00:00Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var paras string
			for i, st := range strings.Split(tc.stamps, "|") {
				label := []string{"Resolved", "Investigating"}[i]
				paras += fmt.Sprintf("<p><small>%s</small><br><strong>%s</strong> - text %d.</p>", st, label, i)
			}
			rss := `<?xml version="1.0"?><rss version="2.0"><channel><title>Vendor Status</title>` +
				`<item><title>Errors</title><guid>https://status.example.test/i/1</guid><pubDate>` + tc.pubDate +
				`</pubDate><description>` + html.EscapeString(paras) + `</description></item></channel></rss>`
			incs, _, _ := feedIncidents(t, []byte(rss))
			if len(incs) != 1 || len(incs[0].Updates) != 2 {
				t.Fatalf("got %+v, want one incident with two updates", incs)
			}
			for i, u := range incs[0].Updates {
				if got := u.PostedAt.UTC().Format(time.RFC3339); got != tc.want[i] {
					t.Errorf("update %d: got %s, want %s", i, got, tc.want[i])
				}
			}
		})
	}
}

func TestWrittenZone(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int
		ok   bool
	}{
		{"Mon, 14 Jul 2025 11:30:00 -0700", -7 * 3600, true},
		{"2025-07-14T11:30:00-07:00", -7 * 3600, true},
		{"2025-07-14T11:30:00.123+05:30", 5*3600 + 1800, true},
		{"2025-07-14T11:30:00Z", 0, false},
		{"Mon, 14 Jul 2025 11:30:00 GMT", 0, false},
		{"2025-07-14", 0, false},
		{"", 0, false},
	} {
		z := writtenZone(tc.raw)
		if (z != nil) != tc.ok {
			t.Errorf("writtenZone(%q): got %v, want ok %v", tc.raw, z, tc.ok)
			continue
		}
		if z != nil {
			if _, off := time.Date(2025, 1, 1, 0, 0, 0, 0, z).Zone(); off != tc.want {
				t.Errorf("writtenZone(%q): got offset %d, want %d", tc.raw, off, tc.want)
			}
		}
	}
}
