package web

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/atom"
)

// Vendor text is data (docs/design.md §7). These tests put script, event handlers, javascript:
// links, images and styles in every vendor field, and check that no page and no feed
// entry lets one through alive.

const (
	hostileText = `<script>alert("t")</script><img src=x onerror=alert("i")><a href="javascript:alert('a')">x</a>` +
		`<style>body{display:none}</style><iframe src="https://evil.example/"></iframe>" onmouseover="alert('q')`
	hostileHTML = `<p onclick="alert('p')">Hello <b>bold</b><script>alert('s')</script>` +
		`<img src="https://evil.example/x.png" onerror="alert('i')"><a href="javascript:alert('j')">j</a>` +
		`<a href="https://ok.example/docs" style="color:red">docs</a><iframe src="https://evil.example/"></iframe>` +
		`<svg onload="alert('v')"><circle r="3"/></svg><form action="https://evil.example/"><input name=x></form></p>`
	hostileMarkdown = "## Root cause <script>alert('m')</script>\n\n[click](javascript:alert('l')) " +
		"<img src=x onerror=alert('r')> ![pixel](https://evil.example/p.png) <a href=\"javascript:alert('h')\">h</a>\n\n" +
		"<iframe src=\"https://evil.example/\"></iframe>\n\n| a | b |\n|---|---|\n| <script>x</script> | ok |\n"
)

// seedHostile archives an incident with hostile text in every field, in two versions so
// that the change view and the feed show it as a diff, and returns its URL id.
func (e *env) seedHostile() string {
	e.tb.Helper()
	inc := model.Incident{
		ID: `"><script>alert("id")</script>`, Kind: model.KindIncident, Status: model.Status(hostileText),
		StatusRaw: hostileText, Impact: model.Impact(hostileText), Title: hostileText,
		StartedAt: t0, Components: []string{hostileText, "API"},
		URL: "javascript:alert('vendor-url')",
		Updates: []model.Update{
			{ID: hostileText, Status: model.Status(hostileText), Body: hostileText, Format: model.FormatText, PostedAt: t0},
			{ID: "html", Status: model.StatusInvestigating, Body: "Hello bold j docs", Format: model.FormatHTML, HTML: hostileHTML, PostedAt: t0.Add(time.Minute)},
		},
	}
	e.record("evil", t0, []model.Incident{inc})
	inc.Title = "Edited " + hostileText
	inc.Updates[0].Body = hostileText + " more"
	inc.Components = []string{"API", hostileText + "2"}
	inc.Postmortem = &model.Postmortem{Body: hostileMarkdown, Format: model.FormatMarkdown, PublishedAt: t0.Add(time.Hour)}
	e.record("evil", t0.Add(time.Hour), []model.Incident{inc})
	inc2 := inc
	inc2.ID = "pm-html"
	inc2.Postmortem = &model.Postmortem{Body: "text", Format: model.FormatHTML, HTML: hostileHTML}
	e.record("evil", t0.Add(2*time.Hour), []model.Incident{inc, inc2})
	return model.URLID(inc.ID)
}

// liveMarkup returns what in doc could run script, load a resource or restyle the page,
// other than our own stylesheet, script and icon.
func liveMarkup(doc *html.Node) []string {
	var found []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script":
				if src := attr(n, "src"); !strings.HasPrefix(src, "/static/app.js?v=") || n.FirstChild != nil {
					found = append(found, "<script src="+src+">")
				}
			case "link":
				if href := attr(n, "href"); !strings.HasPrefix(href, "/static/") && attr(n, "rel") != "alternate" {
					found = append(found, "<link href="+href+">")
				}
			case "img", "iframe", "style", "object", "embed", "form", "input", "base", "meta":
				if n.Data == "meta" && (attr(n, "charset") != "" || attr(n, "name") != "") && attr(n, "http-equiv") == "" {
					break
				}
				if n.Data == "form" && (attr(n, "action") == "/search" || strings.HasSuffix(attr(n, "action"), "/diff") ||
					attr(n, "class") == "asof") {
					break
				}
				if n.Data == "input" && (attr(n, "name") == "q" || attr(n, "name") == "at" && attr(n, "type") == "datetime-local") {
					break
				}
				found = append(found, "<"+n.Data+">")
			}
			for _, a := range n.Attr {
				key, val := strings.ToLower(a.Key), strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(key, "on"):
					found = append(found, n.Data+" "+a.Key+"="+a.Val)
				case key == "style":
					found = append(found, n.Data+" style="+a.Val)
				case (key == "href" || key == "src" || key == "action" || key == "xlink:href") &&
					!(strings.HasPrefix(val, "/") || strings.HasPrefix(val, "#") || strings.HasPrefix(val, "https://") ||
						strings.HasPrefix(val, "http://") || strings.HasPrefix(val, "mailto:")):
					found = append(found, n.Data+" "+a.Key+"="+a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return found
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func TestPagesEscapeVendorText(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.TitleOf = func(string) string { return `<i onclick="alert('title')">Evil</i> Corp` }
	})
	id := e.seedHostile()
	e.daemon.SourcesFn = func() []SourceStatus {
		return []SourceStatus{{Name: "evil", Title: `<b onmouseover="alert('cfg')">Evil</b>`, URL: "javascript:alert('src')",
			LastSuccessAt: now, LastPollAt: now, ConsecutiveFailures: 1, LastError: hostileText}}
	}
	inc := "/incidents/evil/" + id
	paths := []string{
		"/", "/sources/evil", inc, inc + "/changes/1", inc + "/changes/2", inc + "/diff?from=0&to=2",
		"/incidents/evil/pm-html", "/search?q=" + strings.ReplaceAll("<script>", "<", "%3C"),
		`/search?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E`,
		"/incidents/evil/%3Cscript%3E", "/sources/%3Cscript%3E",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			want := http.StatusOK
			if strings.HasSuffix(p, "%3Cscript%3E") {
				want = http.StatusNotFound
			}
			r := e.htmlGet(p, want)
			doc, err := html.Parse(strings.NewReader(string(r.body)))
			if err != nil {
				t.Fatal(err)
			}
			if live := liveMarkup(doc); len(live) > 0 {
				t.Errorf("live vendor markup: %q", live)
			}
			if strings.Contains(string(r.body), "alert(") && !strings.Contains(string(r.body), "&lt;") {
				t.Errorf("vendor text shown, but not escaped")
			}
		})
	}
	t.Run("the vendor's safe HTML is kept", func(t *testing.T) {
		body := string(e.htmlGet(inc, http.StatusOK).body)
		for _, want := range []string{"<b>bold</b>", `href="https://ok.example/docs"`, "&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt;"} {
			if !strings.Contains(body, want) {
				t.Errorf("want %s in the page", want)
			}
		}
		if body := string(e.htmlGet("/incidents/evil/pm-html", http.StatusOK).body); !strings.Contains(body, "<b>bold</b>") {
			t.Errorf("the HTML postmortem lost its safe markup")
		}
		// The markdown postmortem keeps its structure, without the raw HTML.
		if !strings.Contains(body, "<h3>Root cause") || !strings.Contains(body, "<table>") {
			t.Errorf("the markdown postmortem was not rendered:\n%s", body)
		}
	})
}

func TestFeedEscapesVendorText(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.TitleOf = func(string) string { return `<i onclick="alert('title')">Evil</i>` }
	})
	e.seedHostile()
	for _, p := range []string{"/feed.atom", "/sources/evil/feed.atom"} {
		r := e.get(p, http.StatusOK)
		var f atom.Feed
		if err := xml.Unmarshal(r.body, &f); err != nil {
			t.Fatalf("%s: not XML: %v", p, err)
		}
		if len(f.Entries) != 3 {
			t.Fatalf("%s: %d entries, want 3", p, len(f.Entries))
		}
		if strings.Contains(string(r.body), "<script") || strings.Contains(string(r.body), "<img") {
			t.Errorf("%s: markup in the XML itself", p)
		}
		for _, entry := range f.Entries {
			if entry.Content.Type != "html" {
				t.Errorf("content type %q", entry.Content.Type)
			}
			// A reader unescapes the content once and renders it as HTML.
			doc, err := html.Parse(strings.NewReader(entry.Content.Body))
			if err != nil {
				t.Fatal(err)
			}
			if live := liveMarkup(doc); len(live) > 0 {
				t.Errorf("%s: entry %s: live vendor markup: %q", p, entry.ID, live)
			}
			if !strings.Contains(entry.Content.Body, "&lt;script&gt;") {
				t.Errorf("%s: entry %s: the hostile text is not shown escaped", p, entry.ID)
			}
		}
	}
}
