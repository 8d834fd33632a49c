package sanitize

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean", "API degraded: élevé 日本", "API degraded: élevé 日本"},
		{"terminal escape", "red \x1b[31malert\x1b[0m", "red [31malert[0m"},
		{"invalid UTF-8", "a \xff b", "a \uFFFD b"},
		{"CRLF", "one\r\ntwo\tok\x07", "one\ntwo\tok"},
		{"right-to-left override", "Resolved \u202edevlosernU\u202c", "Resolved devlosernU"},
		{"isolates and marks", "\u2067API\u2069 \u200fdown\u200e \u061c", "API down "},
		{"zero-width space", "Reso\u200blved", "Resolved"},
		{"byte order mark", "\ufeffAPI\ufeff", "API"},
		{"word joiner and soft hyphen", "Data\u2060base re\u00adplication", "Database replication"},
		{"tag characters", "API\U000E0041\U000E0042", "API"},
		{"joiner next to ASCII", "Resol\u200dved and re\u200cplied", "Resolved and replied"},
		{"joiner at the ends", "\u200d\U0001F469\u200d", "\U0001F469"},
		{"emoji sequence", "\U0001F469\u200d\U0001F4BB on call", "\U0001F469\u200d\U0001F4BB on call"},
		{"Persian non-joiner", "می\u200cخواهم", "می\u200cخواهم"},
		{"joiner before a hidden one", "\U0001F469\u200d\u200b\U0001F4BB", "\U0001F469\u200d\U0001F4BB"},
		{"two joiners", "\U0001F469\u200d\u200d0", "\U0001F4690"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q): got %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTextCleanDoesNotAllocate(t *testing.T) {
	s := "We are investigating elevated error rates on the API — élevé."
	if n := testing.AllocsPerRun(100, func() { Text(s) }); n != 0 {
		t.Errorf("got %v allocations, want 0", n)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"", "plain", "a\u202eb", "\U0001F469\u200d\U0001F4BB", "\xff\x1b\r\n", "x\u200c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q: invalid UTF-8", s, got)
		}
		if again := Text(got); again != got {
			t.Fatalf("Text is not idempotent: %q then %q", got, again)
		}
		rs := []rune(got)
		for i, r := range rs {
			switch {
			case isControl(r) || r == '\r':
				t.Fatalf("Text(%q) = %q keeps control %U", s, got, r)
			case r == '\u200c' || r == '\u200d':
				if i == 0 || i == len(rs)-1 || rs[i-1] < utf8.RuneSelf || rs[i+1] < utf8.RuneSelf {
					t.Fatalf("Text(%q) = %q keeps a joiner next to ASCII or an end", s, got)
				}
			case unicode.Is(unicode.Cf, r):
				t.Fatalf("Text(%q) = %q keeps format character %U", s, got, r)
			}
		}
		if len(got) > len(strings.ToValidUTF8(s, "\uFFFD")) {
			t.Fatalf("Text(%q) = %q grew", s, got)
		}
	})
}
