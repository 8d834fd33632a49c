// Package param reads the parameters that the API and the pages share — times, version
// numbers, and the limit and cursor of a page of a list — and announces a list's next
// page.
package param

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Time reads a time parameter in RFC 3339. An unescaped "+" in a URL's query decodes
// to a space, so "12:00:00 02:00" is read as "12:00:00+02:00" rather than refused.
func Time(name, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil && strings.Contains(v, " ") {
		t, err = time.Parse(time.RFC3339, strings.ReplaceAll(v, " ", "+"))
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: want an RFC 3339 time such as 2026-07-01T14:05:00Z, got %q", name, v)
	}
	return t.UTC(), nil
}

// Version reads a version number parameter: an integer from min on.
func Version(name, v string, min int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, fmt.Errorf("%s: want a version number from %d on, got %q", name, min, v)
	}
	return n, nil
}

// Versions reads the from and to of a comparison of two versions (?from=N&to=M): to is 0
// when not given (the latest version), from is -1 (the one before to), and from=0 is "not
// present".
func Versions(q url.Values) (from, to int, err error) {
	to, from = 0, -1
	if v := q.Get("to"); v != "" {
		if to, err = Version("to", v, 1); err != nil {
			return 0, 0, err
		}
	}
	if v := q.Get("from"); v != "" {
		if from, err = Version("from", v, 0); err != nil {
			return 0, 0, err
		}
	}
	return from, to, nil
}
