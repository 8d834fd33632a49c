package sanitize

import (
	"strings"
	"testing"
)

func TestSanitizeHTML(t *testing.T) {
	in := `<p onclick="x()">Hi <a href="javascript:alert(1)">bad</a> <a href="https://ok.example/">ok</a><img src=x onerror=alert(1)><script>alert(1)</script><style>p{}</style></p>`
	got := HTML(in)
	for _, bad := range []string{"onclick", "javascript:", "<img", "onerror", "<script", "alert(1)", "<style"} {
		if strings.Contains(got, bad) {
			t.Errorf("HTML kept %q: %s", bad, got)
		}
	}
	if !strings.Contains(got, `href="https://ok.example/"`) || !strings.Contains(got, "Hi") {
		t.Errorf("HTML lost the safe parts: %s", got)
	}
}
