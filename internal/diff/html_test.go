package diff

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestHTMLGolden(t *testing.T) {
	for _, tc := range renderCases() {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, "html_"+tc.name, string(HTML(Changes(tc.before, tc.after))))
		})
	}
}

func TestHTML(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name   string
		change model.Change
		want   []string // fragments of the output, in order
	}{
		{"not present", model.Change{Field: "impact", After: s("major")},
			[]string{`<dt>Before</dt><dd class="none">not present</dd>`, `<dt>After</dt><dd><ins><span class="vh">added: </span>major</ins></dd>`}},
		{"removed", model.Change{Field: "resolved_at", Before: s("2025-03-04T16:00:00Z")},
			[]string{`<dd><del><span class="vh">removed: </span>2025-03-04 16:00 UTC</del></dd>`, `<dd class="none">removed</dd>`}},
		{"empty", model.Change{Field: "updates[u9]", After: s("")}, []string{`<dd class="none">(empty)</dd>`}},
		{"word diff", model.Change{Field: "title", Before: s("Some users affected"), After: s("All users affected"),
			Ops: Words("Some users affected", "All users affected")},
			[]string{
				`<dt>Before</dt><dd class="txt"><del><span class="vh">removed: </span>Some</del><span class="eq"> users affected</span></dd>`,
				`<dt>After</dt><dd class="txt"><ins><span class="vh">added: </span>All</ins><span class="eq"> users affected</span></dd>`,
			}},
		{"line breaks kept, CR LF as LF", model.Change{Field: "postmortem.body", After: s("one\r\ntwo"), Ops: Words("", "one\r\ntwo")},
			[]string{"<ins><span class=\"vh\">added: </span>one\ntwo</ins>"}},
		{"control characters shown", model.Change{Field: "title", After: s("a\x1b[31mb\x00"), Ops: Words("", "a\x1b[31mb\x00")},
			[]string{`a\x1b[31mb\x00`}},
		{"invalid UTF-8", model.Change{Field: "title", After: s("a\xffb"), Ops: Words("", "a\xffb")}, []string{"a\uFFFDb"}},
		{"update labels", model.Change{Field: "updates[a-1].body", Before: s("x"), After: s("y"), Ops: Words("x", "y")},
			[]string{`<h3 class="chg-h">Update edited <code class="chg-key">updates[a-1].body</code></h3>`}},
		{"unknown field shown raw, escaped", model.Change{Field: "<b>&", After: s("x")},
			[]string{`<h3 class="chg-h">&lt;b&gt;&amp; <code class="chg-key">&lt;b&gt;&amp;</code></h3>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(HTML([]model.Change{tt.change}))
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("got\n%s\nwant it to contain (in order) %q", got, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
	if got, want := string(HTML(nil)), `<p class="chg-none">No changes.</p>`+"\n"; got != want {
		t.Errorf("empty change set: got %q, want %q", got, want)
	}
}

// TestHTMLEscapesVendorText parses the rendering of hostile vendor text in every field
// and checks that it made no element or attribute of its own.
func TestHTMLEscapesVendorText(t *testing.T) {
	hostile := `<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">x</a>"' &amp;`
	before := edit(func(i *model.Incident) {
		i.Components = []string{hostile}
		i.Updates[0].Body = hostile
	})
	after := edit(func(i *model.Incident) {
		i.Title = hostile
		i.Status = model.Status(hostile)
		i.Components = []string{"<b>bold</b>"}
		i.Updates[0].Body = "Fixed " + hostile
		i.Updates = append(i.Updates, model.Update{ID: hostile, Body: hostile})
		i.Postmortem = &model.Postmortem{Body: hostile}
	})
	out := string(HTML(Changes(before, after)))
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"html": true, "head": true, "body": true, "div": true, "h3": true, "code": true,
		"dl": true, "dt": true, "dd": true, "span": true, "del": true, "ins": true}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if !allowed[n.Data] {
				t.Errorf("got a <%s> element in\n%s", n.Data, out)
			}
			for _, a := range n.Attr {
				if a.Key != "class" {
					t.Errorf("got attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(out, "&amp;amp;") {
		t.Errorf("vendor text not shown escaped:\n%s", out)
	}
}

// TestHTMLCues checks that every <del> and <ins> carries its textual cue, so colour is
// never the only signal.
func TestHTMLCues(t *testing.T) {
	for _, tc := range renderCases() {
		out := string(HTML(Changes(tc.before, tc.after)))
		if n, m := strings.Count(out, "<del>"), strings.Count(out, `<del><span class="vh">removed: </span>`); n != m {
			t.Errorf("%s: %d <del>, %d with the cue", tc.name, n, m)
		}
		if n, m := strings.Count(out, "<ins>"), strings.Count(out, `<ins><span class="vh">added: </span>`); n != m {
			t.Errorf("%s: %d <ins>, %d with the cue", tc.name, n, m)
		}
	}
}
