package param

import (
	"net/url"
	"testing"
)

func TestVersions(t *testing.T) {
	tests := []struct {
		query    string
		from, to int
		wantErr  string
	}{
		{"", -1, 0, ""},
		{"to=3", -1, 3, ""},
		{"from=0&to=2", 0, 2, ""},
		{"from=2", 2, 0, ""},
		{"to=0", 0, 0, `to: want a version number from 1 on, got "0"`},
		{"from=-1&to=x", 0, 0, `to: want a version number from 1 on, got "x"`},
		{"from=-1", 0, 0, `from: want a version number from 0 on, got "-1"`},
	}
	for _, tt := range tests {
		q, _ := url.ParseQuery(tt.query)
		from, to, err := Versions(q)
		switch {
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("%q: got error %v, want %s", tt.query, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || from != tt.from || to != tt.to):
			t.Errorf("%q: got %d, %d, %v; want %d, %d", tt.query, from, to, err, tt.from, tt.to)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := Cursor("incidents", "2026-07-01T12:00:00Z", "acme", "inc-a")
	got, err := decodeCursor(c, "incidents", 3)
	if err != nil || len(got) != 3 || got[2] != "inc-a" {
		t.Errorf("decode: got %q, %v", got, err)
	}
	if _, err := decodeCursor(c, "versions", 3); err != ErrBadCursor {
		t.Errorf("another list's cursor: got %v, want ErrBadCursor", err)
	}
}
