package searchindex

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"words", "Elevated error rates in us-east-1.", []string{"elevated", "error", "rates", "in", "us", "east", "1"}},
		{"case", "DNS dns DnS", []string{"dns", "dns", "dns"}},
		{"punctuation", "API's (v2)/webhooks—delayed…", []string{"api", "s", "v2", "webhooks", "delayed"}},
		{"accents", "Café résumé NAÏVE Ångström", []string{"cafe", "resume", "naive", "angstrom"}},
		{"combining mark", "cafe\u0301", []string{"cafe"}},
		{"full width", "ＡＰＩ　障害", []string{"api", "障害"}},
		{"german", "Straße Größe", []string{"straße", "große"}},
		// Folding drops the breve of й as it drops every accent: the query is folded alike.
		{"cyrillic", "Сбой ОПЛАТЫ", []string{"сбои", "оплаты"}},
		{"numbers", "HTTP 503 at 14:05 UTC", []string{"http", "503", "at", "14", "05", "utc"}},
		// Synthetic vendor notices in the style of Korean and Japanese status pages.
		{"korean", "결제 서비스장애 복구", []string{"결제", "서비", "비스", "스장", "장애", "복구"}},
		{"japanese", "決済サービスで障害が発生", []string{"決済", "済サ", "サー", "ービ", "ビス", "スで", "で障", "障害", "害が", "が発", "発生"}},
		{"chinese", "服务中断", []string{"服务", "务中", "中断"}},
		{"one character", "A 장 B", []string{"a", "장", "b"}},
		{"mixed scripts", "API장애", []string{"api", "장애"}},
		{"half width katakana", "ｻｰﾋﾞｽ", []string{"サー", "ービ", "ビス"}},
		{"invalid utf-8", "dns\xffoutage\xc3", []string{"dns", "outage"}},
		{"controls and emoji", "db\u200b\u202efail 🔥 down", []string{"db", "fail", "down"}},
		{"empty", "", nil},
		{"only punctuation", "--- !!! ...", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tokens(tt.text, nil); !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestTokensLongTerm(t *testing.T) {
	long := strings.Repeat("a", 1000) + " " + strings.Repeat("é", 100)
	for _, term := range Tokens(long, nil) {
		if len(term) > maxTermBytes || !utf8.ValidString(term) {
			t.Errorf("term %q: %d bytes, want at most %d and valid UTF-8", term, len(term), maxTermBytes)
		}
	}
}

func TestFieldTermsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 3 * maxFieldTerms {
		b.WriteString("w")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(string(rune('a' + i/26%26)))
		b.WriteString(string(rune('a' + i/676%26)))
		b.WriteByte(' ')
	}
	got := fieldTerms(b.String(), "again")
	if len(got) > maxFieldTerms {
		t.Errorf("got %d terms, want at most %d", len(got), maxFieldTerms)
	}
	if !slices.IsSorted(got) {
		t.Error("terms are not sorted")
	}
}

func TestQueryTerms(t *testing.T) {
	if got, want := QueryTerms("DNS dns  Outage"), []string{"dns", "outage"}; !slices.Equal(got, want) {
		t.Errorf("QueryTerms = %q, want %q", got, want)
	}
	if got := QueryTerms(strings.Repeat("word", 1) + strings.Repeat(" x", 100) + " " + strings.Repeat("y ", 3)); len(got) > maxQueryTerms {
		t.Errorf("got %d terms, want at most %d", len(got), maxQueryTerms)
	}
}

// FuzzTokens checks that no text makes the tokeniser fail, and that what it gives are
// valid, bounded terms that the tokeniser gives back unchanged.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Elevated errors", "Café au lait, naïve", "a\u0301b c-d", "x9 Ü", "결제 서비스장애", "決済サービス", "cafe\u0301", "\xff\xfe", "ｻｰﾋﾞｽ", "½ ﬁle"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := Tokens(text, nil), tokensGeneral(text, nil, -1); !slices.Equal(got, want) {
			t.Fatalf("Tokens(%q) = %q, without the ASCII fast path %q", text, got, want)
		}
		if got, want := tokens(text, nil, 3, nil), tokensGeneral(text, nil, 3); !slices.Equal(got, want) {
			t.Fatalf("tokens(%q, 3) = %q, without the ASCII fast path %q", text, got, want)
		}
		// Through a batch's lowerer that knows every other term of the text already.
		low := lowerer{known: map[string]int32{}, terms: new([]string)}
		for i, term := range Tokens(text, nil) {
			if i%2 == 0 {
				low.known[term] = int32(len(*low.terms))
				*low.terms = append(*low.terms, term)
			}
		}
		if got, want := tokens(text, nil, -1, &low), Tokens(text, nil); !slices.Equal(got, want) {
			t.Fatalf("tokens(%q) through a lowerer = %q, want %q", text, got, want)
		}
		for _, term := range Tokens(text, nil) {
			if term == "" || len(term) > maxTermBytes || !utf8.ValidString(term) || strings.ContainsRune(term, 0) {
				t.Fatalf("Tokens(%q): bad term %q", text, term)
			}
			if again := Tokens(term, nil); len(again) != 1 || again[0] != term {
				t.Fatalf("Tokens(%q): term %q tokenises to %q", text, term, again)
			}
		}
		terms := fieldTerms(text)
		if len(terms) > maxFieldTerms || !slices.IsSorted(terms) {
			t.Fatalf("fieldTerms(%q): %d terms, sorted %v", text, len(terms), slices.IsSorted(terms))
		}
	})
}

// tokensGeneral is tokens without its ASCII fast path: every rune through the general
// one. FuzzTokens holds the two to the same terms.
func tokensGeneral(text string, dst []string, max int) []string {
	start := len(dst)
	i := 0
	for i < len(text) {
		if max >= 0 && len(dst)-start >= max {
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			i += max1(size)
		case isCJK(r):
			j := i + size
			for j < len(text) {
				r, size := utf8.DecodeRuneInString(text[j:])
				if !isCJK(r) && !isMark(r) {
					break
				}
				j += size
			}
			dst = bigrams(norm.NFKC.String(text[i:j]), dst)
			i = j
		case isWord(r):
			j := i + size
			ascii := r < utf8.RuneSelf
			for j < len(text) {
				r, size := utf8.DecodeRuneInString(text[j:])
				if r == utf8.RuneError && size <= 1 || isCJK(r) || !isWord(r) && !isMark(r) {
					break
				}
				ascii = ascii && r < utf8.RuneSelf
				j += size
			}
			if ascii {
				dst = append(dst, cut(lowerASCII(text[i:j])))
			} else {
				dst = fold(text[i:j], dst)
			}
			i = j
		default:
			i += size
		}
	}
	return dst
}
