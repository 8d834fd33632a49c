package param

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Paging of lists (docs/design.md §6: limit default 100, max 1000; before is a cursor).
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Page is the paging parameters of a list request.
type Page struct {
	Limit  int
	Before []string // the decoded cursor's fields; nil on the first page
}

// ParsePage reads limit and before. kind tags the cursor with its list, so a cursor of
// one list is refused by the other instead of being misread; fields is how many fields
// that list's cursors carry. A limit above MaxLimit is clamped (see internal/web's doc.go).
func ParsePage(r *http.Request, kind string, fields int) (Page, error) {
	p := Page{Limit: DefaultLimit}
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, fmt.Errorf("limit: want a positive integer, got %q", v)
		}
		p.Limit = min(n, MaxLimit)
	}
	if v := q.Get("before"); v != "" {
		f, err := decodeCursor(v, kind, fields)
		if err != nil {
			return p, err
		}
		p.Before = f
	}
	return p, nil
}

// SpanPage reads a page of a list over a time span: ParsePage's limit and before, and
// the optional bounds from and to (RFC 3339), each the zero time when not given.
func SpanPage(r *http.Request, kind string, fields int) (p Page, from, to time.Time, err error) {
	if p, err = ParsePage(r, kind, fields); err != nil {
		return p, from, to, err
	}
	q := r.URL.Query()
	if from, err = TimeOr(q, "from", time.Time{}); err != nil {
		return p, from, to, err
	}
	to, err = TimeOr(q, "to", time.Time{})
	return p, from, to, err
}

// ErrBadCursor is the error of a cursor that is not one of the list asked for.
var ErrBadCursor = errors.New("before: not a cursor of this list (use the X-Next-Cursor or Link of the previous page)")

// Cursor packs a list's kind and the sort key of the last item of a page. The
// fields are sources, URL ids, times and numbers, none of which contains a newline.
func Cursor(kind string, fields ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + "\n" + strings.Join(fields, "\n")))
}

func decodeCursor(c, kind string, fields int) ([]string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, ErrBadCursor
	}
	f := strings.Split(string(raw), "\n")
	if len(f) != fields+1 || f[0] != kind {
		return nil, ErrBadCursor
	}
	return f[1:], nil
}

// SetNext announces the next page: its cursor in X-Next-Cursor, and in a root-relative
// Link rel="next" with the request's other parameters kept.
func SetNext(w http.ResponseWriter, r *http.Request, cursor string) {
	q := r.URL.Query()
	q.Set("before", cursor)
	next := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	w.Header().Set("X-Next-Cursor", cursor)
	w.Header().Set("Link", "<"+next.String()+`>; rel="next"`)
}
