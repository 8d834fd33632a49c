package notify

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/statuswatch/statuswatch/internal/diff"
)

func TestStyleFor(t *testing.T) {
	// /dev/null is a character device, as a terminal is: the stand-in for one here.
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer tty.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	tests := []struct {
		name string
		w    any
		env  map[string]string
		want diff.Style
	}{
		{"terminal", tty, nil, diff.Color},
		{"terminal, TERM set", tty, map[string]string{"TERM": "xterm-256color"}, diff.Color},
		{"terminal, NO_COLOR", tty, map[string]string{"NO_COLOR": "1"}, diff.Plain},
		{"terminal, NO_COLOR empty counts as unset", tty, map[string]string{"NO_COLOR": ""}, diff.Color},
		{"terminal, TERM=dumb", tty, map[string]string{"TERM": "dumb"}, diff.Plain},
		{"file", file, nil, diff.Plain},
		{"pipe", pw, nil, diff.Plain},
		{"buffer", &bytes.Buffer{}, nil, diff.Plain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w.(interface{ Write([]byte) (int, error) })
			if got := styleFor(w, func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
