package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/statuswatch/statuswatch/internal/model"
)

// The banner of parked messages, in Chromium, when a receiver other than Slack has
// some: it names each receiver's count, fits a phone, and is screenshot where
// TestBrowser's screenshots go.
func TestBrowserReceiversBanner(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	e.store.SetRoute(func(*model.Notice) []string { return []string{"", "hooks"} })
	e.seed()
	msgs, err := e.store.Messages(model.MessagePending)
	if err != nil {
		t.Fatal(err)
	}
	var hooks, slack int
	for _, m := range msgs {
		if (m.Receiver == "hooks" && hooks < 2) || (m.Receiver == "" && slack < 1) {
			if err := e.store.MarkAttempt(m.ID, "HTTP 400", true); err != nil {
				t.Fatal(err)
			}
			if m.Receiver == "" {
				slack++
			} else {
				hooks++
			}
		}
	}
	if hooks != 2 || slack != 1 {
		t.Fatalf("parked %d of hooks and %d of Slack, want 2 and 1", hooks, slack)
	}
	console := watchConsole(t, ctx)
	dir := t.TempDir()
	if *update {
		dir = filepath.Join("..", "..", "docs", "screenshots")
	} else if d := os.Getenv("WATCHER_SCREENSHOTS"); d != "" {
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"desktop", 1280, 900, nil},
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulatePortrait}},
	} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.width, size.height, size.opts...),
			chromedp.Navigate(e.http.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".banner"))); err != nil {
			t.Fatal(err)
		}
		banner, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".banner").innerText`))
		if err != nil {
			t.Fatal(err)
		}
		if want := "3 messages are parked: hooks (2), slack (1)."; !strings.Contains(banner, want) {
			t.Errorf("%s: banner %q, want %q", size.name, banner, want)
		}
		if size.name == "phone" {
			w, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(document.documentElement.scrollWidth)`))
			if err != nil || w != "390" {
				t.Errorf("phone: %s px wide (%v), want 390", w, err)
			}
		}
		for _, entry := range console.take() {
			t.Errorf("console: %s", entry)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "receivers-banner-"+size.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
}
