package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Time travel and vendor figures in Chromium: the "as of" form of the source page, a
// plain GET form, takes a time and shows the page then; /stats sorts by a click on a
// heading; neither page logs a console error or scrolls sideways on a phone, and
// screenshots go where TestBrowser's do (docs/screenshots with -update, else
// $WATCHER_SCREENSHOTS when set, else a temporary directory).
func TestBrowserTravelStats(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t).seed().seedComponents()
	e.daemon.SourcesFn = seedSources
	console := watchConsole(t, ctx)
	base := e.http.URL
	load := func(t *testing.T, path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
	}
	text := func(t *testing.T, js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return s
	}
	dir := t.TempDir()
	if *update {
		dir = filepath.Join("..", "..", "docs", "screenshots")
	} else if d := os.Getenv("WATCHER_SCREENSHOTS"); d != "" {
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shoot := func(t *testing.T, name string) {
		t.Helper()
		time.Sleep(50 * time.Millisecond)
		for _, entry := range console.take() {
			t.Errorf("%s: console: %s", name, entry)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The form: a time typed into the field, submitted, shows the page as of then.
	load(t, "/sources/acme")
	// A datetime-local field takes no typed keys the same way in every locale: its value
	// is set as a person's picking would set it.
	if got := text(t, `document.querySelector("#asof-at").value = "2026-07-01T12:20:00"`); got != "2026-07-01T12:20:00" {
		t.Fatalf("as-of field: %q", got)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form.asof button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(".asof-banner")),
	); err != nil {
		t.Fatalf("as-of form: %v", err)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); loc != base+"/sources/acme?at=2026-07-01T12%3A20" { // the browser drops :00 seconds
		t.Errorf("as-of form: went to %s", loc)
	}
	if got := text(t, `document.querySelector(".asof-banner").textContent`); !strings.Contains(got, "12:20:00 UTC") {
		t.Errorf("banner: %q", got)
	}
	if got := text(t, `document.querySelector("#incidents-h").closest("section").textContent`); !strings.Contains(got, "Elevated API errors") || strings.Contains(got, "resolved") && strings.Contains(got, "Resolved") {
		t.Errorf("incidents as of 12:20: %q", got)
	}

	// /stats: a click on "Incidents" sorts by it, highest first; another, lowest first.
	load(t, "/stats")
	rows := `Array.from(document.querySelectorAll("table.stats tbody th a")).map(a => a.textContent).join(",")`
	if got := text(t, rows); got != "Acme,Beta,Gamma" {
		t.Errorf("/stats rows: got %s", got)
	}
	for _, want := range []string{"Acme,Beta,Gamma", "Gamma,Beta,Acme"} {
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`table.stats thead th:nth-child(2) a`)),
			chromedp.WaitVisible(chromedp.CSS(`table.stats thead th[aria-sort]`)),
		); err != nil {
			t.Fatalf("sort: %v", err)
		}
		if got := text(t, rows); got != want {
			t.Errorf("sorted by incidents: got %s, want %s", got, want)
		}
	}

	for _, size := range []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"desktop", 1280, 900, nil},
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulatePortrait}},
	} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.width, size.height, size.opts...)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ name, path string }{
			{"stats", "/stats?sort=incidents&order=desc"},
			{"source-figures", "/sources/acme"},
			{"source-as-of", "/sources/acme?at=2026-07-01T12:20:00Z"},
		} {
			load(t, p.path)
			if got := text(t, `getComputedStyle(document.body).backgroundColor`); got != "rgb(246, 247, 249)" {
				t.Errorf("%s: body background %q: the stylesheet did not apply", p.path, got)
			}
			if size.name == "phone" {
				if got := text(t, `String(document.documentElement.scrollWidth)`); got != "390" {
					t.Errorf("%s on a phone: %s px wide, want 390 (no sideways scroll)", p.path, got)
				}
			}
			// The table's headings sort on a desktop; a phone, which hides them, has a form.
			if p.name == "stats" {
				want := map[string]string{"desktop": "none", "phone": "flex"}[size.name]
				if got := text(t, `getComputedStyle(document.querySelector(".stats-sort")).display`); got != want {
					t.Errorf("/stats on a %s: the sort form's display is %q, want %q", size.name, got, want)
				}
			}
			shoot(t, p.name+"-"+size.name)
		}
	}
	t.Logf("screenshots in %s", dir)
}
