package web

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserNavigation: on a phone the breadcrumb is the way up (the parent alone, no
// separator left hanging), on a desktop the whole trail with separators between items
// only; no page but the overview marks Overview as current; app.js finds the refresh
// interval (its note shows) under the strict CSP. Screenshots go where TestBrowser puts
// them ($WATCHER_SCREENSHOTS), named nav-*.png.
func TestBrowserNavigation(t *testing.T) {
	ctx := browser(t)
	e := newShowcase(t)
	console := watchConsole(t, ctx)
	base := e.http.URL
	change := "/incidents/twingate/" + twingateAuth + "/changes/3"
	eval := func(t *testing.T, js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return s
	}
	load := func(t *testing.T, path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
	}
	// crumbs lists each visible crumb as its ::before, "|", its text and its ::after.
	const crumbs = `Array.from(document.querySelectorAll(".crumbs li")).filter(li => li.offsetParent !== null).map(li => {
		const b = getComputedStyle(li, "::before").content, a = getComputedStyle(li, "::after").content;
		return (b === "none" ? "" : JSON.parse(b)) + "|" + li.textContent + "|" + (a === "none" ? "" : JSON.parse(a));
	}).join(" ")`
	dir := os.Getenv("WATCHER_SCREENSHOTS")
	shoot := func(t *testing.T, name string) {
		if dir == "" {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "nav-"+name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sizes := []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
		want          string
	}{
		{"desktop", 1280, 900, nil, "|Overview| /|Twingate| /|Elevated authentication failures|"},
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulatePortrait}, "‹|Elevated authentication failures|"},
	}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.width, size.height, size.opts...)); err != nil {
				t.Fatal(err)
			}
			load(t, change)
			if got := eval(t, crumbs); got != size.want {
				t.Errorf("breadcrumb: got %q, want %q", got, size.want)
			}
			if got := eval(t, `String(document.querySelectorAll('.nav [aria-current="page"]').length)`); got != "0" {
				t.Errorf("change view: %s navigation items marked current, want 0", got)
			}
			shoot(t, "change-"+size.name)
			load(t, "/")
			if got := eval(t, `Array.from(document.querySelectorAll('.nav [aria-current="page"]')).map(a => a.textContent).join()`); got != "Overview" {
				t.Errorf("dashboard: navigation marked current: got %q, want Overview", got)
			}
			if got := eval(t, `String(document.querySelector(".refresh-note").hidden)`); got != "false" {
				t.Errorf("dashboard: refresh note hidden: got %s, want false (app.js did not read the interval)", got)
			}
			shoot(t, "dashboard-"+size.name)
			load(t, "/sources/twingate")
			shoot(t, "source-"+size.name)
			load(t, "/incidents/twingate/"+twingateAuth)
			shoot(t, "incident-"+size.name)
			for _, entry := range console.take() {
				t.Errorf("console: %s", entry)
			}
		})
	}
}
