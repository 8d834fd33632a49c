package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is s made safe to store, diff and show anywhere (a page, Slack, a terminal): valid
// UTF-8 (invalid bytes become U+FFFD), CRLF as a newline, and none of the characters that
// change how text looks without being seen:
//
//   - control characters (C0, C1, DEL) other than newline and tab: a terminal escape in a
//     vendor's title must not reach a terminal;
//   - format characters (Unicode category Cf): bidirectional overrides and isolates
//     (U+202A–U+202E, U+2066–U+2069, which can make "Resolved" read backwards or hide
//     text), marks (U+200E, U+200F, U+061C), zero-width spaces and joiners (U+200B,
//     U+2060, U+FEFF), invisible operators, interlinear annotations and tag characters.
//     Two text lookalikes must not differ by an invisible character.
//
// The zero-width joiner and non-joiner (U+200D, U+200C) are kept between two non-ASCII
// characters, where emoji sequences and Persian or Indic writing need them, and dropped
// next to ASCII, where they can only hide a difference. Clean text is returned as is,
// without allocating.
func Text(s string) string {
	if isClean(s) {
		return s
	}
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n")
	rs := []rune(s)
	kept := rs[:0]
	for _, r := range rs {
		if !isControl(r) && !hidden(r) {
			kept = append(kept, r)
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range kept {
		if isJoiner(r) && (i == 0 || i == len(kept)-1 || !joinable(kept[i-1]) || !joinable(kept[i+1])) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isJoiner(r rune) bool { return r == '\u200c' || r == '\u200d' }

// joinable reports whether a joiner next to r may stay: r is neither ASCII nor a joiner.
func joinable(r rune) bool { return r >= utf8.RuneSelf && !isJoiner(r) }

// isClean reports whether Text would return s unchanged: ASCII is checked without
// decoding, and a joiner anywhere sends the text down the slow path.
func isClean(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII, most of any text: no decoding
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isControl(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
		i += size
	}
	return true
}

// isControl reports the C0 and C1 control characters and DEL, newline and tab excepted.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0)
}

// hidden reports the format characters Text drops (joiners are judged by their place).
func hidden(r rune) bool {
	return r >= 0xad && unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d'
}
