package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The events pages and the Related panel, in Chromium: they load without a console
// error, the event's time-line draws one bar per incident across the page, a phone does
// not scroll sideways, and screenshots go where TestBrowser's do (docs/screenshots with
// -update, else $WATCHER_SCREENSHOTS when set, else a temporary directory).
func TestBrowserEvents(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t).seedCloud()
	console := watchConsole(t, ctx)
	d := driver{ctx, e.http.URL}
	load, text := d.load, d.text
	dir := screenshotDir(t)
	for _, size := range viewports {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.width, size.height, size.opts...)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ name, path string }{
			{"events", "/events"}, {"event", "/events/aws.ec2-use1"}, {"related", "/incidents/vercel/v1"},
		} {
			load(t, p.path)
			d.styled(t, size, p.path)
			switch p.name {
			case "event":
				if got := text(t, `String(document.querySelectorAll("svg.eventline rect.ev-bar").length)`); got != "3" {
					t.Errorf("time-line bars: got %s, want 3", got)
				}
				// The time-line spans its figure on a desktop (on a phone it keeps a
				// readable size and scrolls inside it), and a bar is drawn.
				w := text(t, `String(Math.round(document.querySelector("svg.eventline").getBoundingClientRect().width))`)
				fw := text(t, `(f => { const cs = getComputedStyle(f); return String(Math.round(f.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight))) })(document.querySelector("figure.eventline-fig"))`)
				if size.name == "desktop" && w != fw || w == "0" {
					t.Errorf("time-line width %s, its figure's content %s: want the time-line as wide as its figure", w, fw)
				}
				if got := text(t, `String(Math.round(document.querySelector("rect.ev-bar").getBoundingClientRect().width))`); got == "0" {
					t.Error("the first bar has no width")
				}
				if got := text(t, `document.querySelector(".relations").textContent`); !strings.Contains(got, "same term: us-east-1") {
					t.Errorf("why grouped: %q", got)
				}
			case "related":
				got := text(t, `document.querySelector("section.related").textContent`)
				for _, want := range []string{"Aws", "Netlify", "same term: us-east-1", "started 4m apart", "Event: Aws, Netlify and Vercel"} {
					if !strings.Contains(got, want) {
						t.Errorf("Related panel lacks %q: %q", want, got)
					}
				}
			case "events":
				if got := text(t, `document.querySelector("table.events tbody").textContent`); !strings.Contains(got, "Aws, Netlify and Vercel") {
					t.Errorf("events table: %q", got)
				}
			}
			d.shoot(t, console, size, p.path, dir, p.name)
		}
	}
	t.Logf("screenshots in %s", dir)
}
