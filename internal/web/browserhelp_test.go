package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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
