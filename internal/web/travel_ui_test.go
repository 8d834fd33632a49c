package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestSourcePageAsOf renders acme's page as it stood at 12:20: inc-a as its second
// version (identified), the components then, the banner and the form holding the time,
// incident links that keep the time, and no vendor figures; the live page has them.
func TestSourcePageAsOf(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	page := string(e.get("/sources/acme?at=2026-07-01T12:20", http.StatusOK).body)
	for _, want := range []string{
		`value="2026-07-01T12:20:00"`,
		`As of Wednesday, July 1, 2026 at 12:20:00 UTC`,
		`href="/incidents/acme/inc-a?at=2026-07-01T12%3A20%3A00Z"`,
		`Elevated API errors`, // inc-a's title then
		`href="/sources/acme">Back to now`,
		`/api/v1/sources/acme?at=2026-07-01T12%3A20%3A00Z`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("as of 12:20: no %q", want)
		}
	}
	for _, unwanted := range []string{"Vendor figures", "statuswatch-refresh", "This incident has been resolved"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("as of 12:20: %q shown", unwanted)
		}
	}
	// At 12:05 inc-b was not yet on the page.
	if page := string(e.get("/sources/acme?at=2026-07-01T12:05:00Z", http.StatusOK).body); strings.Contains(page, "Database latency") {
		t.Error("as of 12:05: inc-b listed")
	}
	live := string(e.get("/sources/acme", http.StatusOK).body)
	for _, want := range []string{"Vendor figures", `name="at" type="datetime-local"`, `href="/stats"`, "25m"} {
		if !strings.Contains(live, want) {
			t.Errorf("live page: no %q", want)
		}
	}
	e.get("/sources/acme?at=noon", http.StatusBadRequest)
}

// TestIncidentPageAsOf shows inc-a as each version in force: before it was archived a
// 404, between versions the earlier one, after the last the latest.
func TestIncidentPageAsOf(t *testing.T) {
	e := newEnv(t).seed()
	e.get("/incidents/acme/inc-a?at=2026-07-01T11:00:00Z", http.StatusNotFound)
	page := string(e.get("/incidents/acme/inc-a?at=2026-07-01T12:05:00Z", http.StatusOK).body)
	for _, want := range []string{"Intermittent API errors", "Showing version 1 of 3", `href="/incidents/acme/inc-a">See it as it is now`} {
		if !strings.Contains(page, want) {
			t.Errorf("as of 12:05: no %q", want)
		}
	}
	if strings.Contains(page, "This incident has been resolved") || strings.Contains(page, "Elevated API errors") {
		t.Error("as of 12:05: a later version shown")
	}
	page = string(e.get("/incidents/acme/inc-a?at=2026-07-01T12:15:00Z", http.StatusOK).body)
	if !strings.Contains(page, "Elevated API errors") || !strings.Contains(page, "Showing version 2 of 3") {
		t.Error("as of 12:15: version 2 not shown")
	}
	page = string(e.get("/incidents/acme/inc-a?at=2026-07-02T00:00:00Z", http.StatusOK).body)
	if !strings.Contains(page, "This incident has been resolved") || strings.Contains(page, "Showing version") {
		t.Error("after the last version: the latest not shown as now")
	}
	e.get("/incidents/acme/inc-a?at=x", http.StatusBadRequest)
}

// TestStatsPage renders /stats sorted by links: by a column descending, then ascending,
// nulls last either way, and refuses a column it does not have.
func TestStatsPage(t *testing.T) {
	e := newEnv(t).seed().seedComponents()
	rowsOf := func(page string) []string {
		var out []string
		for _, part := range strings.Split(page, `<tr><th scope="row"><a href="/sources/`)[1:] {
			out = append(out, part[:strings.IndexByte(part, '"')])
		}
		return out
	}
	page := string(e.get("/stats", http.StatusOK).body)
	if got := rowsOf(page); strings.Join(got, ",") != "acme,beta" {
		t.Errorf("rows: got %v", got)
	}
	if !strings.Contains(page, `href="/stats?days=90&amp;order=desc&amp;sort=incidents"`) {
		t.Error("no link sorting by incidents, descending")
	}
	// beta has no component set: its outage is null, last whichever the order.
	for _, order := range []string{"desc", "asc"} {
		page := string(e.get("/stats?sort=component_outage_s&order="+order, http.StatusOK).body)
		if got := rowsOf(page); strings.Join(got, ",") != "acme,beta" {
			t.Errorf("by component outage %s: got %v", order, got)
		}
	}
	// Incidents: acme 2, beta 1.
	page = string(e.get("/stats?sort=incidents&order=asc", http.StatusOK).body)
	if got := rowsOf(page); strings.Join(got, ",") != "beta,acme" {
		t.Errorf("by incidents ascending: got %v", got)
	}
	if !strings.Contains(page, `aria-sort="ascending"`) || !strings.Contains(page, `href="/stats?days=90&amp;order=desc&amp;sort=incidents"`) {
		t.Error("the sorted column does not offer the other order")
	}
	page = string(e.get("/stats?sort=source&order=desc&days=30", http.StatusOK).body)
	if got := rowsOf(page); strings.Join(got, ",") != "beta,acme" {
		t.Errorf("by source descending: got %v", got)
	}
	for _, bad := range []string{"sort=nope", "order=up", "days=0"} {
		e.get("/stats?"+bad, http.StatusBadRequest)
	}
}
