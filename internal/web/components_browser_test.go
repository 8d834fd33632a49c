package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/statuswatch/statuswatch/internal/model"
)

// The components of a source page and the dashboard's flag, in Chromium: they load
// without a console error, the strips are drawn at the page's width, a phone does not
// scroll sideways, and screenshots go where TestBrowser's do (docs/screenshots with
// -update, else $WATCHER_SCREENSHOTS when set, else a temporary directory).
func TestBrowserComponents(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t).seed()
	op, maint, deg, part, major := model.ComponentOperational, model.ComponentMaintenance, model.ComponentDegraded,
		model.ComponentPartialOutage, model.ComponentMajorOutage
	set := func(at time.Time, page, desc string, api, web, dns, cdn model.ComponentStatus) {
		e.recordComponents("delta", at, page, desc, comp("Core", "API", api), comp("Core", "Web", web),
			comp("Edge", "DNS", dns), comp("Edge", "CDN", cdn))
	}
	day := 24 * time.Hour
	set(now.Add(-60*day), "none", "All Systems Operational", op, op, op, op)
	set(now.Add(-41*day), "maintenance", "Service Under Maintenance", op, op, maint, op)
	set(now.Add(-40*day), "none", "All Systems Operational", op, op, op, op)
	set(now.Add(-20*day), "major", "Partial System Outage", op, part, op, major)
	set(now.Add(-19*day), "none", "All Systems Operational", op, op, op, op)
	set(now.Add(-3*day), "minor", "Minor Service Outage", deg, op, op, op)
	e.daemon.SourcesFn = func() []SourceStatus {
		return append(seedSources(), SourceStatus{Name: "delta", Title: "Delta", URL: "https://status.delta.test",
			Kind: "statuspage", LastPollAt: now.Add(-time.Minute), LastSuccessAt: now.Add(-time.Minute)})
	}
	console := watchConsole(t, ctx)
	d := driver{ctx, e.http.URL}
	load, text := d.load, d.text
	dir := screenshotDir(t)
	for _, size := range viewports {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.width, size.height, size.opts...)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ name, path string }{{"components-source", "/sources/delta"}, {"components-dashboard", "/"}} {
			load(t, p.path)
			d.styled(t, size, p.path)
			if p.path == "/sources/delta" {
				if got := text(t, `String(document.querySelectorAll("svg.strip").length)`); got != "4" {
					t.Errorf("strips: got %s, want 4", got)
				}
				// A strip spans the list's width, and its worst day is drawn full height.
				w := text(t, `String(Math.round(document.querySelector("svg.strip").getBoundingClientRect().width))`)
				lw := text(t, `String(Math.round(document.querySelector(".component").getBoundingClientRect().width))`)
				if w != lw || w == "0" {
					t.Errorf("strip width %s, component row %s: want the strip as wide as the row", w, lw)
				}
				if got := text(t, `getComputedStyle(document.querySelector(".strip .seg.b-critical")).fill`); got != "rgb(220, 38, 38)" {
					t.Errorf("major outage segment fill: got %q", got)
				}
			} else if got := text(t, `document.querySelector('a[href="/sources/delta"]').closest("tr").textContent`); !strings.Contains(got, "Degraded, no incident") {
				t.Errorf("dashboard: delta's row: %q", got)
			}
			d.shoot(t, console, size, p.path, dir, p.name)
		}
	}
	t.Logf("screenshots in %s", dir)
}
