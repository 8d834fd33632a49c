// Package payload is what every adapter's decoder starts with: the lenient JSON options,
// the checks that tell a JSON document or a feed from an HTML error page or an empty
// answer, and the value shapes vendors send in more than one form.
package payload

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mmcdole/gofeed"
)

// DecodeJSONObject decodes body, which must be one JSON object, into v under JSONOptions.
// What is no JSON object, or does not decode into v, is ErrMalformed.
func DecodeJSONObject(contentType string, body []byte, v any) error {
	return decodeJSON(contentType, body, '{', "object", v)
}

// Object decodes body, one JSON object, into a new T (DecodeJSONObject), and checks with
// has that it holds what the endpoint must answer: a document without it is ErrMalformed
// "no <what>", never an empty page.
func Object[T any](contentType string, body []byte, what string, has func(*T) bool) (*T, error) {
	v := new(T)
	if err := DecodeJSONObject(contentType, body, v); err != nil {
		return nil, err
	}
	if !has(v) {
		return nil, fmt.Errorf("%w: no %s", ErrMalformed, what)
	}
	return v, nil
}

// Require checks every item of a decoded list with has: the first that fails it makes the
// document ErrMalformed, said by format (which takes the item's index), as an item the
// archive could not know again is never dropped in silence.
func Require[T any](list []T, format string, has func(*T) bool) error {
	for i := range list {
		if !has(&list[i]) {
			return fmt.Errorf("%w: "+format, ErrMalformed, i)
		}
	}
	return nil
}

// DecodeJSONArray is DecodeJSONObject for a body that must be one JSON array.
func DecodeJSONArray(contentType string, body []byte, v any) error {
	return decodeJSON(contentType, body, '[', "array", v)
}

// decodeJSON decodes body, which must be one JSON document opening with open (checkJSON),
// into v.
func decodeJSON(contentType string, body []byte, open byte, what string, v any) error {
	b, err := checkJSON(contentType, body, open, what)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v, JSONOptions); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

// ErrMalformed is matched (errors.Is) by the error of a body that is not the JSON the
// endpoint should answer: HTML, empty, truncated, or lacking its list. Such an answer is a
// failed fetch, never an empty page.
var ErrMalformed = errors.New("malformed response")

// JSONOptions make the decoder lenient where leniency costs nothing and strictness would
// fail a whole page over a cosmetic defect: duplicate keys (last wins) and invalid UTF-8
// (replaced) are accepted. Unknown keys are always ignored.
var JSONOptions = json.JoinOptions(
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// CheckJSONBody rejects what cannot be the JSON object an endpoint should answer.
func CheckJSONBody(contentType string, body []byte) ([]byte, error) {
	return checkJSON(contentType, body, '{', "object")
}

// checkJSON returns body without a leading BOM and white space when it can be the JSON
// document opening with open (a what) that an endpoint should answer: not empty, not HTML.
func checkJSON(contentType string, body []byte, open byte, what string) ([]byte, error) {
	b := bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")) // a BOM is harmless; drop it
	b = bytes.TrimLeft(b, " \t\r\n")
	switch {
	case len(b) == 0:
		return nil, fmt.Errorf("%w: empty body", ErrMalformed)
	case b[0] == '<' || strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/html"):
		return nil, fmt.Errorf("%w: got HTML, not JSON", ErrMalformed)
	case b[0] != open:
		return nil, fmt.Errorf("%w: not a JSON %s", ErrMalformed, what)
	}
	return b, nil
}

// ParseTime reads an RFC 3339 time as UTC; empty or unreadable is the zero time.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// CheckJSONArray is CheckJSONBody for endpoints that answer a JSON array.
func CheckJSONArray(contentType string, body []byte) ([]byte, error) {
	return checkJSON(contentType, body, '[', "array")
}

// FlexID is an id a provider sends as a JSON string or as a number (Slack's history has
// numbers where its documented current answer has strings; JSON:API ids are strings whose
// references are sometimes numbers). Either way it is kept as its text; null is empty.
type FlexID string

// UnmarshalJSON implements json.Unmarshaler for both encoding/json and json v2.
func (f *FlexID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b):
		// The common case, a plain string: the decoder has checked it is one, and without
		// escapes or invalid bytes its text is what is between the quotes (a summary of
		// 300 components has 600 ids).
		*f = FlexID(strings.TrimSpace(string(b[1 : len(b)-1])))
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s, JSONOptions); err != nil {
			return err
		}
		*f = FlexID(strings.TrimSpace(s))
	case string(b) == "null":
		*f = ""
	default:
		if _, err := strconv.ParseFloat(string(b), 64); err != nil {
			return fmt.Errorf("id %.20q is neither a string nor a number", b)
		}
		*f = FlexID(b)
	}
	return nil
}

// LooseText is a value read for display or lookup that must never fail the document it
// is in (a component's status word, a section's name, read beside incidents that were
// read before it was): a string or a number is its text, true and false theirs, and
// anything else (null, an object, a list) is "not given".
type LooseText string

// UnmarshalJSON implements json.Unmarshaler for both encoding/json and json v2.
func (l *LooseText) UnmarshalJSON(b []byte) error {
	var f FlexID
	switch s := string(bytes.TrimSpace(b)); {
	case s == "true" || s == "false":
		f = FlexID(s)
	case f.UnmarshalJSON(b) != nil:
		f = ""
	}
	*l = LooseText(f)
	return nil
}

// Int returns the id as an integer, ok false when it is not one.
func (f FlexID) Int() (int, bool) {
	n, err := strconv.Atoi(string(f))
	return n, err == nil
}

// ParseStatusFeed parses an RSS or Atom document with gofeed (shared by the aws and
// azure adapters). It rejects what is no feed: an empty body, an HTML page, truncated or
// otherwise invalid XML, a JSON feed, and a document with neither items nor a channel
// title or link. gofeed is third-party code fed vendor bytes, so a panic in it is turned
// into a malformed-response error rather than taking the daemon down.
func ParseStatusFeed(body []byte) (*gofeed.Feed, error) {
	if _, err := FeedBody(body); err != nil {
		return nil, err
	}
	f, err := ParseFeed(body)
	switch {
	case errors.Is(err, gofeed.ErrFeedTypeNotDetected):
		return nil, fmt.Errorf("%w: not an RSS or Atom feed", ErrMalformed)
	case err != nil:
		return nil, err
	}
	if f.FeedType != "rss" && f.FeedType != "atom" {
		return nil, fmt.Errorf("%w: a %s feed, not RSS or Atom", ErrMalformed, f.FeedType)
	}
	if len(f.Items) == 0 && strings.TrimSpace(f.Title) == "" && strings.TrimSpace(f.Link) == "" {
		return nil, fmt.Errorf("%w: a feed with no channel", ErrMalformed)
	}
	return f, nil
}

// FeedBody returns body without a byte-order mark and the white space around it, when it
// can be a feed: an empty body or an HTML page is ErrMalformed. Every feed reader checks
// this first; what else makes a feed is each reader's own.
func FeedBody(body []byte) ([]byte, error) {
	b := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	switch {
	case len(b) == 0:
		return nil, fmt.Errorf("%w: empty body", ErrMalformed)
	case LooksHTML(b):
		return nil, fmt.Errorf("%w: got HTML, not a feed", ErrMalformed)
	}
	return b, nil
}

// ParseFeed parses b with gofeed; what gofeed rejects is ErrMalformed, wrapping its error.
// gofeed is third-party code fed vendor bytes: should it ever panic, that is a feed we
// cannot read, not a crashed daemon.
func ParseFeed(b []byte) (f *gofeed.Feed, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%w: feed parser panicked: %v", ErrMalformed, r)
		}
	}()
	if f, err = gofeed.NewParser().Parse(bytes.NewReader(b)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return f, nil
}

// FeedItems yields the items of a parsed feed with their index, leaving out any nil one.
func FeedItems(f *gofeed.Feed) iter.Seq2[int, *gofeed.Item] {
	return func(yield func(int, *gofeed.Item) bool) {
		for i, it := range f.Items {
			if it != nil && !yield(i, it) {
				return
			}
		}
	}
}

// FeedText is what a feed item says: its content, else (blank content) its description.
func FeedText(it *gofeed.Item) string {
	if strings.TrimSpace(it.Content) == "" {
		return it.Description
	}
	return it.Content
}

// FeedPosted is when a feed item was posted, in UTC, and the stamp an update without id
// is keyed by (that time in RFC 3339): its published time, else its updated time; zero
// and "" when it has neither readable.
func FeedPosted(it *gofeed.Item) (time.Time, string) {
	for _, t := range []*time.Time{it.PublishedParsed, it.UpdatedParsed} {
		if t != nil {
			return t.UTC(), t.UTC().Format(time.RFC3339Nano)
		}
	}
	return time.Time{}, ""
}

// LooksHTML reports whether a body starts like an HTML page; any other page that is no
// feed (XHTML behind an XML declaration, say) fails gofeed's detection.
func LooksHTML(b []byte) bool {
	head := bytes.ToLower(b[:min(len(b), 16)])
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}
