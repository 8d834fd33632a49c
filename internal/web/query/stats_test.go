package query

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

var s0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func mins(n int) time.Time { return s0.Add(time.Duration(n) * time.Minute) }

// TestFigures computes the figures of hand-made facts with known answers: medians of an
// odd and an even count, the nearest-rank p90, each edit counted, and null for every
// figure without data.
func TestFigures(t *testing.T) {
	f := archive.SourceFacts{Source: "acme", HasComponents: true, ComponentOutage: 90 * time.Second,
		Incidents: []archive.IncidentFacts{
			// Resolved after 10, 20, 30, …, 100 minutes: median 55m, p90 90m.
			{ID: "1", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(10), FirstSeen: mins(1), FirstUpdateAt: mins(0),
				Postmortem: true, PostmortemAt: mins(70), UpdatesEdited: 2, TitleChanged: true},
			{ID: "2", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(20), FirstSeen: mins(3), FirstUpdateAt: mins(4),
				UpdatesRemoved: 1, Backdated: true},
			{ID: "3", Impact: model.ImpactMajor, StartedAt: mins(0), ResolvedAt: mins(30), FirstSeen: mins(5), FirstUpdateAt: mins(8),
				ImpactLoweredAfterResolution: true, Removed: true},
			{ID: "4", Impact: model.ImpactCritical, StartedAt: mins(0), ResolvedAt: mins(40), FirstSeen: mins(0), OnFirstPoll: true},
			{ID: "5", Impact: model.ImpactUnknown, StartedAt: mins(0), ResolvedAt: mins(50), FirstSeen: mins(0), OnFirstPoll: true},
			{ID: "6", Impact: model.ImpactNone, StartedAt: mins(0), ResolvedAt: mins(60), FirstSeen: mins(0), OnFirstPoll: true},
			{ID: "7", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(70), FirstSeen: mins(0), OnFirstPoll: true},
			{ID: "8", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(80), FirstSeen: mins(0), OnFirstPoll: true},
			{ID: "9", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(90), FirstSeen: mins(0), OnFirstPoll: true},
			{ID: "10", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(100), FirstSeen: mins(0), OnFirstPoll: true,
				Postmortem: true, PostmortemAt: mins(110)},
			// Open: no resolve time; a postmortem without a time counts but has no delay.
			{ID: "11", Impact: model.ImpactMajor, Open: true, StartedAt: mins(0), FirstSeen: mins(0), OnFirstPoll: true,
				Postmortem: true},
			// A start after the first observation counts as no lag, not a negative one.
			{ID: "12", Impact: model.ImpactMajor, Open: true, StartedAt: mins(9), FirstSeen: mins(7)},
		}}
	got := Figures(&f, 30)
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"source":"acme","days":30,"incidents":12,` +
		`"by_impact":{"none":1,"minor":6,"major":3,"critical":1,"unknown":1},"open":2,` +
		`"median_resolve_s":3300,"p90_resolve_s":5400,` +
		`"median_posting_lag_s":120,` + // 1m, 3m, 5m, 0 → 0, 1m, 3m, 5m: median 2m
		`"median_first_update_s":240,` + // 0, 4m, 8m
		`"postmortems":3,"postmortem_rate":0.25,"median_postmortem_delay_s":2100,` + // 70m−10m, 110m−100m: median 35m
		`"edits":{"updates_edited":2,"updates_removed":1,"titles_changed":1,"backdated":1,"impact_lowered_after_resolution":1,"incidents_removed":1},` +
		`"incidents_with_silent_edits":2,"component_outage_s":90}`
	if string(raw) != want {
		t.Errorf("figures:\n got %s\nwant %s", raw, want)
	}

	// No incident, no component set: every median and the rate are null.
	none := Figures(&archive.SourceFacts{Source: "quiet"}, 90)
	raw, _ = json.Marshal(none)
	want = `{"source":"quiet","days":90,"incidents":0,"by_impact":{"none":0,"minor":0,"major":0,"critical":0,"unknown":0},"open":0,` +
		`"median_resolve_s":null,"p90_resolve_s":null,"median_posting_lag_s":null,"median_first_update_s":null,` +
		`"postmortems":0,"postmortem_rate":null,"median_postmortem_delay_s":null,` +
		`"edits":{"updates_edited":0,"updates_removed":0,"titles_changed":0,"backdated":0,"impact_lowered_after_resolution":0,"incidents_removed":0},` +
		`"incidents_with_silent_edits":0,"component_outage_s":null}`
	if string(raw) != want {
		t.Errorf("figures of nothing:\n got %s\nwant %s", raw, want)
	}
}

// TestPercentile checks the nearest rank at the edges: one value, and a p90 of ten.
func TestPercentile(t *testing.T) {
	tests := []struct {
		ds   []time.Duration
		want time.Duration
	}{
		{[]time.Duration{7}, 7},
		{[]time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 9},
		{[]time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 10},
		{[]time.Duration{5, 1}, 5},
	}
	for _, tt := range tests {
		if got := *percentile(tt.ds, 90); got != tt.want {
			t.Errorf("p90 of %v: got %v, want %v", tt.ds, got, tt.want)
		}
	}
	if percentile(nil, 90) != nil || median(nil) != nil {
		t.Error("percentile and median of nothing: want nil")
	}
}
