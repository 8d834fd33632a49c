package payload

import (
	"errors"
	"testing"
)

func TestCheckJSON(t *testing.T) {
	tests := []struct {
		name, ct, body string
		array          bool
		want, wantErr  string
	}{
		{"object", "application/json", ` {"a":1}`, false, `{"a":1}`, ""},
		{"object after BOM", "", "\xef\xbb\xbf{}", false, "{}", ""},
		{"array", "application/json", "\n[1]", true, "[1]", ""},
		{"empty", "", " \r\n", false, "", "malformed response: empty body"},
		{"HTML body", "", "<html>", true, "", "malformed response: got HTML, not JSON"},
		{"HTML type", "text/html; charset=utf-8", "{}", false, "", "malformed response: got HTML, not JSON"},
		{"array for object", "", "[]", false, "", "malformed response: not a JSON object"},
		{"object for array", "", "{}", true, "", "malformed response: not a JSON array"},
	}
	for _, tt := range tests {
		check := CheckJSONBody
		if tt.array {
			check = CheckJSONArray
		}
		got, err := check(tt.ct, []byte(tt.body))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: got error %v, want %q (ErrMalformed)", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// TestFlexID: an id as a string (plain, with escapes, with invalid bytes), a number, null.
func TestFlexID(t *testing.T) {
	for in, want := range map[string]FlexID{
		`"abc"`:        "abc",
		` " a b " `:    "a b",
		`"a\"b\u00e9"`: `a"bé`,
		"\"a\xffb\"":   "a\uFFFDb",
		`12`:           "12",
		`null`:         "",
	} {
		var f FlexID
		if err := f.UnmarshalJSON([]byte(in)); err != nil || f != want {
			t.Errorf("%s: got %q, %v; want %q", in, f, err, want)
		}
	}
	var f FlexID
	if err := f.UnmarshalJSON([]byte(`{}`)); err == nil {
		t.Error("an object: got no error")
	}
}

// TestLooseText: text of a string, a number or a flag; nothing, never an error, for the rest.
func TestLooseText(t *testing.T) {
	for in, want := range map[string]LooseText{`" up "`: "up", `3`: "3", `true`: "true", `null`: "", `{"v":1}`: "", `[1]`: ""} {
		var l LooseText
		if err := l.UnmarshalJSON([]byte(in)); err != nil || l != want {
			t.Errorf("%s: got %q, %v; want %q", in, l, err, want)
		}
	}
}
