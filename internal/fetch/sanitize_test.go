package fetch

import (
	"strings"
	"testing"
)

func TestSanitizeHTML(t *testing.T) {
	in := `<p onclick="x()">Hi <a href="javascript:alert(1)">bad</a> <a href="https://ok.example/">ok</a><img src=x onerror=alert(1)><script>alert(1)</script><style>p{}</style></p>`
	got := SanitizeHTML(in)
	for _, bad := range []string{"onclick", "javascript:", "<img", "onerror", "<script", "alert(1)", "<style"} {
		if strings.Contains(got, bad) {
			t.Errorf("SanitizeHTML kept %q: %s", bad, got)
		}
	}
	if !strings.Contains(got, `href="https://ok.example/"`) || !strings.Contains(got, "Hi") {
		t.Errorf("SanitizeHTML lost the safe parts: %s", got)
	}
}

func TestHTMLToText(t *testing.T) {
	got := HTMLToText(`<p>We are <b>investigating</b> &amp; will update.</p><p>Second</p><script>x()</script>`)
	if !strings.Contains(got, "We are investigating & will update.") || !strings.Contains(got, "Second") || strings.Contains(got, "x()") {
		t.Errorf("HTMLToText: got %q", got)
	}
	if strings.Contains(got, "update.Second") {
		t.Errorf("HTMLToText ran blocks together: %q", got)
	}
}
