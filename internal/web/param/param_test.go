package param

import (
	"net/url"
	"testing"
	"time"
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

func TestAtAndDays(t *testing.T) {
	tests := []struct {
		query   string
		form    bool
		want    string // RFC 3339, "" for the zero time
		wantErr bool
	}{
		{"", false, "", false},
		{"at=2026-07-01T14:05:00Z", false, "2026-07-01T14:05:00Z", false},
		{"at=2026-07-01T16:05:00%2B02:00", false, "2026-07-01T14:05:00Z", false},
		{"at=2026-07-01T14:05", false, "", true}, // the API wants RFC 3339
		{"at=yesterday", false, "", true},
		{"at=2026-07-01T14:05", true, "2026-07-01T14:05:00Z", false}, // a datetime-local field, as UTC
		{"at=2026-07-01T14:05:30", true, "2026-07-01T14:05:30Z", false},
		{"at=2026-07-01T14:05:00Z", true, "2026-07-01T14:05:00Z", false},
		{"at=14:05", true, "", true},
	}
	for _, tt := range tests {
		q, _ := url.ParseQuery(tt.query)
		read := At
		if tt.form {
			read = FormAt
		}
		got, err := read(q)
		s := ""
		if !got.IsZero() {
			s = got.Format(time.RFC3339)
		}
		if (err != nil) != tt.wantErr || s != tt.want {
			t.Errorf("%q (form %v): got %q, %v; want %q, error %v", tt.query, tt.form, s, err, tt.want, tt.wantErr)
		}
	}
	for q, want := range map[string]int{"": 90, "days=1": 1, "days=3650": 3650, "days=0": -1, "days=3651": -1, "days=x": -1, "days=-5": -1} {
		v, _ := url.ParseQuery(q)
		got, err := Days(v, 90, 3650)
		if want < 0 && err == nil || want >= 0 && (err != nil || got != want) {
			t.Errorf("Days(%q): got %d, %v; want %d", q, got, err, want)
		}
	}
}

// FuzzFormAt: any "at" a browser or a stranger sends is read or refused, never a panic,
// and a time read is in UTC.
func FuzzFormAt(f *testing.F) {
	for _, s := range []string{"2026-07-01T14:05", "2026-07-01T14:05:00Z", "2026-07-01T14:05:00 02:00", "", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := FormAt(url.Values{"at": {s}})
		if err == nil && !tm.IsZero() && tm.Location() != time.UTC {
			t.Errorf("FormAt(%q) = %v, not in UTC", s, tm)
		}
	})
}
