package htmltext

import (
	"strings"
	"testing"
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
