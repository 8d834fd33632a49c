package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
)

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("expected true or false, found %q", s)
}

// atLeast returns a parser of integers no smaller than lo.
func atLeast(lo int) func(string) (int, error) {
	return func(s string) (int, error) {
		n, err := strconv.ParseInt(s, 10, 32)
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("too large, found %s", s)
		}
		if err != nil {
			return 0, fmt.Errorf("expected a whole number, found %q", s)
		}
		if int(n) < lo {
			return 0, fmt.Errorf("must be at least %d, found %d", lo, n)
		}
		return int(n), nil
	}
}

// positiveDuration parses a duration that must be above zero.
func positiveDuration(s string) (time.Duration, error) {
	v, err := ParseDuration(s)
	if err == nil && v <= 0 {
		err = fmt.Errorf("must be above 0, found %s", s)
	}
	return v, err
}

// openInterval parses an open_interval: 0 (off) or at least a second, the scheduler's
// resolution.
func openInterval(s string) (time.Duration, error) {
	v, err := ParseDuration(s)
	if err == nil && v != 0 && v < time.Second {
		err = fmt.Errorf("must be 0 (off) or at least 1s, found %s", s)
	}
	return v, err
}

// maintenanceReminder parses a maintenance_reminder: 0 (off), or how long before a
// window starts its reminder is sent, from a minute to 30 days.
func maintenanceReminder(s string) (time.Duration, error) {
	v, err := ParseDuration(s)
	if err == nil && v != 0 && (v < time.Minute || v > MaxMaintenanceReminder) {
		err = fmt.Errorf("must be 0 (off) or from 1m to 30d, found %s", s)
	}
	return v, err
}

func schedule(s string) (string, error) {
	if _, err := ParseSchedule(s); err != nil {
		return "", err
	}
	return s, nil
}

// oneOf returns a parser accepting only the given words.
func oneOf[T ~string](words ...T) func(string) (T, error) {
	return func(s string) (T, error) {
		if slices.Contains(words, T(s)) {
			return T(s), nil
		}
		list := make([]string, len(words))
		for i, w := range words {
			list[i] = string(w)
		}
		return "", fmt.Errorf("must be one of %s, found %q", strings.Join(list, ", "), s)
	}
}

// componentChanges parses a component_changes value, suggesting the nearest for a
// misspelt one.
func componentChanges(s string) (string, error) {
	words := []string{archive.ComponentChangesNotify, archive.ComponentChangesArchive}
	v, err := oneOf(words...)(s)
	if err != nil {
		err = fmt.Errorf("%w%s", err, suggest(s, words))
	}
	return v, err
}

// checkURL says what is wrong with a URL that must be absolute http(s), or "" if nothing.
// It names the value only when echo is true: never for secrets.
func checkURL(s string, echo bool) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		if echo {
			return fmt.Sprintf("must be an absolute http or https URL, found %q", s)
		}
		return "must be an absolute http or https URL"
	}
	if echo && u.User != nil {
		// Credentials in a URL would be printed wherever the URL is: logs, the UI, errors.
		return "must not carry credentials; use headers (they are kept secret)"
	}
	return ""
}

// urlValue parses a URL key that must be absolute http(s).
func urlValue(s string) (string, error) {
	if p := checkURL(s, true); p != "" {
		return "", errors.New(p)
	}
	return s, nil
}

// hasControl reports whether s holds a control character (a newline in a header value or
// token would split the request).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f })
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
