package export

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// FuzzMarkdown: whatever the vendor's text, Escape leaves no ASCII punctuation
// unescaped and no line break, and no line of a Code block can close its fence early.
func FuzzMarkdown(f *testing.F) {
	f.Add("# Title [link](javascript:x) <b>*x*</b>")
	f.Add("```\n````\n~~~\n    ```` \n")
	f.Add("a\r\nb\x00c\xffd")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if strings.ContainsAny(e, "\r\n") {
			t.Errorf("Escape(%q) = %q holds a line break", s, e)
		}
		for i := 0; i < len(e); i++ {
			c := e[i]
			if c == '\\' {
				i++ // the escape and what it escapes
				continue
			}
			if c < 0x80 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[]^_`{|}~", c) >= 0 {
				t.Errorf("Escape(%q) = %q leaves %q unescaped", s, e, c)
			}
		}

		var b bytes.Buffer
		Code(&b, s)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		fence := strings.TrimSuffix(lines[0], "text")
		if len(fence) < 3 || strings.Trim(fence, "`") != "" || lines[len(lines)-1] != fence {
			t.Fatalf("Code(%q): fences %q … %q", s, lines[0], lines[len(lines)-1])
		}
		for _, l := range lines[1 : len(lines)-1] {
			if t2 := strings.TrimLeft(l, " "); len(l)-len(t2) <= 3 && strings.HasPrefix(t2, fence) && strings.Trim(t2, "` \t") == "" {
				t.Errorf("Code(%q): line %q closes the fence %q", s, l, fence)
			}
		}
	})
}

func TestSnapshotPath(t *testing.T) {
	at := time.Date(2026, 7, 1, 12, 0, 5, 123000000, time.FixedZone("x", 3600))
	for _, tt := range []struct {
		data []byte
		want string
	}{
		{[]byte(`{"a":1}`), "snapshots/20260701T110005.123000000Z-0123456789ab.json"},
		{[]byte("<?xml version=\"1.0\"?><rss/>"), "snapshots/20260701T110005.123000000Z-0123456789ab.xml"},
		{[]byte("<!DOCTYPE html><html></html>"), "snapshots/20260701T110005.123000000Z-0123456789ab.html"},
		{[]byte("plain words"), "snapshots/20260701T110005.123000000Z-0123456789ab.txt"},
		{[]byte{0xff, 0xfe, 0, 1}, "snapshots/20260701T110005.123000000Z-0123456789ab.bin"},
	} {
		if got := SnapshotPath(at, "0123456789abcdef", tt.data); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
