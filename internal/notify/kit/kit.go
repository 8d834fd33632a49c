// Package kit holds what every receiver (Slack, webhook, PagerDuty, Teams, email)
// shares: a bounded HTTP client, the meaning of an HTTP answer for delivery, Retry-After,
// secrets kept out of error texts, and the small text rules every rendering of vendor
// text follows (safe links, cuts at a word). It renders nothing of its own.
package kit

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// MaxAnswer caps how much of a receiver's answer is read: enough for any error object,
// never a whole page a misconfigured URL serves.
const MaxAnswer = 64 << 10

// NewHTTPClient returns a client bounded at every stage, so that a receiver that stops
// answering delays its own queue instead of hanging it.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = 20 * time.Second
	t.IdleConnTimeout = 90 * time.Second
	t.MaxConnsPerHost = 4
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// HTTPClientOr is c, or NewHTTPClient's client when c is nil: a receiver's default.
func HTTPClientOr(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return NewHTTPClient()
}

// StatusClass says what delivery does about an HTTP error status (docs/design.md §7
// Delivery): 429 waits, 5xx and 408 back off, 401 and 403 pause the receiver (its
// credential was refused), 404 and 410 park its messages (the endpoint is gone), 400,
// 413 and 422 reject the message (once more as plain text, then parked). Anything else
// backs off: an unknown answer delays a message but never loses it.
func StatusClass(code int) notify.Class {
	switch {
	case code == http.StatusTooManyRequests:
		return notify.RateLimited
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return notify.Auth
	case code == http.StatusNotFound || code == http.StatusGone:
		return notify.ChannelGone
	case code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge || code == http.StatusUnprocessableEntity:
		return notify.Rejected
	}
	return notify.Transient
}

// HTTPError is a classified error for an HTTP answer that was not a success: its class
// from StatusClass, the wait of a 429, and text "<what>: HTTP <code>[: detail]" with
// every secret replaced by "<redacted>".
func HTTPError(what string, code int, retryAfter time.Duration, detail string, secrets ...string) error {
	text := fmt.Sprintf("%s: HTTP %d", what, code)
	if detail = strings.TrimSpace(detail); detail != "" {
		text += ": " + Cut(strings.Join(strings.Fields(detail), " "), 300)
	}
	e := &notify.Error{Class: StatusClass(code), Err: errors.New(Redact(text, secrets...))}
	if e.Class == notify.RateLimited {
		e.RetryAfter = retryAfter
	}
	return e
}

// NetError is a transient error for a request that got no answer. The URL a transport
// error quotes is left out (a webhook URL is a secret), and so is any other secret.
func NetError(what string, err error, secrets ...string) error {
	text := err.Error()
	if ue, ok := errors.AsType[*url.Error](err); ok {
		text = ue.Op + ": " + ue.Err.Error()
	}
	return notify.Classify(notify.Transient, errors.New(Redact(what+": "+text, secrets...)))
}

// ReadAnswer reads at most MaxAnswer bytes of an answer's body, drains a little more
// so the connection can be reused, and closes it.
func ReadAnswer(resp *http.Response) []byte {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxAnswer))
	return b
}

// Redact replaces each non-empty secret in text with "<redacted>", and for a URL also
// its path and query, which a transport error may quote without the host.
func Redact(text string, secrets ...string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		text = strings.ReplaceAll(text, s, "<redacted>")
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			if rest := strings.TrimPrefix(s, u.Scheme+"://"+u.Host); len(rest) > 1 {
				text = strings.ReplaceAll(text, rest, "<redacted>")
			}
		}
	}
	return text
}

// VendorURL returns u when it is an absolute http(s) URL, its scheme in lower case
// ("HTTPS://" → "https://"), else "": a vendor's link is shown only when it cannot be a
// javascript:, data: or slack:// trick.
func VendorURL(u string) string {
	p := HTTPURL(u)
	if p == nil {
		return ""
	}
	return p.Scheme + u[len(p.Scheme):]
}

// HTTPURL parses s when it is an absolute http(s) URL, else it is nil: the only URLs a
// receiver posts to or shows.
func HTTPURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return u
}

// Words writes a status or impact as people read it: "in_progress" → "in progress".
func Words[S ~string](s S) string { return strings.ReplaceAll(string(s), "_", " ") }

// OneLine folds a vendor string's whitespace, line breaks included, to single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Cut shortens s to at most limit runes, after the last whole word that fits, ending
// it with "…"; a single word longer than that is cut inside. Invalid UTF-8 reads as
// U+FFFD. Cut is for plain text: escape after cutting.
func Cut(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	if limit == 1 {
		return "…"
	}
	room, n, end, lastSpace := limit-1, 0, 0, -1
	for i, r := range s {
		if n == room {
			break
		}
		if unicode.IsSpace(r) {
			lastSpace = i
		}
		n++
		end = i + utf8.RuneLen(r)
	}
	out := s[:end]
	if lastSpace > 0 && !unicode.IsSpace(rune(s[end])) {
		out = s[:lastSpace]
	}
	return strings.TrimRightFunc(out, unicode.IsSpace) + "…"
}

// CutBytes shortens s to at most limit bytes, as Cut does, for platforms that count
// bytes (PagerDuty's summary).
func CutBytes(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= limit {
		return s
	}
	room := limit - len("…")
	if room <= 0 {
		return "…"
	}
	end := 0
	for i, r := range s {
		if i+utf8.RuneLen(r) > room {
			break
		}
		end = i + utf8.RuneLen(r)
	}
	out := s[:end]
	if sp := strings.LastIndexFunc(out, unicode.IsSpace); sp > 0 && !unicode.IsSpace(rune(s[end])) {
		out = out[:sp]
	}
	return strings.TrimRightFunc(out, unicode.IsSpace) + "…"
}

// LatestUpdate is the update posted last (providers list them in either order); nil
// when there is none.
func LatestUpdate(inc *model.Incident) *model.Update {
	var latest *model.Update
	for i := range inc.Updates {
		u := &inc.Updates[i]
		if latest == nil || !u.PostedAt.Before(latest.PostedAt) {
			latest = u
		}
	}
	return latest
}

// AddedUpdates are the updates a change set adds ("updates[<id>]" with no before), in
// the order they were posted.
func AddedUpdates(v *model.Version) []*model.Update {
	var out []*model.Update
	for _, c := range v.Changes {
		f := c.Field
		if c.Before != nil || c.After == nil || !strings.HasPrefix(f, "updates[") || !strings.HasSuffix(f, "]") {
			continue
		}
		id := f[len("updates[") : len(f)-1]
		for i := range v.Incident.Updates {
			if v.Incident.Updates[i].ID == id {
				out = append(out, &v.Incident.Updates[i])
				break
			}
		}
	}
	return out
}

// Incident reports whether n announces a change of an incident or maintenance (it has
// its version), rather than a source event, a component message, a digest or a flood.
func Incident(n *notify.Notification) bool {
	return n.Version != nil && n.Message.IncidentID != "" && n.Digest == nil && n.Flood == nil && n.Components == nil
}
