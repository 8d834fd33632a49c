package web

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Paging of lists (docs/design.md §6: limit default 100, max 1000; before is a cursor).
const (
	defaultLimit = 100
	maxLimit     = 1000
)

// page is the paging parameters of a list request.
type page struct {
	limit  int
	before []string // the decoded cursor's fields; nil on the first page
}

// parsePage reads limit and before. kind tags the cursor with its list, so a cursor of
// one list is refused by the other instead of being misread; fields is how many fields
// that list's cursors carry. A limit above maxLimit is clamped (see doc.go).
func parsePage(r *http.Request, kind string, fields int) (page, error) {
	p := page{limit: defaultLimit}
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, fmt.Errorf("limit: want a positive integer, got %q", v)
		}
		p.limit = min(n, maxLimit)
	}
	if v := q.Get("before"); v != "" {
		f, err := decodeCursor(v, kind, fields)
		if err != nil {
			return p, err
		}
		p.before = f
	}
	return p, nil
}

var errBadCursor = errors.New("before: not a cursor of this list (use the X-Next-Cursor or Link of the previous page)")

// encodeCursor packs a list's kind and the sort key of the last item of a page. The
// fields are sources, URL ids, times and numbers, none of which contains a newline.
func encodeCursor(kind string, fields ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + "\n" + strings.Join(fields, "\n")))
}

func decodeCursor(c, kind string, fields int) ([]string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, errBadCursor
	}
	f := strings.Split(string(raw), "\n")
	if len(f) != fields+1 || f[0] != kind {
		return nil, errBadCursor
	}
	return f[1:], nil
}

// setNext announces the next page: its cursor in X-Next-Cursor, and in a root-relative
// Link rel="next" with the request's other parameters kept.
func setNext(w http.ResponseWriter, r *http.Request, cursor string) {
	q := r.URL.Query()
	q.Set("before", cursor)
	next := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	w.Header().Set("X-Next-Cursor", cursor)
	w.Header().Set("Link", "<"+next.String()+`>; rel="next"`)
}
