package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// TestParkedBannerNamesReceivers checks that the banner counts the parked messages of
// every receiver, by name, when not all of them are Slack's.
func TestParkedBannerNamesReceivers(t *testing.T) {
	s, store := newSite(t)
	s.parked.ttl = 0
	store.SetRoute(func(*model.Notice) []string { return []string{"", "hooks"} })
	t0 := now.Add(-2 * time.Hour)
	snap := &model.Snapshot{Source: "acme", FetchedAt: t0, Listings: []model.Listing{{Kind: model.KindIncident}},
		Incidents: []model.Incident{
			{ID: "inc-a", Kind: model.KindIncident, Status: model.StatusInvestigating, Title: "API errors", StartedAt: t0},
			{ID: "inc-b", Kind: model.KindIncident, Status: model.StatusInvestigating, Title: "Database latency", StartedAt: t0},
		}}
	if _, err := store.Record("acme", snap, nil, nil, archive.Policy{}); err != nil {
		t.Fatal(err)
	}
	msgs, err := store.Messages(model.MessagePending)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("messages: %v %v", msgs, err)
	}
	for _, m := range msgs[1:] { // one Slack's, two of hooks
		if err := store.MarkAttempt(m.ID, "HTTP 400", true); err != nil {
			t.Fatal(err)
		}
	}
	body := bodyOf(t, serve(s.Dashboard, "/", nil))
	if want := "3 messages are parked:</strong> hooks (2), slack (1)."; !strings.Contains(body, want) {
		t.Errorf("no banner %q in:\n%s", want, body)
	}
}
