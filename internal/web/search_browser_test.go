package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/statuswatch/statuswatch/internal/model"
)

// The search page in Chromium: a word the vendor removed is found and marked "removed in
// version N" with a link to that change, the page loads without a console error and does
// not scroll sideways on a phone. Screenshots go where TestBrowser's do (docs/screenshots
// with -update, else $WATCHER_SCREENSHOTS when set, else a temporary directory).
func TestBrowserSearch(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t).seed()
	// Synthetic notices in the style of a Korean status page: "payment service outage"
	// edited to "payment service delay".
	kr := func(body string) model.Incident {
		return model.Incident{ID: "kr-1", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
			Title: "결제 서비스 점검", StartedAt: t0.Add(30 * time.Minute), Components: []string{"결제"},
			Updates: []model.Update{{ID: "k-1", Status: model.StatusInvestigating, Body: body, Format: model.FormatText, PostedAt: t0.Add(30 * time.Minute)}}}
	}
	e.record("acme", t0.Add(31*time.Minute), []model.Incident{incA(3), incB, mnt1, kr("결제 서비스장애가 발생했습니다. Payment API errors.")})
	e.record("acme", t0.Add(40*time.Minute), []model.Incident{incA(3), incB, mnt1, kr("결제 서비스 지연이 발생했습니다. Payment API errors.")})
	console := watchConsole(t, ctx)
	text := func(t *testing.T, js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return s
	}
	dir := screenshotDir(t)
	for _, size := range viewports {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.width, size.height, size.opts...)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ name, q, removed, link string }{
			{"search-removed", "intermittent api", "removed in version 2", "/incidents/acme/inc-a/changes/2"},
			{"search-korean", "장애", "removed in version 2", "/incidents/acme/kr-1/changes/2"},
		} {
			path := "/search?q=" + p.q
			if err := chromedp.Do(ctx, chromedp.Navigate(e.http.URL+path), chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
				t.Fatalf("load %s: %v", path, err)
			}
			if got := text(t, `getComputedStyle(document.body).backgroundColor`); got != "rgb(246, 247, 249)" {
				t.Errorf("%s: body background %q: the stylesheet did not apply", path, got)
			}
			if got := text(t, `document.querySelector(".result .card-meta .badge").textContent`); got != p.removed {
				t.Errorf("%s: marked %q, want %q", path, got, p.removed)
			}
			if got := text(t, `document.querySelector(".result .card-meta a[href*='/changes/']").getAttribute("href")`); got != p.link {
				t.Errorf("%s: change link %q, want %q", path, got, p.link)
			}
			if got := text(t, `String(document.querySelectorAll(".result").length)`); got != "1" {
				t.Errorf("%s: %s results, want 1", path, got)
			}
			if size.name == "phone" {
				if got := text(t, `String(document.documentElement.scrollWidth)`); got != "390" {
					t.Errorf("%s on a phone: %s px wide, want 390 (no sideways scroll)", path, got)
				}
			}
			if p.name == "search-korean" {
				if got := text(t, `document.querySelector(".result .snippet").textContent`); !strings.Contains(got, "서비스장애가") {
					t.Errorf("%s: snippet %q, want version 1's text", path, got)
				}
			}
			time.Sleep(50 * time.Millisecond)
			for _, entry := range console.take() {
				t.Errorf("%s: console: %s", path, entry)
			}
			if p.name == "search-korean" {
				continue // no screenshot: the test machine's Chromium may have no Korean font
			}
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot %s: %v", path, err)
			}
			if err := os.WriteFile(filepath.Join(dir, p.name+"-"+size.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("screenshots in %s", dir)
}
