package diff

import (
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestDescription(t *testing.T) {
	now := ts("2025-03-04T16:10:00Z")
	closed := func(f func(*model.Incident)) *model.Incident {
		inc := &model.Incident{
			Kind: model.KindIncident, Status: model.StatusResolved, Impact: model.ImpactMajor,
			StartedAt: ts("2025-03-04T14:05:00Z"), ResolvedAt: ts("2025-03-04T15:36:00Z"),
			Components: []string{"API"},
		}
		if f != nil {
			f(inc)
		}
		return inc
	}
	tests := []struct {
		name  string
		title string
		inc   *model.Incident
		want  string
	}{
		{"the documented example", "Yandex Cloud", &model.Incident{
			Kind: model.KindIncident, Status: model.StatusResolved, Impact: model.ImpactMajor,
			Title:     "Certificate Manager and Cloud Functions unavailable",
			StartedAt: ts("2020-09-08T08:19:00Z"), ResolvedAt: ts("2020-09-08T09:50:00Z"),
			Components: []string{"Compute Cloud", "Certificate Manager", "Cloud Functions"},
		}, "Yandex Cloud experienced a major incident on September 8, 2020 affecting Certificate Manager and Cloud Functions and 1 more component, lasting 1h 31m."},
		{"one component", "Acme", closed(nil),
			"Acme experienced a major incident on March 4, 2025 affecting API, lasting 1h 31m."},
		{"two components", "Acme", closed(func(i *model.Incident) { i.Components = []string{"Dashboard", "API"} }),
			"Acme experienced a major incident on March 4, 2025 affecting API and Dashboard, lasting 1h 31m."},
		{"four components", "Acme", closed(func(i *model.Incident) { i.Components = []string{"A", "B", "C", "D"} }),
			"Acme experienced a major incident on March 4, 2025 affecting A and B and 2 more components, lasting 1h 31m."},
		{"no components", "Acme", closed(func(i *model.Incident) { i.Components = nil }),
			"Acme experienced a major incident on March 4, 2025, lasting 1h 31m."},
		{"minor", "Acme", closed(func(i *model.Incident) { i.Impact = model.ImpactMinor }),
			"Acme experienced a minor incident on March 4, 2025 affecting API, lasting 1h 31m."},
		{"critical", "Acme", closed(func(i *model.Incident) { i.Impact = model.ImpactCritical }),
			"Acme experienced a critical incident on March 4, 2025 affecting API, lasting 1h 31m."},
		{"unknown impact", "Acme", closed(func(i *model.Incident) { i.Impact = model.ImpactUnknown }),
			"Acme experienced an incident on March 4, 2025 affecting API, lasting 1h 31m."},
		{"impact none", "Acme", closed(func(i *model.Incident) { i.Impact = model.ImpactNone }),
			"Acme experienced an incident on March 4, 2025 affecting API, lasting 1h 31m."},
		{"no impact", "Acme", closed(func(i *model.Incident) { i.Impact = "" }),
			"Acme experienced an incident on March 4, 2025 affecting API, lasting 1h 31m."},
		{"still open", "Acme", closed(func(i *model.Incident) { i.Status, i.ResolvedAt = model.StatusMonitoring, time.Time{} }),
			"Acme experienced a major incident on March 4, 2025 affecting API, ongoing for 2h 5m."},
		{"dates in UTC", "Acme", closed(func(i *model.Incident) {
			i.StartedAt = ts("2025-03-03T23:30:00-05:00")
			i.ResolvedAt = ts("2025-03-06T07:45:00Z")
		}), "Acme experienced a major incident on March 4, 2025 affecting API, lasting 2d 3h."},
		{"times from the updates", "Acme", closed(func(i *model.Incident) {
			i.StartedAt, i.ResolvedAt = time.Time{}, time.Time{}
			i.Updates = []model.Update{
				{ID: "b", PostedAt: ts("2025-03-04T14:52:00Z")},
				{ID: "a", PostedAt: ts("2025-03-04T14:07:00Z")},
				{ID: "c"},
			}
		}), "Acme experienced a major incident on March 4, 2025 affecting API, lasting 45m."},
		{"no times at all", "Acme", closed(func(i *model.Incident) { i.StartedAt, i.ResolvedAt = time.Time{}, time.Time{} }),
			"Acme experienced a major incident affecting API."},
		{"closed without an end", "Acme", closed(func(i *model.Incident) { i.ResolvedAt = time.Time{} }),
			"Acme experienced a major incident on March 4, 2025 affecting API."},
		{"maintenance window", "Acme", &model.Incident{
			Kind: model.KindMaintenance, Status: model.StatusScheduled, Impact: model.ImpactMaintenance,
			ScheduledFor: ts("2025-03-10T02:00:00Z"), ScheduledUntil: ts("2025-03-10T04:00:00Z"),
			Components: []string{"Database"},
		}, "Acme scheduled maintenance on March 10, 2025 affecting Database, lasting 2h."},
		{"maintenance without an end, not started", "Acme", &model.Incident{
			Kind: model.KindMaintenance, Status: model.StatusScheduled, ScheduledFor: ts("2025-03-10T02:00:00Z"),
		}, "Acme scheduled maintenance on March 10, 2025."},
		{"maintenance in progress without an end", "Acme", &model.Incident{
			Kind: model.KindMaintenance, Status: model.StatusInProgress, StartedAt: ts("2025-03-04T16:00:00Z"),
		}, "Acme scheduled maintenance on March 4, 2025, ongoing for 10m."},
		{"maintenance completed", "Acme", &model.Incident{
			Kind: model.KindMaintenance, Status: model.StatusCompleted,
			StartedAt: ts("2025-03-04T12:00:00Z"), ResolvedAt: ts("2025-03-04T12:40:00Z"),
		}, "Acme scheduled maintenance on March 4, 2025, lasting 40m."},
		{"no title", "", closed(nil), "The vendor experienced a major incident on March 4, 2025 affecting API, lasting 1h 31m."},
		{"nil incident", "Acme", nil, "Acme experienced an incident."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Description(tt.title, tt.inc, now); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "<1m"},
		{0, "<1m"},
		{59 * time.Second, "<1m"},
		{time.Minute, "1m"},
		{45 * time.Minute, "45m"},
		{time.Hour, "1h"},
		{91 * time.Minute, "1h 31m"},
		{91*time.Minute + 59*time.Second, "1h 31m"},
		{23*time.Hour + 59*time.Minute, "23h 59m"},
		{24 * time.Hour, "1d"},
		{51 * time.Hour, "2d 3h"},
		{48*time.Hour + 30*time.Minute, "2d"},
		{400 * 24 * time.Hour, "400d"},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			if got := FormatDuration(tt.d); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestUpdateCaptions: a change to an update says which update it is, its status and
// posted time, in every rendering; time fields read in the one human format.
func TestUpdateCaptions(t *testing.T) {
	s := func(v string) *string { return &v }
	after := &model.Incident{Updates: []model.Update{
		{ID: "d1u1", Status: model.StatusInvestigating, PostedAt: ts("2025-03-04T17:39:00Z"), Body: "Looking <now>."},
	}}
	before := &model.Incident{Updates: []model.Update{
		{ID: "d1u1", Status: model.StatusInvestigating, PostedAt: ts("2025-03-04T17:39:00Z"), Body: "Looking."},
		{ID: "d1u0", Status: "in_progress", PostedAt: ts("2025-03-04T17:30:00Z"), Body: "Gone."},
	}}
	changes := []model.Change{
		{Field: "updates[d1u1].body", Before: s("Looking."), After: s("Looking <now>.")},
		{Field: "updates[d1u0]", Before: s("Gone.")},
		{Field: "updates[zz]", After: s("Unknown to both.")},
		{Field: FieldStartedAt, Before: s("2025-03-04T17:00:00Z"), After: s("2025-03-04T16:55:30Z")},
	}
	tests := []struct {
		name string
		got  string
		want []string
	}{
		{"html", string(HTML(changes, after, before)), []string{
			`Update edited <span class="chg-note"><span class="sep" aria-hidden="true">· </span>Investigating · 2025-03-04 17:39 UTC</span> <code class="chg-key">updates[d1u1].body</code>`,
			`Update removed <span class="chg-note"><span class="sep" aria-hidden="true">· </span>In progress · 2025-03-04 17:30 UTC</span>`,
			`New update <code class="chg-key">updates[zz]</code>`,
			`2025-03-04 17:00 UTC</del>`, `2025-03-04 16:55 UTC</ins>`,
		}},
		{"terminal", Terminal(changes, Plain, after, before), []string{
			"updates[d1u1].body (Investigating · 2025-03-04 17:39 UTC):\n",
			"updates[d1u0] (In progress · 2025-03-04 17:30 UTC):\n",
			"updates[zz]:\n",
			"  Before: 2025-03-04 17:00 UTC\n  After: 2025-03-04 16:55 UTC\n",
		}},
		{"mrkdwn", Mrkdwn(changes, 0, "", after, before), []string{
			"*Update edited* · Investigating · 2025-03-04 17:39 UTC: ",
			"*Update removed* · In progress · 2025-03-04 17:30 UTC: ",
			"*New update*: ",
			"*Started*: ~2025-03-04 17:00 UTC~ → *2025-03-04 16:55 UTC*",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.want {
				if !strings.Contains(tt.got, w) {
					t.Errorf("got\n%s\nwant it to contain %q", tt.got, w)
				}
			}
		})
	}
}

func TestUpdateCaption(t *testing.T) {
	tests := []struct {
		u    model.Update
		want string
	}{
		{model.Update{Status: model.StatusInvestigating, PostedAt: ts("2025-03-04T17:39:00Z")}, "Investigating · 2025-03-04 17:39 UTC"},
		{model.Update{Status: "in_progress"}, "In progress"},
		{model.Update{PostedAt: ts("2025-03-04T17:39:00Z")}, "2025-03-04 17:39 UTC"},
		{model.Update{}, ""},
		{model.Update{Status: model.Status(strings.Repeat("x", 100))}, "X" + strings.Repeat("x", 38) + "…"},
	}
	for _, tt := range tests {
		if got := UpdateCaption(&tt.u); got != tt.want {
			t.Errorf("UpdateCaption(%+v): got %q, want %q", tt.u, got, tt.want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Time{}, ""},
		{ts("2025-03-04T17:39:59Z"), "2025-03-04 17:39 UTC"},
		{ts("2025-03-04T17:39:00+02:00"), "2025-03-04 15:39 UTC"},
	}
	for _, tt := range tests {
		if got := FormatTime(tt.in); got != tt.want {
			t.Errorf("FormatTime(%v): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
