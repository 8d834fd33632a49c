package vendortext

import (
	"html/template"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestSnippet(t *testing.T) {
	inc := &model.Incident{
		Title: "Database latency",
		Updates: []model.Update{
			{Body: "First: the <primary> database is slow."},
			{Body: strings.Repeat("padding ", 30) + "Replica LAG is elevated & growing." + strings.Repeat(" more", 30)},
		},
		Postmortem: &model.Postmortem{Body: "Ünïcode lag here"},
	}
	tests := []struct {
		words []string
		want  template.HTML
	}{
		{[]string{"primary"}, "First: the &lt;<mark>primary</mark>&gt; database is slow."},
		{[]string{"lag", "elevated"}, "…padding padding padding padding padding padding padding padding padding padding Replica <mark>LAG</mark> is <mark>elevated</mark> &amp; growing. more more more more more more more more more more more more more…"},
		{[]string{"latency"}, ""}, // only in the title
		{[]string{"here"}, "Ünïcode lag <mark>here</mark>"},
	}
	for _, tt := range tests {
		if got := Snippet(inc, tt.words); got != tt.want {
			t.Errorf("Snippet(%q):\ngot  %q\nwant %q", tt.words, got, tt.want)
		}
	}
}
