package vendortext

import "testing"

func TestExcerpt(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  spaced\n\nout  text ", 20, "spaced out text"},
		{"The load balancer dropped requests.", 20, "The load balancer…"},
		{"Cut, after a comma", 5, "Cut…"},
		{"Antidisestablishmentarianism", 6, "Antidi…"},
		{"東京リージョンで障害", 4, "東京リー…"},
		// A short word, then a long URL: cut inside the URL rather than after "See".
		{"See https://status.example.com/incidents/01HXYZ for details.", 24, "See https://status.examp…"},
		{"Resolved. See https://status.example.com/incidents/01HXYZ for details.", 40, "Resolved. See https://status.example.com…"},
		// A whole URL is a link, escaped, its sentence's full stop left out.
		{"See https://status.example.com/i?a=1&b=<2>. Thanks", 100,
			`See <a href="https://status.example.com/i?a=1&amp;b=" rel="nofollow noopener">https://status.example.com/i?a=1&amp;b=</a>&lt;2&gt;. Thanks`},
		{"Only (https://x.example/a_(b)) and javascript:alert(1) <b>", 100,
			`Only (<a href="https://x.example/a_(b)" rel="nofollow noopener">https://x.example/a_(b)</a>) and javascript:alert(1) &lt;b&gt;`},
	}
	for _, tt := range tests {
		if got := string(ExcerptHTML(tt.in, tt.n)); got != tt.want {
			t.Errorf("ExcerptHTML(%q, %d): got %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
