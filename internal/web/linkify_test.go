package web

import (
	"html/template"
	"net/http"
	"strings"
	"testing"
	"time"

	xhtml "golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestLinkifyHTML(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"text", `<p>Status at https://status.example.com/x, thanks.</p>`,
			`<p>Status at <a href="https://status.example.com/x" rel="nofollow noopener">https://status.example.com/x</a>, thanks.</p>`},
		{"inside a link", `<p><a href="https://a.example/" rel="nofollow">see https://a.example/</a></p>`,
			`<p><a href="https://a.example/" rel="nofollow">see https://a.example/</a></p>`},
		{"escaped text stays escaped", `<p>&lt;script&gt;alert(1)&lt;/script&gt; http://x.example/?q=&lt;b&gt;</p>`,
			`<p>&lt;script&gt;alert(1)&lt;/script&gt; <a href="http://x.example/?q=" rel="nofollow noopener">http://x.example/?q=</a>&lt;b&gt;</p>`},
		{"quote ends the URL", `<p>https://x.example/&#34;onmouseover=alert(1)</p>`,
			`<p><a href="https://x.example/" rel="nofollow noopener">https://x.example/</a>&#34;onmouseover=alert(1)</p>`},
		{"other schemes stay text", `<p>ftp://x.example/ javascript:alert(1) mailto:a@b.example</p>`,
			`<p>ftp://x.example/ javascript:alert(1) mailto:a@b.example</p>`},
		{"no scheme", `<p>no links here</p>`, `<p>no links here</p>`},
		{"bare scheme", `<p>https:// alone</p>`, `<p>https:// alone</p>`},
		{"scheme in capitals", `<p>See Http://X.example/a</p>`,
			`<p>See <a href="http://X.example/a" rel="nofollow noopener">Http://X.example/a</a></p>`},
		{"a control character ends the URL", "<p>https://x.example/a\x01b</p>",
			"<p><a href=\"https://x.example/a\" rel=\"nofollow noopener\">https://x.example/a</a>\x01b</p>"},
		{"line breaks kept", "<p>a<br>https://x.example/a</p>\n<ul><li>b</li></ul>",
			"<p>a<br><a href=\"https://x.example/a\" rel=\"nofollow noopener\">https://x.example/a</a></p>\n<ul><li>b</li></ul>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(linkifyHTML(template.HTML(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzLinkify: whatever the vendor wrote, once sanitised and linked, the only markup
// that was not in the sanitised HTML is <a href="http(s)://…" rel="nofollow noopener">.
func FuzzLinkify(f *testing.F) {
	for _, s := range []string{"See https://x.example/a.", `<a href="https://a">https://b</a>`, `<p>http://x/"><script>`, "https://x.example/((()))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		safe := sanitizeHTML(s)
		got := string(linkifyHTML(template.HTML(safe)))
		hrefs := map[string]bool{}
		tags := func(h string, check bool) map[string]int {
			out := map[string]int{}
			z := xhtml.NewTokenizer(strings.NewReader(h))
			for z.Next() != xhtml.ErrorToken {
				tok := z.Token()
				if tok.Type == xhtml.StartTagToken || tok.Type == xhtml.SelfClosingTagToken {
					out[tok.Data]++
					if tok.Data == "a" {
						for _, a := range tok.Attr {
							switch {
							case a.Key != "href":
							case !check:
								hrefs[a.Val] = true
							case !hrefs[a.Val] && !strings.HasPrefix(a.Val, "http://") && !strings.HasPrefix(a.Val, "https://"):
								t.Errorf("link to %q in %q", a.Val, got)
							}
						}
					}
				}
			}
			return out
		}
		before, after := tags(safe, false), tags(got, true)
		for name, n := range after {
			if name != "a" && n > before[name] {
				t.Errorf("tag <%s> appeared: %q → %q", name, safe, got)
			}
		}
	})
}

// TestPagesLinkVendorURLs: the incident page links the URLs in update bodies (text and
// HTML) and postmortems; the dashboard's card excerpt links a whole URL and keeps a cut
// one as text.
func TestPagesLinkVendorURLs(t *testing.T) {
	e := newEnv(t)
	long := "See https://status.example.com/incidents/" + strings.Repeat("x", 300)
	inc := model.Incident{
		ID: "u1", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
		Title: "Links", StartedAt: t0,
		Updates: []model.Update{
			{ID: "1", Status: model.StatusInvestigating, Body: "Details: https://a.example/x?y=1&z=2.", PostedAt: t0},
			{ID: "2", Status: model.StatusIdentified, Body: "b", HTML: `<p>Read https://b.example/post and <a href="https://c.example/">this</a></p>`, PostedAt: t0.Add(time.Minute)},
		},
		Postmortem: &model.Postmortem{Body: "- item https://d.example/pm\n- two", Format: model.FormatMarkdown, PublishedAt: t0.Add(time.Hour)},
	}
	e.record("acme", t0, []model.Incident{inc})
	page := string(e.htmlGet("/incidents/acme/u1", http.StatusOK).body)
	for _, want := range []string{
		`<a href="https://a.example/x?y=1&amp;z=2" rel="nofollow noopener">https://a.example/x?y=1&amp;z=2</a>.`,
		`<a href="https://b.example/post" rel="nofollow noopener">https://b.example/post</a>`,
		`<a href="https://c.example/" rel="nofollow noreferrer noopener" target="_blank">this</a>`,
		// Markdown links its URLs itself (GFM autolinks), and the sanitiser sets rel.
		`<li>item <a href="https://d.example/pm" rel="nofollow noreferrer noopener" target="_blank">https://d.example/pm</a></li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("incident page: want %s", want)
		}
	}
	inc.Updates = append(inc.Updates, model.Update{ID: "3", Status: model.StatusIdentified, Body: long, PostedAt: t0.Add(2 * time.Minute)})
	e.record("acme", t0.Add(time.Hour), []model.Incident{inc})
	dash := string(e.htmlGet("/", http.StatusOK).body)
	if want := `<p class="card-excerpt">See https://status.example.com/incidents/xxx`; !strings.Contains(dash, want) {
		t.Errorf("dashboard: want the cut URL as text: %s", want)
	}
	if strings.Contains(dash, `href="https://status.example.com/incidents/x`) {
		t.Errorf("dashboard: a cut URL became a link")
	}
}
