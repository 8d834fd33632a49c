package codec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// oldFixtures are the versions whose stored forms of before are kept in testdata: a
// version 1 of every incident field, a later version with a change set of every kind
// (not present before, removed after, word ops), and a maintenance with a time in
// another offset than UTC.
func oldFixtures() map[string]model.Version {
	str := func(s string) *string { return &s }
	paris := time.FixedZone("", 2*3600)
	full := model.Incident{ID: "inc-1", Kind: model.KindIncident, Status: model.StatusMonitoring, StatusRaw: "monitoring",
		Impact: model.ImpactMajor, ImpactRaw: "major", Title: "API <down> & \"slow\" — é",
		StartedAt: t0, ResolvedAt: t0.Add(2 * time.Hour), ScheduledFor: t0.Add(-time.Hour), ScheduledUntil: t0.Add(time.Hour + 123456789),
		Components: []string{"API", "Dashboard"},
		Updates: []model.Update{
			{ID: "u1", Status: model.StatusInvestigating, Body: "Looking.\n\nMore soon.", Format: model.FormatText, PostedAt: t0},
			{ID: "u2", Status: model.StatusMonitoring, Body: "A fix is out.", Format: model.FormatHTML, PostedAt: t0.Add(time.Minute), HTML: "<p>A fix is <b>out</b>.</p>"},
		},
		Postmortem:       &model.Postmortem{Body: "Root cause: a cable.", Format: model.FormatMarkdown, PublishedAt: t0.Add(48 * time.Hour), HTML: "<p>Root cause</p>"},
		URL:              "https://status.example.com/incidents/inc-1",
		ResolvedInferred: true,
	}
	later := full
	later.Status = model.StatusResolved
	later.Postmortem = nil
	later.Updates = append(later.Updates[:2:2], model.Update{ID: "u3", Status: model.StatusResolved, Body: "Fixed.", Format: model.FormatText, PostedAt: t0.Add(time.Hour)})
	return map[string]model.Version{
		"v1-full": {N: 1, ObservedAt: t0.Add(time.Second), Incident: full, Snapshot: "snap-1"},
		"v2-changes": {N: 2, ObservedAt: t0.Add(time.Hour + 5), Incident: later, Summary: "Resolved; postmortem removed; a new update.", Snapshot: "snap-2",
			Changes: []model.Change{
				{Field: "status", Before: str("monitoring"), After: str("resolved"), Ops: []model.Op{{Op: model.OpDelete, Text: "monitoring"}, {Op: model.OpInsert, Text: "resolved"}}},
				{Field: "postmortem.body", Before: str("Root cause: a cable."), After: nil},
				{Field: "updates[u3].body", Before: nil, After: str("Fixed.")},
				{Field: "title", Before: str("a b"), After: str("a c"), Ops: []model.Op{{Op: model.OpEqual, Text: "a "}, {Op: model.OpDelete, Text: "b"}, {Op: model.OpInsert, Text: "c"}}},
			}},
		"v3-maintenance": {N: 3, ObservedAt: t0.In(paris), Incident: model.Incident{ID: "m", Kind: model.KindMaintenance, Status: model.StatusScheduled,
			Impact: model.ImpactMaintenance, Title: "Window", ScheduledFor: t0.Add(24 * time.Hour).In(paris), Components: []string{}, Updates: []model.Update{}},
			Changes: []model.Change{}, Summary: "s"},
	}
}

// TestOldFormsRead: the stored forms written before the binary record (testdata, by
// the codec of commit f504617: the S2 record with JSON inside, and the bare JSON of
// the archives before it) still decode to the versions they were written from, and
// their headers to what a list of versions shows.
func TestOldFormsRead(t *testing.T) {
	for name, want := range oldFixtures() {
		if want.N == 1 { // derived when read (EncodeVersion)
			want.Changes, want.Summary = derivedChanges(&want)
		}
		for _, form := range []string{"record", "json"} {
			data, err := os.ReadFile(filepath.Join("testdata", name+"."+form))
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeVersion(data)
			if err != nil {
				t.Fatalf("%s.%s: %v", name, form, err)
			}
			if !sameVersion(got, &want) {
				t.Errorf("%s.%s: decoded\n%+v\nwant\n%+v", name, form, *got, want)
			}
			h, derive, err := DecodeHeader(data)
			if err != nil {
				t.Fatalf("%s.%s header: %v", name, form, err)
			}
			wh := headerOf(&want)
			if !h.ObservedAt.Equal(wh.ObservedAt) || h.N != wh.N || h.Summary != wh.Summary || h.Snapshot != wh.Snapshot ||
				!reflect.DeepEqual(h.Fields, wh.Fields) || derive != (want.N == 1) {
				t.Errorf("%s.%s: header %+v (derive %v), want %+v", name, form, h, derive, wh)
			}
		}
	}
}

// derivedChanges is version 1's change set and summary as DecodeVersion derives them.
func derivedChanges(v *model.Version) ([]model.Change, string) {
	c := diff.Changes(nil, &v.Incident)
	return c, diff.Summary(c)
}

// sameVersion reports whether a and b are the same version, times compared as instants
// in the same offset.
func sameVersion(a, b *model.Version) bool {
	return reflect.DeepEqual(a, b)
}
