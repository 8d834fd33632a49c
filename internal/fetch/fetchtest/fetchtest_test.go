package fetchtest

import "testing"

func TestLiveHTML(t *testing.T) {
	for in, live := range map[string]bool{
		`<p>onclick is a word</p>`:            false,
		`<p onclick="x()">hi</p>`:             true,
		`<a href="javascript:alert(1)">x</a>`: true,
		`<a href="https://ok">x</a>`:          false,
		`<script>x</script>`:                  true,
		`&lt;script&gt;`:                      false,
	} {
		if got := LiveHTML(in) != ""; got != live {
			t.Errorf("LiveHTML(%q): live %v, want %v", in, got, live)
		}
	}
}
