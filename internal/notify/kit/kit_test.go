package kit

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/notify"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s     string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"one two three", 10, "one two…"},
		{"abcdefghijkl", 5, "abcd…"},
		{"é é é é", 4, "é é…"},
		{"x", 0, "x"},
		{"bad \xff", 10, "bad \uFFFD"},
	} {
		if got := Cut(tc.s, tc.limit); got != tc.want {
			t.Errorf("Cut(%q, %d): got %q, want %q", tc.s, tc.limit, got, tc.want)
		}
	}
	if got := CutBytes("ééééé", 7); got != "éé…" {
		t.Errorf("CutBytes: got %q, want %q", got, "éé…")
	}
}

func FuzzCut(f *testing.F) {
	f.Add("one two three", 5)
	f.Add("ééé\xff ", 3)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit = limit%2000 + 1
		if limit < 1 {
			limit = -limit + 1
		}
		if got := Cut(s, limit); utf8.RuneCountInString(got) > limit || !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q: over the limit or invalid", s, limit, got)
		}
		if got := CutBytes(s, limit+3); len(got) > limit+3 || !utf8.ValidString(got) {
			t.Fatalf("CutBytes(%q, %d) = %q: over the limit or invalid", s, limit+3, got)
		}
	})
}

func TestHTTPError(t *testing.T) {
	for code, want := range map[int]notify.Class{429: notify.RateLimited, 500: notify.Transient, 503: notify.Transient,
		401: notify.Auth, 403: notify.Auth, 404: notify.ChannelGone, 410: notify.ChannelGone, 400: notify.Rejected, 413: notify.Rejected, 302: notify.Transient} {
		err := HTTPError("x", code, time.Second, "detail", "s3cret")
		if c, _ := notify.ClassOf(err); c != want {
			t.Errorf("HTTP %d: got %s, want %s", code, c, want)
		}
	}
	err := HTTPError("teams", 400, 0, "bad s3cret here", "s3cret")
	if strings.Contains(err.Error(), "s3cret") || err.Error() != "teams: HTTP 400: bad <redacted> here" {
		t.Errorf("got %q, want the secret redacted", err)
	}
	if got := Redact(`Post "https://h.example/hook/abc?sig=1": EOF`, "https://h.example/hook/abc?sig=1"); strings.Contains(got, "sig=1") {
		t.Errorf("got %q, want the URL redacted", got)
	}
	if got := Redact("dial /hook/abc?sig=1 failed", "https://h.example/hook/abc?sig=1"); strings.Contains(got, "sig=1") {
		t.Errorf("got %q, want the URL's path redacted", got)
	}
}

func TestVendorURL(t *testing.T) {
	for u, want := range map[string]string{"HTTPS://a.example/x": "https://a.example/x", "javascript:alert(1)": "", "/rel": "", "data:text/html,x": ""} {
		if got := VendorURL(u); got != want {
			t.Errorf("VendorURL(%q): got %q, want %q", u, got, want)
		}
	}
}

func TestHTTPURL(t *testing.T) {
	for u, want := range map[string]bool{"https://a.example/x": true, "HTTP://a.example": true, "ftp://a.example": false, "https:///x": false, "a.example/x": false, "%zz": false} {
		if got := HTTPURL(u) != nil; got != want {
			t.Errorf("HTTPURL(%q): got %v, want %v", u, got, want)
		}
	}
}
