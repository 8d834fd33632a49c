package notify

import (
	"io"
	"os"

	"github.com/statuswatch/statuswatch/internal/diff"
)

// TerminalStyle is how word diffs written to w are marked: in colour when w is a
// terminal, NO_COLOR is unset or empty (no-color.org) and TERM is not "dumb"; plain
// [-removed-]{+added+} marks otherwise (a pipe, a file, a journal).
func TerminalStyle(w io.Writer) diff.Style {
	return styleFor(w, os.Getenv)
}

func styleFor(w io.Writer, getenv func(string) string) diff.Style {
	f, ok := w.(*os.File)
	if !ok || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return diff.Plain
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return diff.Plain
	}
	return diff.Color
}
