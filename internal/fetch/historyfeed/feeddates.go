package historyfeed

// The dates a history-feed entry writes in its paragraphs, in the many forms vendors use.

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ---- Dates ----

// feedStamp is a date read at the start of a paragraph.
type feedStamp struct {
	at    time.Time // UTC
	until time.Time // the end of a "10:00 - 12:00" window, else zero
	n     int       // bytes of the text it took
}

// stampDate matches a date and time at the start of a text: "Nov 30, 10:00", "Nov 30,
// 2023 10:00", "September 8, 2020, 10:43", "8 Sep 2020 10:43", "2020-09-08 10:43",
// "2020-09-08T10:43:00", "08.09.2020 10:43", "09/08/2020 10:43 AM", with an optional
// leading weekday. The zone after it is read by feedZone.
var stampDate = regexp.MustCompile(`^(?:(?i:mon|tue|wed|thu|fri|sat|sun)[a-zA-Z]*\.?,?\s+)?` +
	`(?:(\d{4})-(\d{1,2})-(\d{1,2})` + // 1-3: ISO
	`|(\d{1,2})([./])(\d{1,2})[./](\d{4})` + // 4-7: d.m.y or m/d/y
	`|([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?` + // 8-10: Month D[, YYYY]
	`|(\d{1,2})\s+([A-Za-z]{3,9})\.?(?:,?\s+(\d{4}))?)` + // 11-13: D Month[ YYYY]
	`(?:T|,?\s+(?:at\s+)?|,\s*|\s*-\s*)` +
	`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?` + // 14-16: time
	`(?:\s*([AaPp][Mm])\b)?`) // 17

var feedMonthNames = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// feedMonth reads an English month name or its abbreviation; 0 when it is none.
func feedMonth(s string) time.Month {
	s = strings.ToLower(s)
	if len(s) < 3 {
		return 0
	}
	for i, m := range feedMonthNames {
		if strings.HasPrefix(m, s) {
			return time.Month(i + 1)
		}
	}
	return 0
}

// parseFeedStamp reads the date at the start of s. A date without a year is taken in the
// year that puts it at most two days after ref (a zero ref: the current year); a time
// without zone, or with one we do not know, is UTC.
func parseFeedStamp(s string, ref time.Time) (feedStamp, bool) {
	m := stampDate.FindStringSubmatchIndex(s)
	if m == nil {
		return feedStamp{}, false
	}
	g := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return s[m[2*i]:m[2*i+1]]
	}
	num := func(i int) int {
		v, _ := strconv.Atoi(g(i))
		return v
	}
	var year, day int
	var month time.Month
	switch {
	case g(1) != "":
		year, month, day = num(1), time.Month(num(2)), num(3)
	case g(4) != "":
		year, day, month = num(7), num(4), time.Month(num(6))
		if g(5) == "/" && num(4) <= 12 { // 09/08/2020 is American: month first
			day, month = num(6), time.Month(num(4))
		}
	case g(8) != "":
		month, day = feedMonth(g(8)), num(9)
		if g(10) != "" {
			year = num(10)
		}
	default:
		day, month = num(11), feedMonth(g(12))
		if g(13) != "" {
			year = num(13)
		}
	}
	hour, minute, sec := num(14), num(15), num(16)
	switch strings.ToLower(g(17)) {
	case "am":
		if hour == 12 {
			hour = 0
		}
	case "pm":
		if hour < 12 {
			hour += 12
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return feedStamp{}, false
	}
	n := m[1]
	var endH, endM int
	hasEnd := false
	if em := stampRangeEnd.FindStringSubmatchIndex(s[n:]); em != nil {
		endH, _ = strconv.Atoi(s[n+em[2] : n+em[3]])
		endM, _ = strconv.Atoi(s[n+em[4] : n+em[5]])
		hasEnd = endH <= 23 && endM <= 59
		n += em[1]
	}
	offset, zn := feedZone(s[n:])
	zone := usZoneAsRefSays(strings.TrimSpace(s[n:n+zn]), offset, ref)
	if zone == nil {
		zone = time.FixedZone("", offset)
	}
	n += zn
	if year == 0 {
		if ref.IsZero() {
			ref = time.Now()
		}
		year = ref.Year()
		if time.Date(year, month, day, hour, minute, sec, 0, zone).After(ref.Add(48 * time.Hour)) {
			year--
		}
	}
	at := time.Date(year, month, day, hour, minute, sec, 0, zone)
	if at.Day() != day || at.Month() != month {
		return feedStamp{}, false // Feb 30
	}
	st := feedStamp{at: at.UTC(), n: n}
	if hasEnd {
		end := time.Date(year, month, day, endH, endM, 0, 0, zone)
		if end.Before(at) {
			end = end.AddDate(0, 0, 1) // 22:00 - 02:00 ends the next day
		}
		st.until = end.UTC()
	}
	return st, true
}

// writtenOffset matches the numeric offset a timestamp ends with: "-0700", "-07:00".
var writtenOffset = regexp.MustCompile(`\d:\d{2}(?::\d{2}(?:\.\d+)?)?\s*([+-])(\d{2}):?(\d{2})$`)

// writtenZone is the fixed zone of the numeric offset a timestamp was written with, nil
// when it has none.
func writtenZone(raw string) *time.Location {
	m := writtenOffset.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return nil
	}
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi(m[3])
	off := h*3600 + mi*60
	if m[1] == "-" {
		off = -off
	}
	return time.FixedZone("", off)
}

// usZones are the US zones whose abbreviations vendors use loosely ("PST" all year), by
// abbreviation: the zone and its standard and daylight offsets.
var usZones = map[string]struct {
	name     string
	std, dst int
}{
	"PST": {"America/Los_Angeles", -8 * 3600, -7 * 3600}, "PDT": {"America/Los_Angeles", -8 * 3600, -7 * 3600},
	"MST": {"America/Denver", -7 * 3600, -6 * 3600}, "MDT": {"America/Denver", -7 * 3600, -6 * 3600},
	"CST": {"America/Chicago", -6 * 3600, -5 * 3600}, "CDT": {"America/Chicago", -6 * 3600, -5 * 3600},
	"EST": {"America/New_York", -5 * 3600, -4 * 3600}, "EDT": {"America/New_York", -5 * 3600, -4 * 3600},
}

// usZoneAsRefSays returns the zone a paragraph's time is read in when its US zone
// abbreviation contradicts the feed item's own numeric timestamp (ref's offset) by exactly
// the daylight-saving hour: "10:00 PST" in an item stamped -07:00 is a vendor writing PST
// all year, and the time is read in US Pacific time, which gives it the offset in force
// on its own date. Nil when the abbreviation is to be taken as written: not a US one, no
// ref, or no contradiction (an item stamped -07:00 in Arizona writes MST all year, and
// rightly).
func usZoneAsRefSays(abbr string, offset int, ref time.Time) *time.Location {
	z, ok := usZones[abbr]
	if !ok || ref.IsZero() {
		return nil
	}
	_, refOff := ref.Zone()
	if refOff == offset || (refOff != z.std && refOff != z.dst) {
		return nil
	}
	if loc, err := time.LoadLocation(z.name); err == nil {
		return loc
	}
	return time.FixedZone("", refOff) // no zone data: the item's own offset is the best guess
}

// stampRangeEnd matches the end of a window after a time, " - 12:00".
var stampRangeEnd = regexp.MustCompile(`^\s*[-–]\s*(\d{1,2}):(\d{2})\b`)

// feedZoneOffsets are the zone abbreviations status pages write (a page shows times in its own
// zone), in seconds east of UTC. CST is taken as US Central, the commoner on status pages.
var feedZoneOffsets = map[string]int{
	"UTC": 0, "GMT": 0, "UT": 0, "Z": 0, "WET": 0, "WEST": 3600, "BST": 3600,
	"CET": 3600, "CEST": 7200, "EET": 7200, "EEST": 3 * 3600, "MSK": 3 * 3600,
	"IST": 5*3600 + 1800, "SGT": 8 * 3600, "HKT": 8 * 3600, "AWST": 8 * 3600,
	"JST": 9 * 3600, "KST": 9 * 3600, "ACST": 9*3600 + 1800, "ACDT": 10*3600 + 1800,
	"AEST": 10 * 3600, "AEDT": 11 * 3600, "NZST": 12 * 3600, "NZDT": 13 * 3600,
	"EST": -5 * 3600, "EDT": -4 * 3600, "CST": -6 * 3600, "CDT": -5 * 3600,
	"MST": -7 * 3600, "MDT": -6 * 3600, "PST": -8 * 3600, "PDT": -7 * 3600,
	"AKST": -9 * 3600, "AKDT": -8 * 3600, "HST": -10 * 3600,
}

// feedZoneRE matches a zone after a time: "UTC", "GMT+3", "UTC+05:30", "+03:00", "-0700", "Z".
var feedZoneRE = regexp.MustCompile(`^\s*(?:([A-Z]{1,5})(?:([+-])(\d{1,2})(?::?(\d{2}))?)?|([+-])(\d{2}):?(\d{2}))\b`)

// feedZone reads the zone at the start of s: its offset in seconds and the bytes it takes.
// An unknown abbreviation is not taken (it may be the first word of the text).
func feedZone(s string) (int, int) {
	m := feedZoneRE.FindStringSubmatchIndex(s)
	if m == nil {
		return 0, 0
	}
	g := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return s[m[2*i]:m[2*i+1]]
	}
	offset := func(sign, h, mm string) int {
		hh, _ := strconv.Atoi(h)
		mi, _ := strconv.Atoi(mm)
		o := hh*3600 + mi*60
		if sign == "-" {
			o = -o
		}
		return o
	}
	if g(5) != "" {
		return offset(g(5), g(6), g(7)), m[1]
	}
	base, ok := feedZoneOffsets[g(1)]
	if !ok {
		return 0, 0
	}
	if g(2) != "" {
		if g(1) != "UTC" && g(1) != "GMT" {
			return base, m[3] // "PDT" then something else
		}
		return offset(g(2), g(3), g(4)), m[1]
	}
	return base, m[1]
}
