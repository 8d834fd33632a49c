package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// driver drives the browser of ctx over the server at base.
type driver struct {
	ctx  context.Context
	base string
}

// load navigates to path and waits for its main heading.
func (d driver) load(t *testing.T, path string) {
	t.Helper()
	if err := chromedp.Do(d.ctx, chromedp.Navigate(d.base+path), chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
}

// text evaluates js, which gives a string, on the page shown.
func (d driver) text(t *testing.T, js string) string {
	t.Helper()
	s, err := chromedp.Run(d.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return s
}

// screenshotDir is where screenshots go: docs/screenshots with -update, else
// $WATCHER_SCREENSHOTS when set, else a temporary directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if *update {
		dir = filepath.Join("..", "..", "docs", "screenshots")
	} else if d := os.Getenv("WATCHER_SCREENSHOTS"); d != "" {
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// viewport is a screen size the pages are looked at in.
type viewport struct {
	name          string
	width, height int64
	opts          []chromedp.EmulateViewportOption
}

// viewports are a desktop's and a phone's.
var viewports = []viewport{
	{"desktop", 1280, 900, nil},
	{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulatePortrait}},
}

// styled checks that the page shown has the stylesheet applied (the CSP let it through)
// and, on a phone, does not scroll sideways.
func (d driver) styled(t *testing.T, v viewport, path string) {
	t.Helper()
	if got := d.text(t, `getComputedStyle(document.body).backgroundColor`); got != "rgb(246, 247, 249)" {
		t.Errorf("%s: body background %q: the stylesheet did not apply", path, got)
	}
	if v.name == "phone" {
		if got := d.text(t, `String(document.documentElement.scrollWidth)`); got != "390" {
			t.Errorf("%s on a phone: %s px wide, want 390 (no sideways scroll)", path, got)
		}
	}
}

// shoot fails on any console entry of the page shown, then writes its screenshot to
// dir/<name>-<viewport>.png.
func (d driver) shoot(t *testing.T, console *consoleLog, v viewport, path, dir, name string) {
	t.Helper()
	time.Sleep(50 * time.Millisecond) // let late log entries arrive
	for _, entry := range console.take() {
		t.Errorf("%s: console: %s", path, entry)
	}
	png, err := chromedp.Run(d.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+"-"+v.name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
