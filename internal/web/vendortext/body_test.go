package vendortext

import (
	"html/template"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestTextHTML(t *testing.T) {
	tests := []struct {
		in   string
		want template.HTML
	}{
		{"one line", "<p>one line</p>"},
		{"a\r\nb\n\n\nc <d> & e", "<p>a<br>b</p><p>c &lt;d&gt; &amp; e</p>"},
		{"  \n ", ""},
		{"bad \xff byte", "<p>bad \uFFFD byte</p>"},
	}
	for _, tt := range tests {
		if got := textHTML(tt.in); got != tt.want {
			t.Errorf("textHTML(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPostmortemHTML(t *testing.T) {
	got := string(PostmortemHTML(&model.Postmortem{Format: model.FormatMarkdown,
		Body: "# Title\n\n## Cause\n\nSee [docs](https://example.com/x) and https://example.com/y.\n\n- one\n- two"}))
	for _, want := range []string{"<h3>Title</h3>", "<h4>Cause</h4>", `<a href="https://example.com/x" rel="nofollow noreferrer noopener" target="_blank">docs</a>`,
		`<a href="https://example.com/y" rel="nofollow noreferrer noopener" target="_blank">https://example.com/y</a>`, "<li>one</li>"} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to contain %s", got, want)
		}
	}
	if got := string(PostmortemHTML(&model.Postmortem{Format: model.FormatText, Body: "# not a heading"})); got != "<p># not a heading</p>" {
		t.Errorf("text postmortem: got %q", got)
	}
}
