package vendortext

import (
	"html/template"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
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
			if got := string(LinkifyHTML(template.HTML(tt.in))); got != tt.want {
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
		safe := SanitizeHTML(s)
		got := string(LinkifyHTML(template.HTML(safe)))
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
