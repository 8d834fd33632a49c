package demo

import (
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// update writes the demo's screenshots to docs/screenshots (review them before committing).
var update = flag.Bool("update", false, "write the demo's screenshots to docs/screenshots")

// future is how the UI dates a time still to come: "(in 16m)".
var future = regexp.MustCompile(`\(in [0-9]`)

// TestBrowserFollowsTheDemo drives `watcher demo` in headless Chromium from its first step
// to the postmortem: at each step the overview and the incident page show what the vendor's
// page says, and the silent edit shows as <del>/<ins> in the change view.
func TestBrowserFollowsTheDemo(t *testing.T) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("WATCHER_BROWSER_TESTS") == "required" {
			t.Fatal("no chromium on PATH, and WATCHER_BROWSER_TESTS=required")
		}
		t.Skip("no chromium on PATH (apt-get install -y chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	bctx, cancelT := context.WithTimeout(bctx, 3*time.Minute)
	defer cancelT()

	text := func(url, sel string) string {
		t.Helper()
		if err := chromedp.Do(bctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
			t.Fatalf("load %s: %v", url, err)
		}
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector("`+sel+`").innerText`))
		if err != nil {
			t.Fatalf("read %s: %v", url, err)
		}
		return s
	}
	// What each step must show: on the overview, then on the incident page.
	want := []struct{ overview, incident string }{
		{"Delayed admin console emails", ""},
		{"Elevated authentication failures", "investigating elevated authentication failures for some users"},
		{"Connector Heartbeat", "misconfigured load balancer"},
		{"Elevated authentication failures", "users in North America"},
		{"Monitoring", "A fix has been deployed"},
		{"Elevated authentication failures", "This incident has been resolved."},
		{"Elevated authentication failures", "Root cause"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var base string
	urls := make(chan string, 1)
	done := make(chan struct{})
	ended := make(chan error, 1)
	go func() {
		ended <- Run(ctx, Options{
			Listen: "127.0.0.1:0", Speed: 50, Stdout: io.Discard, Stderr: io.Discard,
			Ready: func(u string) { urls <- u },
			Step: func(i int, _ Step) {
				if base == "" {
					base = <-urls
				}
				w := want[i]
				if got := text(base+"/", "main"); !strings.Contains(got, w.overview) {
					t.Errorf("step %d: overview lacks %q:\n%s", i+1, w.overview, got)
				}
				if w.incident == "" {
					return
				}
				got := text(base+"/incidents/acme/demo01", "main")
				if !strings.Contains(got, w.incident) {
					t.Errorf("step %d: incident page lacks %q:\n%s", i+1, w.incident, got)
				}
				// The replay clock has every update in the past: nothing reads "(in 16m)".
				if m := future.FindString(got); m != "" {
					t.Errorf("step %d: incident page dates something in the future, %q:\n%s", i+1, m, got)
				}
			},
			Done: func() { close(done) },
		})
	}()
	select {
	case <-done:
	case err := <-ended:
		t.Fatalf("demo ended early: %v", err)
	}

	// From the overview, click through to the incident and on to the silent edit.
	err := chromedp.Do(bctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS(`a[href$="/incidents/acme/demo01"]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href$="/incidents/acme/demo01/changes/3"]`)),
		chromedp.Click(chromedp.CSS(`a[href$="/incidents/acme/demo01/changes/3"]`)),
		chromedp.WaitVisible(chromedp.CSS(`del`)),
	)
	if err != nil {
		t.Fatalf("click to the change view: %v", err)
	}
	del, err := chromedp.Run(bctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("del")).map(e => e.textContent).join("|")`))
	if err != nil {
		t.Fatal(err)
	}
	ins, err := chromedp.Run(bctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("ins")).map(e => e.textContent).join("|")`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(del, "some") || !strings.Contains(del, "not affected") {
		t.Errorf("change 3 <del>: %q, want the removed words of the silent edit", del)
	}
	if !strings.Contains(ins, "North America") || !strings.Contains(ins, "fail to reconnect") {
		t.Errorf("change 3 <ins>: %q, want the added words of the silent edit", ins)
	}
	screenshots(t, bctx, base)
	cancel()
	<-ended
}

// screenshots records the demo's pages once the replay is over, as a newcomer sees them:
// in a temporary folder (or $WATCHER_SCREENSHOTS), in docs/screenshots with -update.
func screenshots(t *testing.T, bctx context.Context, base string) {
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
	for _, s := range []struct{ name, path string }{
		{"demo-dashboard", "/"},
		{"demo-incident", "/incidents/acme/demo01"},
		{"demo-change", "/incidents/acme/demo01/changes/3"},
	} {
		err := chromedp.Do(bctx,
			chromedp.EmulateViewport(1280, 900),
			chromedp.Navigate(base+s.path),
			chromedp.WaitVisible(chromedp.CSS("main")),
		)
		if err != nil {
			t.Fatalf("load %s: %v", s.path, err)
		}
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", s.path, err)
		}
		if len(png) < 8 || string(png[1:4]) != "PNG" {
			t.Fatalf("screenshot %s: not a PNG", s.path)
		}
		if err := os.WriteFile(filepath.Join(dir, s.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("demo screenshots in %s", dir)
}
