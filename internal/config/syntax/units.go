// Package syntax reads the value syntaxes of watcher's config, which the daemon uses as
// well: durations with days, byte sizes and poll schedules. It is pure: each function
// takes the text and gives the value or an error saying what is wrong, in one line.
package syntax

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration parses a Go duration ("90s", "1h30m") that may also use d for days of 24
// hours ("30d", "1d12h", "1.5d"), as every duration in the config takes them.
func ParseDuration(s string) (time.Duration, error) {
	d, ok := parseDuration(strings.TrimSpace(s))
	if !ok {
		return 0, fmt.Errorf("invalid duration %q (use Go durations like 90s or 1h30m, plus d for days)", s)
	}
	return d, nil
}

func parseDuration(s string) (time.Duration, bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	// Days are summed apart; everything else is handed to time.ParseDuration, which keeps
	// its exact rules (units, fractions, overflow) for the units it knows.
	var days float64
	var rest strings.Builder
	for s != "" {
		i := numberLen(s)
		if i == 0 {
			return 0, false
		}
		num := s[:i]
		s = s[i:]
		j := 0
		for j < len(s) && s[j] != '.' && (s[j] < '0' || s[j] > '9') {
			j++
		}
		unit := s[:j]
		s = s[j:]
		if unit == "d" {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, false
			}
			days += f
			continue
		}
		rest.WriteString(num)
		rest.WriteString(unit)
	}
	var total time.Duration
	if rest.Len() > 0 {
		d, err := time.ParseDuration(rest.String())
		if err != nil {
			return 0, false
		}
		total = d
	}
	if days > 0 {
		dd := days * float64(24*time.Hour)
		if dd >= float64(math.MaxInt64-total) {
			return 0, false
		}
		total += time.Duration(dd)
	}
	if neg {
		total = -total
	}
	return total, true
}

// sizeUnits are the byte-size suffixes ParseSize knows, lower-cased: SI (powers of 1000) and
// IEC (powers of 1024).
var sizeUnits = map[string]int64{
	"":    1,
	"b":   1,
	"kb":  1e3,
	"mb":  1e6,
	"gb":  1e9,
	"tb":  1e12,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
	"tib": 1 << 40,
}

// ParseSize parses a byte size: plain bytes ("1048576") or a number with a unit, SI or IEC,
// case-insensitive ("512KiB", "32MiB", "1GB", "1.5 MB"). Fractions of a byte are dropped.
func ParseSize(s string) (int64, error) {
	n, ok := parseSize(strings.TrimSpace(s))
	if !ok {
		return 0, fmt.Errorf("invalid size %q (use bytes or a unit: KiB, MiB, GiB, KB, MB, GB)", s)
	}
	return n, nil
}

func parseSize(s string) (int64, bool) {
	i := numberLen(s)
	if i == 0 {
		return 0, false
	}
	mult, ok := sizeUnits[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, false
	}
	num := s[:i]
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/mult {
			return 0, false
		}
		return n * mult, true
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// numberLen is the length of the number s starts with: its leading digits and dots.
func numberLen(s string) int {
	i := 0
	for i < len(s) && (s[i] == '.' || '0' <= s[i] && s[i] <= '9') {
		i++
	}
	return i
}
