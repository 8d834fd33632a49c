package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The browser tests drive Debian's chromium, headless, through chromedp against the UI
// served by httptest from the showcase archive. They skip when no Chromium is installed,
// except with WATCHER_BROWSER_TESTS=required (CI installs chromium and sets it), when
// they fail instead.
//
// Screenshots of the dashboard, an incident and a change view, at desktop (1280) and phone
// (390) widths, go to docs/screenshots with -update (review them before committing),
// else to $WATCHER_SCREENSHOTS when set, else to a temporary directory.

// browser starts a headless Chromium for t and returns a context for one tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("WATCHER_BROWSER_TESTS") == "required" {
			t.Fatal("no chromium on PATH, and WATCHER_BROWSER_TESTS=required: apt-get install -y chromium")
		}
		t.Skip("no chromium on PATH (apt-get install -y chromium); WATCHER_BROWSER_TESTS=required makes this a failure")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium (%s): %v", path, err)
	}
	return ctx
}

// consoleLog collects what the page logs: errors such as a refused script or style (a
// Content-Security-Policy violation), a failed load, or an exception.
type consoleLog struct {
	mu      sync.Mutex
	entries []string
}

func (c *consoleLog) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, s)
}

// take returns the entries so far and forgets them.
func (c *consoleLog) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.entries
	c.entries = nil
	return out
}

func watchConsole(t *testing.T, ctx context.Context) *consoleLog {
	t.Helper()
	c := &consoleLog{}
	entries := chromedp.Events(ctx, cdplog.EntryAdded)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("Log.enable: %v", err)
	}
	go func() {
		for ev, err := range entries {
			if err != nil {
				return
			}
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				c.add(string(ev.Entry.Level) + ": " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	}()
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			c.add("exception: " + ev.ExceptionDetails.Text)
		}
	}()
	return c
}

func TestBrowser(t *testing.T) {
	ctx := browser(t)
	e := newShowcase(t)
	console := watchConsole(t, ctx)
	base := e.http.URL
	incident := "/incidents/twingate/" + twingateAuth

	d := driver{ctx, base}
	load, text := d.load, d.text
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}

	t.Run("every page loads without a console error", func(t *testing.T) {
		pages := []struct{ path, h1 string }{
			{"/", "Overview"},
			{"/sources/twingate", "Twingate"},
			{"/sources/openai", "OpenAI"},
			{incident, "Elevated authentication failures"},
			{incident + "/changes/3", "Elevated authentication failures"},
			{incident + "/diff?from=1&to=3", "Elevated authentication failures"},
			{"/incidents/twingate/tg-h2", "Connector disconnections in eu-west-1"},
			{"/search?q=load+balancer", "Search"},
			{"/incidents/twingate/nope", "Not found"},
		}
		for _, p := range pages {
			load(t, p.path)
			if got := text(t, `document.querySelector("main h1").textContent`); got != p.h1 {
				t.Errorf("%s: h1: got %q, want %q", p.path, got, p.h1)
			}
			// The stylesheet applied: the CSP let it through.
			if got := text(t, `getComputedStyle(document.body).backgroundColor`); got != "rgb(246, 247, 249)" {
				t.Errorf("%s: body background %q: the stylesheet did not apply", p.path, got)
			}
			time.Sleep(50 * time.Millisecond) // let late log entries arrive
			for _, entry := range console.take() {
				if p.path == "/incidents/twingate/nope" && strings.Contains(entry, "404") {
					continue
				}
				t.Errorf("%s: console: %s", p.path, entry)
			}
		}
	})

	t.Run("the change view shows the silent edit", func(t *testing.T) {
		load(t, incident+"/changes/3")
		del := text(t, `Array.from(document.querySelectorAll(".chg del")).map(e => e.textContent).join("|")`)
		ins := text(t, `Array.from(document.querySelectorAll(".chg ins")).map(e => e.textContent).join("|")`)
		// The word diff is go-diff's, cleaned up semantically: it may take a little
		// context into a run, so the check is on what each side must hold.
		for _, want := range []string{"removed: ", "some", "not affected"} {
			if !strings.Contains(del, want) {
				t.Errorf("<del>: got %q, want it to contain %q", del, want)
			}
		}
		for _, want := range []string{"added: ", "in North America", "may fail to reconnect"} {
			if !strings.Contains(ins, want) {
				t.Errorf("<ins>: got %q, want it to contain %q", ins, want)
			}
		}
		for _, unwanted := range []string{"We are investigating", "elevated authentication failures"} {
			if strings.Contains(del+ins, unwanted) {
				t.Errorf("<del>/<ins>: %q is unchanged, want it in the context: %q / %q", unwanted, del, ins)
			}
		}
		// Each side reads as the whole text, once the hidden cues are left out.
		sides := map[string]string{".ba-before": silentEditFirst, ".ba-after": silentEditAfter}
		for side, want := range sides {
			got := text(t, `(() => { const dd = document.querySelector(".chg `+side+` dd").cloneNode(true);
				dd.querySelectorAll(".vh").forEach(e => e.remove()); return dd.textContent; })()`)
			if got != want {
				t.Errorf("%s: got %q, want %q", side, got, want)
			}
		}
		if got := text(t, `getComputedStyle(document.querySelector(".chg del")).textDecorationLine`); got != "line-through" {
			t.Errorf("<del> decoration: got %q, want line-through", got)
		}
		if got := text(t, `getComputedStyle(document.querySelector(".chg ins")).textDecorationLine`); got != "underline" {
			t.Errorf("<ins> decoration: got %q, want underline", got)
		}
		// The cue for screen readers takes no room on screen.
		if got := text(t, `String(document.querySelector(".chg del .vh").getBoundingClientRect().width)`); got != "1" && got != "0" {
			t.Errorf("hidden cue width: got %s", got)
		}
	})

	t.Run("click from the dashboard to an incident and a change", func(t *testing.T) {
		load(t, "/")
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`.cards a[href="`+incident+`"]`)),
			chromedp.WaitVisible(chromedp.CSS("#history-h")),
		); err != nil {
			t.Fatal(err)
		}
		if loc, _ := chromedp.Run(ctx, chromedp.Location()); loc != base+incident {
			t.Fatalf("after the click: at %s, want %s", loc, base+incident)
		}
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`a.history-link[href="`+incident+`/changes/3"]`)),
			chromedp.WaitVisible(chromedp.CSS(".changes")),
		); err != nil {
			t.Fatal(err)
		}
		if got := text(t, `document.querySelector(".eyebrow").textContent`); got != "Change 3 of 3" {
			t.Errorf("eyebrow: got %q", got)
		}
		// Previous change, by the arrow key the small script binds.
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowLeft), chromedp.WaitVisible(chromedp.CSS(".changes"))); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for text(t, `document.querySelector(".eyebrow").textContent`) != "Change 2 of 3" {
			if time.Now().After(deadline) {
				t.Fatalf("the left arrow did not go to change 2")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("screenshots", func(t *testing.T) {
		dir := screenshotDir(t)
		shots := []struct{ name, path string }{
			{"dashboard", "/"},
			{"source", "/sources/twingate"},
			{"incident", incident},
			{"change", incident + "/changes/3"},
		}
		for _, size := range viewports {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.width, size.height, size.opts...)); err != nil {
				t.Fatal(err)
			}
			for _, s := range shots {
				load(t, s.path)
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatalf("screenshot %s: %v", s.path, err)
				}
				if len(png) < 8 || string(png[1:4]) != "PNG" {
					t.Fatalf("screenshot %s: not a PNG", s.path)
				}
				name := filepath.Join(dir, s.name+"-"+size.name+".png")
				if err := os.WriteFile(name, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A phone shows the page without scrolling sideways.
			if size.name == "phone" {
				for _, s := range shots {
					load(t, s.path)
					if got := text(t, `String(document.documentElement.scrollWidth)`); got != "390" {
						t.Errorf("%s on a phone: %s px wide, want 390 (no sideways scroll)", s.path, got)
					}
				}
			}
		}
		t.Logf("screenshots in %s", dir)
	})
}
