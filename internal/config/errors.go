package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is one configuration error: the key it is about, the line of the file, and what is
// wrong. Its text is `<Path> (line <Line>): <Problem>`, one line, never holding a secret.
type Error struct {
	Path    string // e.g. "sources[2].schedule"; the file name for errors about the file
	Line    int    // 1-based; 0 when unknown
	Problem string
}

// Error returns `<Path> (line <Line>): <Problem>`, or `<Path>: <Problem>` without a line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s (line %d): %s", e.Path, e.Line, e.Problem)
	}
	return e.Path + ": " + e.Problem
}

// Errors is every problem found in a config, sorted by line; Parse returns one holding at
// least one *Error. Its text is the first error followed by how many more there are, so
// that a log line stays one line; errors.As gets the list (to print each on its own line,
// as `watcher check` does) or its first *Error.
type Errors []*Error

// Error returns the first error, and how many more there are.
func (l Errors) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more: `watcher check` lists them)", l[0], len(l)-1)
}

// Unwrap gives the errors, for errors.As and errors.Is.
func (l Errors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// maxErrors bounds the errors one Parse collects: past that the walk stops, since a file
// with a hundred errors is the wrong file or needs fixing from the top.
const maxErrors = 100

// errStop is returned once the walk has stopped (over budget, or too many errors): it
// unwinds the walk and is never reported.
var errStop = errors.New("config: walk stopped")

// fail records an error of the walk; nil and errStop are no error.
func (d *decoder) fail(err error) {
	if err == nil || errors.Is(err, errStop) {
		return
	}
	var ce *Error
	if !errors.As(err, &ce) {
		ce = &Error{Path: d.file, Problem: strings.Join(strings.Fields(err.Error()), " ")}
	}
	for _, e := range d.errs {
		if *e == *ce {
			return // the same key and problem, reached twice (a merged mapping)
		}
	}
	d.errs = append(d.errs, ce)
	if len(d.errs) >= maxErrors {
		d.stopped = true
	}
}

// failedAt reports whether an error was recorded for the key at path or one inside it: a
// rule across keys does not repeat what a key's own error says ("required" after "must
// match").
func (d *decoder) failedAt(path string) bool {
	for _, e := range d.errs {
		if rest, ok := strings.CutPrefix(e.Path, path); ok && (rest == "" || rest[0] == '.' || rest[0] == '[' || strings.HasPrefix(rest, "_file")) {
			return true
		}
	}
	return false
}

// warn records a problem that does not stop the config.
func (d *decoder) warn(path string, line int, format string, args ...any) {
	var ce *Error
	errors.As(d.errorf(path, line, format, args...), &ce)
	d.warnings = append(d.warnings, ce)
}

// sorted returns the findings by line, keeping the walk's order within a line; those
// without a line (about the whole file) come first.
func sorted(list []*Error) []*Error {
	slices.SortStableFunc(list, func(a, b *Error) int { return a.Line - b.Line })
	return list
}

func (d *decoder) errorf(path string, line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	// One line, whatever a wrapped error said.
	msg = strings.Join(strings.Fields(msg), " ")
	return &Error{Path: path, Line: line, Problem: msg}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a YAML parser error into an *Error naming the file and the line where
// the problem is.
//
// The YAML parser names the line where the enclosing construct began (a list item, a
// mapping), often lines above the mistake, and off by one for some errors: a key indented
// one space too few on line 12 of a source that starts on line 10 is reported at line 9.
// The parser reads the file from the top and stops at the first problem, so the first
// line count whose prefix of the file already fails with the same problem is where the
// problem is; a binary search finds it in a few parses.
func (d *decoder) syntaxError(data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	reported := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		reported, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	line := reported
	if real := problemLine(data, msg, reported); real > 0 {
		line = real
	}
	if lines := bytes.Split(data, []byte("\n")); line > 0 && line <= len(lines) && !strings.Contains(msg, "tab") {
		if indent := lines[line-1][:len(lines[line-1])-len(bytes.TrimLeft(lines[line-1], " \t"))]; bytes.IndexByte(indent, '\t') >= 0 {
			msg += " (a tab in the indentation: YAML indents with spaces)"
		}
	}
	var ce *Error
	errors.As(d.errorf(d.file, line, "%s", msg), &ce)
	return ce
}

// problemLine is the smallest n ≥ from such that the first n lines of data fail to parse
// with problem msg, or 0 when no prefix does.
func problemLine(data []byte, msg string, from int) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(n int) bool {
		prefix := bytes.Join(lines[:n], nil)
		dec := yaml.NewDecoder(bytes.NewReader(prefix))
		for {
			var doc yaml.Node
			err := dec.Decode(&doc)
			if err == nil {
				continue
			}
			if errors.Is(err, io.EOF) {
				return false
			}
			got := strings.TrimPrefix(err.Error(), "yaml: ")
			if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
				got = m[2]
			}
			return got == msg
		}
	}
	lo, hi := max(from, 1), len(lines)
	if lo > hi || !fails(hi) {
		return 0
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
