package fetch

// Helpers every normaliser shares: the status words, the update keys and stamps, the
// vendor bodies and name sets an incident is built from.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch/htmltext"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/sanitize"
)

func KnownStatus(raw string) (model.Status, bool) {
	s := model.Status(strings.ToLower(strings.TrimSpace(raw)))
	switch s {
	case model.StatusInvestigating, model.StatusIdentified, model.StatusMonitoring,
		model.StatusResolved, model.StatusPostmortem,
		model.StatusScheduled, model.StatusInProgress, model.StatusVerifying, model.StatusCompleted:
		return s, true
	case "in progress":
		return model.StatusInProgress, true
	}
	return "", false
}

// CleanBody trims a body and turns CRLF into LF: neither is a change a reader would see.
func CleanBody(s string) string {
	s = strings.TrimSpace(s)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// UpdateKey is the key of an update without provider id: the first 8 bytes of
// SHA-256 of (incident id, the update's timestamp, its ordinal), in hex.
func UpdateKey(incidentID, stamp string, ordinal int) string {
	sum := sha256.Sum256([]byte(incidentID + "\x00" + stamp + "\x00" + strconv.Itoa(ordinal)))
	return hex.EncodeToString(sum[:8])
}

// Permanent reports whether a failed lookup would fail the same way next time: a 4xx
// other than 408 and 429 (gone, private, or a bot wall), or a body over the size cap.
func Permanent(err error) bool {
	if errors.Is(err, ErrTooLarge) {
		return true
	}
	var se *StatusError
	return errors.As(err, &se) && se.Code >= 400 && se.Code < 500 &&
		se.Code != http.StatusRequestTimeout && se.Code != http.StatusTooManyRequests
}

// HTMLTag recognises vendor text written as HTML: it holds at least one of the tags status
// pages write (a bare "<" or "a < b" in plain text is not a tag).
var HTMLTag = regexp.MustCompile(`(?i)</?(?:p|br|div|span|a|b|i|u|strong|em|ul|ol|li|h[1-6]|code|pre|blockquote|table|thead|tbody|tr|td|th|hr|img|font|small|sup|sub)\b[^<>]*>`)

// VendorBody turns a body as the vendor sent it into the model's form: HTML becomes clean
// text with Format html and the sanitised HTML kept for the UI; anything else is
// kept as text in format plain (text or markdown, as the platform writes it).
func VendorBody(raw string, plain model.Format) (body string, format model.Format, html string) {
	s := CleanBody(raw)
	if !HTMLTag.MatchString(s) {
		return s, plain, ""
	}
	return CleanBody(htmltext.FromString(s)), model.FormatHTML, sanitize.HTML(s)
}

// StableStamp is the timestamp an update without provider id is keyed by: the time in UTC
// RFC 3339 when it can be read (so a change of the offset the vendor writes it in keeps the
// key), else the text as given.
func StableStamp(raw string) string {
	if t := payload.ParseTime(raw); !t.IsZero() {
		return t.Format(time.RFC3339Nano)
	}
	return strings.TrimSpace(raw)
}

// KeyUpdates sorts updates oldest first (by PostedAt; ties keep their given order, which
// callers pass oldest first), gives every update without an id its key (incident id, timestamp, ordinal) from
// stamps, the provider's timestamp of each update, and returns them with an id listed twice
// taken once (first wins): a version holds each update once.
func KeyUpdates(incidentID string, ups []model.Update, stamps []string) []model.Update {
	perm := make([]int, len(ups))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return ups[a].PostedAt.Compare(ups[b].PostedAt) })
	sorted := make([]model.Update, len(ups))
	sortedStamps := make([]string, len(ups))
	for i, p := range perm {
		sorted[i], sortedStamps[i] = ups[p], stamps[p]
	}
	copy(ups, sorted)
	seen := map[string]int{}
	for i := range ups {
		if ups[i].ID != "" {
			continue
		}
		st := sortedStamps[i]
		ups[i].ID = UpdateKey(incidentID, st, seen[st])
		seen[st]++
	}
	taken := make(map[string]bool, len(ups))
	return slices.DeleteFunc(ups, func(u model.Update) bool {
		dup := taken[u.ID]
		taken[u.ID] = true
		return dup
	})
}

// SortedNames is the sorted set of the non-empty names, never nil.
func SortedNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LastURLSegment returns the last non-empty path segment of a URL (or of an id that is a
// path), "" when there is none.
func LastURLSegment(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Path != "" {
		raw = u.Path
	}
	raw = strings.TrimRight(raw, "/")
	return raw[strings.LastIndexByte(raw, '/')+1:]
}
