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

// At reads the optional time travel parameter at (RFC 3339): the zero time when it is
// not given, "as now".
func At(q url.Values) (time.Time, error) { return TimeOr(q, "at", time.Time{}) }

// TimeOr reads the optional time parameter name (RFC 3339): def when it is not given.
func TimeOr(q url.Values, name string, def time.Time) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	return Time(name, v)
}

// FormAt is At for the pages, whose "as of" field is a datetime-local input: it sends
// "2026-07-01T14:05" (or with seconds), with no zone, which is read as UTC, the zone
// every page shows times in. RFC 3339 is read too, so a link made from an API time
// works.
func FormAt(q url.Values) (time.Time, error) {
	v := q.Get("at")
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return At(q)
}

// Days reads a window's number of days: def when not given, an integer in 1..max.
func Days(q url.Values, def, max int) (int, error) {
	v := q.Get("days")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > max {
		return 0, fmt.Errorf("days: want a whole number of days from 1 to %d, got %q", max, v)
	}
	return n, nil
}
