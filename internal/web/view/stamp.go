package view

import (
	"strconv"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
)

// Stamp is a time as pages show it: in UTC, with a hint of how long ago it was (or how
// far ahead), computed on the server from the server's clock so that a page needs no
// script.
type Stamp struct {
	ISO string // RFC 3339, for <time datetime>
	Abs string // 2026-07-01 12:00 UTC (diff.FormatTime, as every message and command)
	Rel string // 3h ago, in 2d, just now
}

// IsZero reports whether the time was not given.
func (t Stamp) IsZero() bool { return t.ISO == "" }

// NewStamp builds the stamp of t, seen at now; a zero t gives the zero stamp, shown as
// "—".
func NewStamp(t, now time.Time) Stamp {
	if t.IsZero() {
		return Stamp{}
	}
	t = t.UTC()
	return Stamp{ISO: t.Format(time.RFC3339), Abs: diff.FormatTime(t), Rel: relative(t, now)}
}

// NewStampSeconds is NewStamp with seconds, for observation times: "what did the page
// say at 14:05" is answered to the second.
func NewStampSeconds(t, now time.Time) Stamp {
	st := NewStamp(t, now)
	if !st.IsZero() {
		st.Abs = t.UTC().Format(diff.TimeLayoutSeconds)
	}
	return st
}

// relative writes how far t is from now in its largest unit: "just now", "5m ago",
// "3h ago", "4d ago", "5mo ago", "2y ago", or "in 2d" for a time ahead.
func relative(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	if d < time.Minute {
		return "just now"
	}
	var n int
	var unit string
	switch {
	case d < time.Hour:
		n, unit = int(d/time.Minute), "m"
	case d < 48*time.Hour:
		n, unit = int(d/time.Hour), "h"
	case d < 60*24*time.Hour:
		n, unit = int(d/(24*time.Hour)), "d"
	case d < 2*365*24*time.Hour:
		n, unit = int(d/(30*24*time.Hour)), "mo"
	default:
		n, unit = int(d/(365*24*time.Hour)), "y"
	}
	if future {
		return "in " + strconv.Itoa(n) + unit
	}
	return strconv.Itoa(n) + unit + " ago"
}
