// Package webhook is the generic JSON receiver of notify: one signed POST per
// notification, of a small fixed document (Payload), for the tools of whoever runs
// watcher. The body is signed with HMAC-SHA256 (X-Statuswatch-Signature) and every
// message carries its outbox id (X-Statuswatch-Delivery), the same on every retry, so
// the receiving end can check where it came from and drop a repeat. It sends and
// classifies; the notify.Deliverer owns retries, backoff, pausing and parking.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
	"github.com/statuswatch/statuswatch/internal/notify/route"
	"github.com/statuswatch/statuswatch/internal/retryafter"
)

// The headers of every delivery.
const (
	HeaderSignature = "X-Statuswatch-Signature" // "sha256=" + hex HMAC-SHA256 of the body
	HeaderDelivery  = "X-Statuswatch-Delivery"  // the outbox id, the same on every retry
)

// DefaultMaxBody caps a payload: vendor texts past it are cut (with "…"), the link to
// the incident in our UI telling the rest.
const DefaultMaxBody = 256 << 10

// Options configure a Notifier.
type Options struct {
	// Name is the receiver's name, for errors, logs and the destination key: never the
	// URL, which is a secret.
	Name string
	// URL is where deliveries are POSTed (http or https).
	URL string
	// Secret is the HMAC-SHA256 key of the signature.
	Secret string
	// Headers are extra request headers (config headers:).
	Headers map[string]string
	// UserAgent identifies watcher; empty: "statuswatch".
	UserAgent string
	// MaxBody caps a payload's size in bytes; 0: DefaultMaxBody.
	MaxBody int
	// HTTPClient sends every request; nil: a client with timeouts at every stage. It
	// must not follow redirects (New makes sure of it for the default client).
	HTTPClient *http.Client
	// Now is the clock Retry-After dates are read by; nil: time.Now.
	Now func() time.Time
}

// Notifier POSTs notifications to one webhook. It is safe for concurrent use.
type Notifier struct {
	o    Options
	http *http.Client
}

var (
	_ notify.Notifier = (*Notifier)(nil)
	_ notify.Checker  = (*Notifier)(nil)
)

// New returns a Notifier, or an error for options that can never work.
func New(o Options) (*Notifier, error) {
	if kit.HTTPURL(o.URL) == nil {
		return nil, fmt.Errorf("webhook %s: url is not an http(s) URL", o.Name)
	}
	if o.Secret == "" {
		return nil, fmt.Errorf("webhook %s: no secret", o.Name)
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.UserAgent == "" {
		o.UserAgent = "statuswatch"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	n := &Notifier{o: o, http: o.HTTPClient}
	if n.http == nil {
		n.http = NewHTTPClient()
	}
	return n, nil
}

// NewHTTPClient is the default client, kit.NewHTTPClient's, never following a
// redirect (a POST redirected would be a GET, or a signed body sent to another host).
func NewHTTPClient() *http.Client {
	c := kit.NewHTTPClient()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// Destination is the webhook for every source: its own queue, unpaced (a machine
// reads it), its own pause.
func (w *Notifier) Destination(string) notify.Destination {
	key := "webhook:" + w.o.Name
	return notify.Destination{Key: key, Account: key}
}

// Send POSTs n's payload, signed, with its outbox id as the delivery id.
func (w *Notifier) Send(ctx context.Context, n *notify.Notification) (notify.Receipt, error) {
	p := Build(n)
	body, err := Encode(p, w.o.MaxBody)
	if err != nil {
		return notify.Receipt{}, notify.Park(fmt.Errorf("webhook %s: %w", w.o.Name, err))
	}
	return notify.Receipt{}, w.post(ctx, deliveryID(n, body), body)
}

// Check sends a test delivery (`watcher check -receivers`).
func (w *Notifier) Check(ctx context.Context, text string) error {
	p := Payload{Version: 1, Event: "test", Summary: text, Changes: []Change{}, ObservedAt: w.o.Now().UTC()}
	body, err := Encode(p, w.o.MaxBody)
	if err != nil {
		return err
	}
	return w.post(ctx, "test-"+strconv.FormatInt(p.ObservedAt.UnixNano(), 10), body)
}

func (w *Notifier) post(ctx context.Context, delivery string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.o.URL, bytes.NewReader(body))
	if err != nil {
		// Only a URL New refused could fail here; the error would name it.
		return notify.Classify(notify.Auth, fmt.Errorf("webhook %s: cannot build a request to its url", w.o.Name))
	}
	for k, v := range w.o.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", w.o.UserAgent)
	req.Header.Set(HeaderSignature, Sign(w.o.Secret, body))
	req.Header.Set(HeaderDelivery, delivery)
	resp, err := w.http.Do(req)
	if err != nil {
		// A *url.Error names the URL, which is a secret: keep what went wrong only.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("webhook %s: %v", w.o.Name, err)
	}
	return w.classify(resp, kit.ReadAnswer(resp))
}

// classify turns an answer into nil or a classified error: 2xx delivered; 429, and a
// 5xx with a Retry-After, wait that long; other 5xx back off; 401 and 403 pause the
// receiver (its URL or secret is wrong for every message); any other answer parks the
// message alone.
func (w *Notifier) classify(resp *http.Response, answer []byte) error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	err := fmt.Errorf("webhook %s: HTTP %d%s", w.o.Name, code, excerpt(answer))
	retryAfter := retryafter.Parse(resp.Header.Get("Retry-After"), w.o.Now())
	switch {
	case code == http.StatusTooManyRequests, code >= 500 && retryAfter > 0:
		return &notify.Error{Class: notify.RateLimited, RetryAfter: retryAfter, Err: err}
	case code >= 500, code == http.StatusRequestTimeout:
		return err // transient
	case code == http.StatusUnauthorized, code == http.StatusForbidden:
		return notify.Classify(notify.Auth, err)
	}
	return notify.Park(err)
}

// excerpt is the start of an answer's body on one line, for an error: the receiver's
// own words, never ours.
func excerpt(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, string(b))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return ": " + s
}

// Sign is the signature header's value of body: "sha256=" and the hex HMAC-SHA256 of
// the body with secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature is body's with secret, in constant time.
func Verify(secret string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, body)), []byte(signature))
}

// deliveryID is the outbox id of n's message; a digest or a flood (which have none)
// is named by its body's hash.
func deliveryID(n *notify.Notification, body []byte) string {
	if n.Message.ID != 0 && n.Digest == nil && n.Flood == nil {
		return strconv.FormatUint(n.Message.ID, 10)
	}
	sum := sha256.Sum256(body)
	return "batch-" + hex.EncodeToString(sum[:8])
}

// Payload is the document every delivery POSTs.
type Payload struct {
	Version int    `json:"version"` // of the document: 1
	Event   string `json:"event"`   // new, update, edit, status, resolved, postmortem, removed, maintenance, component, source_down, source_up, maintenance_soon
	Source  string `json:"source"`  // the source's name in the config
	// Incident is the incident the notification is about; null for a source event or
	// a component message in no incident's thread.
	Incident *Incident `json:"incident"`
	Summary  string    `json:"summary"` // one line
	// Changes are the change set's fields, before and after (null: not present); a
	// first version's lists every field.
	Changes    []Change  `json:"changes"`
	ObservedAt time.Time `json:"observed_at"`
}

// Incident is the incident of a Payload, as of the version announced.
type Incident struct {
	ID     string `json:"id"` // its id in our URLs and API
	Title  string `json:"title"`
	Status string `json:"status"`
	Impact string `json:"impact"`
	URL    string `json:"url"`    // the vendor's page of it
	UIURL  string `json:"ui_url"` // its page in our UI; empty without base_url
}

// Change is one field's change.
type Change struct {
	Field  string  `json:"field"`
	Before *string `json:"before"`
	After  *string `json:"after"`
}

// Build makes n's payload.
func Build(n *notify.Notification) Payload {
	m := n.Message
	p := Payload{Version: 1, Source: m.Source, Changes: []Change{}, ObservedAt: m.CreatedAt.UTC()}
	nt := model.Notice{Source: m.Source, Event: m.Event}
	if v := n.Version; v != nil {
		inc := &v.Incident
		nt.Incident, nt.Changes = inc, v.Changes
		p.Incident = &Incident{ID: m.IncidentID, Title: inc.Title, Status: string(inc.Status), Impact: string(inc.Impact),
			URL: inc.URL, UIURL: n.IncidentLink}
		p.ObservedAt = v.ObservedAt.UTC()
		p.Summary = v.Summary
		if m.Event != model.EventRemoved {
			for _, c := range v.Changes {
				p.Changes = append(p.Changes, Change{Field: c.Field, Before: c.Before, After: c.After})
			}
		}
	}
	switch {
	case n.Digest != nil:
		p.Event, p.Summary = "digest", notify.DigestLine(n.Digest)
		return p
	case n.Flood != nil:
		p.Event, p.Summary = "flood", notify.FloodLine(n.SourceTitle, n.Flood)
		return p
	case n.Components != nil:
		p.ObservedAt = n.Components.ObservedAt.UTC()
		p.Summary = notify.ComponentHeadline(n, false)
		p.Changes = []Change{}
		for _, c := range n.Components.Changes {
			if !c.Told || c.Incident != m.IncidentID {
				continue
			}
			nt.Components = append(nt.Components, c.Component)
			from, to := string(c.From), string(c.To)
			ch := Change{Field: "components[" + c.Component + "]", Before: &from, After: &to}
			if c.From == "" {
				ch.Before = nil
			}
			if c.To == "" {
				ch.After = nil
			}
			p.Changes = append(p.Changes, ch)
		}
		if p.Incident == nil && m.IncidentID != "" {
			p.Incident = &Incident{ID: m.IncidentID, Title: n.IncidentTitle}
		}
	case m.Event == model.EventRemoved:
		p.Summary = "The incident is no longer on the vendor's page."
	case notify.IsReminder(&m) && n.Version != nil:
		// A reminder is no change: its summary says when the window starts.
		p.Summary = notify.Headline(*n) + " (" + notify.Window(&n.Version.Incident) + ")"
		p.Changes, p.ObservedAt = []Change{}, m.CreatedAt.UTC()
	case n.Version == nil:
		p.Summary = notify.Headline(*n)
		if m.Text != "" {
			p.Summary += ": " + m.Text
		}
	}
	if p.Summary == "" {
		p.Summary = notify.Headline(*n)
	}
	p.Event = route.Event(&nt)
	return p
}

// Encode marshals p within maxBody bytes: past it, the changes' texts are cut (with
// "…") to shorter and shorter lengths, then the changes are dropped from the end, so
// that a vendor's novel never makes a delivery that cannot be sent. The summary and
// the incident's ui_url tell the rest.
func Encode(p Payload, maxBody int) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil || len(b) <= maxBody {
		return b, err
	}
	for limit := 4096; limit >= 64; limit /= 4 {
		q := p
		q.Changes = make([]Change, len(p.Changes))
		for i, c := range p.Changes {
			q.Changes[i] = Change{Field: cut(c.Field, 256), Before: cutp(c.Before, limit), After: cutp(c.After, limit)}
		}
		q.Summary = cut(p.Summary, 1024)
		if q.Incident != nil {
			inc := *q.Incident
			inc.Title = cut(inc.Title, 1024)
			q.Incident = &inc
		}
		if b, err = json.Marshal(q); err != nil || len(b) <= maxBody {
			return b, err
		}
		p = q
	}
	for len(p.Changes) > 0 {
		p.Changes = p.Changes[:len(p.Changes)/2]
		if b, err = json.Marshal(p); err != nil || len(b) <= maxBody {
			return b, err
		}
	}
	return nil, fmt.Errorf("payload of %d bytes is over the cap of %d even without its changes", len(b), maxBody)
}

// cut shortens s to at most n runes, ending it with "…" when it was longer.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func cutp(s *string, n int) *string {
	if s == nil {
		return nil
	}
	c := cut(*s, n)
	return &c
}
