package vendortext

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestPostmortemRawHTMLKeepsText: raw HTML in a Markdown postmortem loses its tags to the
// sanitiser, never the text around them (a "<div>" line used to drop everything up to the
// next blank line).
func TestPostmortemRawHTMLKeepsText(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string // in the page, each
		absent     []string
	}{
		{"br line", "Timeline:<br>\n14:05 alerts fired\n14:10 rollback\n\nDone.",
			[]string{"Timeline:", "14:05 alerts fired", "14:10 rollback", "Done."}, nil},
		{"br alone on a line", "First part\n\n<br>\nafter the break\nstill here\n\nEnd.",
			[]string{"First part", "after the break", "still here", "End."}, nil},
		{"div block", "<div>\nWe rolled back the deploy.\nErrors stopped at 14:20.\n</div>\n\nNext steps.",
			[]string{"We rolled back the deploy.", "Errors stopped at 14:20.", "Next steps."}, nil},
		{"div with markdown after", "<div class=\"x\">Summary of the event</div>\n\n**Root cause**: a bad config.",
			[]string{"Summary of the event", "<strong>Root cause</strong>", "a bad config."}, []string{"class="}},
		{"script dropped with its content", "Before\n\n<script>alert(1)</script>\n\nAfter",
			[]string{"Before", "After"}, []string{"<script", "alert(1)"}},
		{"event handler dropped", "<p onclick=\"alert(1)\">Clicked text</p>\n\nok",
			[]string{"Clicked text", "ok"}, []string{"onclick", "alert"}},
		{"image dropped", "See <img src=\"https://evil.example/x.png\" onerror=\"alert(1)\"> here",
			[]string{"See", "here"}, []string{"<img", "onerror", "evil.example"}},
		{"unclosed tags closed", "<div><blockquote>\nleft open\n\nafter",
			[]string{"left open", "after", "</blockquote></div>"}, nil},
		{"stray end tags dropped", "</div></section></main>\nstray closers\n\nafter",
			[]string{"stray closers", "after"}, []string{"</div>", "</section>", "</main>"}},
		{"javascript link dropped", "<a href=\"javascript:alert(1)\">text kept</a>",
			[]string{"text kept"}, []string{"javascript:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(PostmortemHTML(&model.Postmortem{Format: model.FormatMarkdown, Body: tt.body}))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to contain %q", got, w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("got %q, want no %q", got, a)
				}
			}
		})
	}
}

// FuzzPostmortemHTML: whatever Markdown a vendor sends, the rendering neither panics nor
// lets live markup through (script, handlers, images, unsafe links).
func FuzzPostmortemHTML(f *testing.F) {
	for _, s := range []string{hostileMarkdown, "<div>\nx\n</div>", "a<br>\nb", "</div></main>x", "<table><tr><td>x",
		"[x](javascript:alert(1))", "<svg onload=alert(1)>", "<a href=\"java\tscript:x\">y</a>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got := string(PostmortemHTML(&model.Postmortem{Format: model.FormatMarkdown, Body: body}))
		doc, err := html.Parse(strings.NewReader("<!doctype html><body>" + got))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if live := liveMarkup(doc); len(live) > 0 {
			t.Errorf("body %q rendered live markup %v:\n%s", body, live, got)
		}
		if !balanced(got) && reparse(got) != got {
			t.Errorf("body %q rendered unbalanced HTML:\n%s", body, got)
		}
	})
}

// hostileMarkdown is a postmortem with script, handlers, javascript: links, images and a
// frame in it, as the page tests of internal/web use too.
const hostileMarkdown = "## Root cause <script>alert('m')</script>\n\n[click](javascript:alert('l')) " +
	"<img src=x onerror=alert('r')> ![pixel](https://evil.example/p.png) <a href=\"javascript:alert('h')\">h</a>\n\n" +
	"<iframe src=\"https://evil.example/\"></iframe>\n\n| a | b |\n|---|---|\n| <script>x</script> | ok |\n"

// liveMarkup returns what in doc, a rendered vendor fragment, could run script, load a
// resource or restyle the page: a fragment has none of the page's own script, stylesheet
// or forms, so no element of the kind is allowed, no handler or style attribute, and a
// link only to a page (http, https, mailto, or within the site).
func liveMarkup(doc *html.Node) []string {
	var found []string
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if slices.Contains(liveElements, n.Data) {
			found = append(found, "<"+n.Data+">")
		}
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			link := key == "href" || key == "src" || key == "action" || key == "xlink:href"
			if strings.HasPrefix(key, "on") || key == "style" || link && !safeTarget(a.Val) {
				found = append(found, n.Data+" "+a.Key+"="+a.Val)
			}
		}
	}
	return found
}

// liveElements run script, load a resource, restyle the page or send a form.
var liveElements = []string{"script", "link", "img", "iframe", "style", "object", "embed", "form", "input", "base", "meta"}

// safeTarget reports whether a link or a source goes to a page: within the site, or an
// http, https or mailto URL.
func safeTarget(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return slices.ContainsFunc([]string{"/", "#", "https://", "http://", "mailto:"}, func(p string) bool { return strings.HasPrefix(v, p) })
}

// TestDeepNestingFlattened: quotes, lists or elements nested past maxDepth keep their text
// and lose their tags, so the page parses as it was written (a browser stops at 512).
func TestDeepNestingFlattened(t *testing.T) {
	for name, body := range map[string]string{
		"quotes":                 strings.Repeat(">", 600) + " deepest words",
		"lists":                  strings.Repeat("- ", 600) + "deepest words",
		"elements":               strings.Repeat("<div>", 600) + "deepest words" + strings.Repeat("</div>", 600),
		"unclosed":               strings.Repeat("<blockquote>", 600) + "deepest words",
		"stray end tags between": strings.Repeat("<div></span>", 600) + "deepest words",
	} {
		t.Run(name, func(t *testing.T) {
			got := string(PostmortemHTML(&model.Postmortem{Format: model.FormatMarkdown, Body: body}))
			if !strings.Contains(got, "deepest words") {
				t.Fatalf("text lost: %.200q", got)
			}
			if depth := nesting(t, got); depth > 64 {
				t.Errorf("nested %d deep, want at most 64", depth)
			}
			if _, err := html.Parse(strings.NewReader("<!doctype html><body>" + got)); err != nil {
				t.Errorf("page does not parse: %v", err)
			}
			if !balanced(got) {
				t.Errorf("unbalanced: %.200q", got)
			}
		})
	}
	shallow := "<ul><li><blockquote><p>kept as it is</p></blockquote></li></ul>"
	if got := SanitizeHTML(shallow); got != shallow {
		t.Errorf("SanitizeHTML(%q) = %q, want it unchanged", shallow, got)
	}
}

// nesting is how deep the elements of s nest.
func nesting(t *testing.T, s string) int {
	t.Helper()
	deepest, depth := 0, 0
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return deepest
		case html.StartTagToken:
			depth++
			deepest = max(deepest, depth)
		case html.EndTagToken:
			depth--
		}
	}
}
