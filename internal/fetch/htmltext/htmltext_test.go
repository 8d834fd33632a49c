package htmltext

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestFromString(t *testing.T) {
	got := FromString(`<p>We are <b>investigating</b> &amp; will update.</p><p>Second</p><script>x()</script>`)
	if !strings.Contains(got, "We are investigating & will update.") || !strings.Contains(got, "Second") || strings.Contains(got, "x()") {
		t.Errorf("FromString: got %q", got)
	}
	if strings.Contains(got, "update.Second") {
		t.Errorf("FromString ran blocks together: %q", got)
	}
}

// liveHTML returns the first thing in s that a browser would run or load — a script,
// style, image or frame element, an event-handler attribute, a javascript: URL — or "".
// Words like "onclick" in text are not live: only the parsed structure counts.
func liveHTML(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "img", "iframe", "object", "embed", "svg", "form":
				return "<" + tok.Data + ">"
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					return a.Key + " attribute"
				}
				if v := strings.ToLower(strings.TrimSpace(a.Val)); strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:") {
					return a.Key + "=" + a.Val
				}
			}
		}
	}
}

func TestLiveHTML(t *testing.T) {
	for in, live := range map[string]bool{
		`<p>onclick is a word</p>`:            false,
		`<p onclick="x()">hi</p>`:             true,
		`<a href="javascript:alert(1)">x</a>`: true,
		`<a href="https://ok">x</a>`:          false,
		`<script>x</script>`:                  true,
		`&lt;script&gt;`:                      false,
	} {
		if got := liveHTML(in) != ""; got != live {
			t.Errorf("liveHTML(%q): live %v, want %v", in, got, live)
		}
	}
}
