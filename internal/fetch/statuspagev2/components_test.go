package statuspagev2

import (
	"errors"
	"slices"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// TestComponentWordsMap: every component state of the v2 API, and what an unknown word
// becomes (its word kept).
func TestComponentWordsMap(t *testing.T) {
	for raw, want := range map[string]model.ComponentStatus{
		"operational":          model.ComponentOperational,
		"under_maintenance":    model.ComponentMaintenance,
		"degraded_performance": model.ComponentDegraded,
		"partial_outage":       model.ComponentPartialOutage,
		"major_outage":         model.ComponentMajorOutage,
		"Major_Outage":         model.ComponentMajorOutage,
		"re-routed":            fetch.UnknownComponentStatus,
		"":                     fetch.UnknownComponentStatus,
	} {
		c := ComponentWords.Component("x", "X", "", raw)
		if c.Status != want || c.StatusRaw != raw {
			t.Errorf("%q: got %q (raw %q), want %q", raw, c.Status, c.StatusRaw, want)
		}
	}
}

// TestSummaryGroups: a group component is not listed; its members carry its name, a
// member of a group not in the list has none; the page status is the summary's.
func TestSummaryGroups(t *testing.T) {
	body := []byte(`{"page":{"id":"abcdefghijkl","name":" Acme "},
		"status":{"indicator":"minor","description":"Minor Service Outage"},
		"components":[
			{"id":"grp000000001","name":"Regions","status":"partial_outage","group":true,"group_id":null},
			{"id":"cmp000000002","name":"EU West","status":"partial_outage","group":false,"group_id":"grp000000001"},
			{"id":"cmp000000001","name":"US East","status":"operational","group":false,"group_id":"grp000000001"},
			{"id":"cmp000000003","name":"API","status":"degraded_performance","group":false,"group_id":null},
			{"id":"cmp000000004","name":"Orphan","status":"operational","group_id":"gone00000000"},
			{"id":7,"name":"Numbered","status":"under_maintenance"}
		]}`)
	s, err := DecodeSummary("application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	if s.Page != "Acme" {
		t.Errorf("page: got %q", s.Page)
	}
	cs := s.Components
	if cs.PageStatus != "minor" || cs.PageDescription != "Minor Service Outage" {
		t.Errorf("page status: got %q %q", cs.PageStatus, cs.PageDescription)
	}
	want := []model.Component{
		{ID: "cmp000000003", Name: "API", Status: model.ComponentDegraded, StatusRaw: "degraded_performance"},
		{ID: "7", Name: "Numbered", Status: model.ComponentMaintenance, StatusRaw: "under_maintenance"},
		{ID: "cmp000000004", Name: "Orphan", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "cmp000000002", Name: "EU West", Group: "Regions", Status: model.ComponentPartialOutage, StatusRaw: "partial_outage"},
		{ID: "cmp000000001", Name: "US East", Group: "Regions", Status: model.ComponentOperational, StatusRaw: "operational"},
	}
	if !slices.Equal(cs.List, want) {
		t.Errorf("got\n%+v\nwant\n%+v", cs.List, want)
	}
}

// TestSummaryWithoutComponents: incident.io leaves an empty list out; the page was read
// and has none (an empty set, not "not read").
func TestSummaryWithoutComponents(t *testing.T) {
	s, err := DecodeSummary("application/json", []byte(`{"page":{"name":"X"}}`))
	if err != nil || s.Components == nil || s.Components.List == nil || len(s.Components.List) != 0 || s.Components.PageStatus != "" {
		t.Fatalf("got %+v, %v; want an empty set", s, err)
	}
}

// TestSummaryOddComponents: components or a status of an odd type leave the page's name
// readable, with no components read; what is no summary stays malformed.
func TestSummaryOddComponents(t *testing.T) {
	for _, body := range []string{
		`{"page":{"name":"X"},"components":{"a":1}}`,
		`{"page":{"name":"X"},"components":[{"id":"a","name":"A","group":"false"}]}`,
		`{"page":{"name":"X"},"status":"ok","components":[]}`,
	} {
		s, err := DecodeSummary("application/json", []byte(body))
		if err != nil || s.Page != "X" || s.Components != nil {
			t.Errorf("%s: got %+v, %v; want the name, no components", body, s, err)
		}
	}
	for _, body := range []string{`{"components":{"a":1}}`, `{"page":"X","components":{}}`, `<html>`} {
		if _, err := DecodeSummary("application/json", []byte(body)); !errors.Is(err, payload.ErrMalformed) {
			t.Errorf("%s: got %v, want ErrMalformed", body, err)
		}
	}
}
