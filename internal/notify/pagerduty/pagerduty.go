// Package pagerduty is the PagerDuty receiver of notify: Events API v2, one alert per
// incident under dedup_key "<source>/<id>". A new incident at or above MinImpact
// triggers it, one that worsens to at least MinImpact (or reopens) triggers it again
// (PagerDuty folds that into the same alert), its resolution (or its removal from the
// page while open) resolves it;
// every other change set sends nothing, so on-call is paged once per incident. It sends
// and classifies; the notify.Deliverer owns retries, pacing and parking.
package pagerduty

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	pd "github.com/PagerDuty/go-pagerduty"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
	"github.com/statuswatch/statuswatch/internal/retryafter"
)

// DefaultAPIURL is the Events API's base; the client posts to <base>/v2/enqueue.
const DefaultAPIURL = "https://events.pagerduty.com"

// PagerDuty's limits on an event (Events API v2): the summary is cut at 1024
// characters by PagerDuty itself, the dedup_key at 255.
const (
	maxSummary   = 1024
	maxDedupKey  = 255
	maxDetail    = 2000 // each custom_details text, so the event stays far below 512 KB
	maxComponent = 255
)

// Options configure a Receiver.
type Options struct {
	// Name is the receiver's name in the config: the destination's key in counts,
	// metrics and errors. Empty: "pagerduty".
	Name string
	// RoutingKey is the Events API v2 integration key (routing_key_file). Required.
	RoutingKey string
	// APIURL is the Events API base (api_url); empty: DefaultAPIURL.
	APIURL string
	// HTTPClient sends every event; nil: a client with dial, TLS, header and overall
	// timeouts.
	HTTPClient *http.Client
	// MinImpact is the least impact that pages (the route's min_impact); empty: every
	// impact. Unknown impacts page whatever it is, as every min_impact filter lets them
	// through.
	MinImpact model.Impact
}

// Receiver sends events to PagerDuty. It is safe for concurrent use.
type Receiver struct {
	name, key string
	min       model.Impact
	client    *pd.Client
	now       func() time.Time
}

var (
	_ notify.Notifier = (*Receiver)(nil)
	_ notify.Checker  = (*Receiver)(nil)
)

// New returns a Receiver. It fails only on options that can never work.
func New(o Options) (*Receiver, error) {
	if strings.TrimSpace(o.RoutingKey) == "" {
		return nil, errors.New("pagerduty: no routing key")
	}
	base := o.APIURL
	if base == "" {
		base = DefaultAPIURL
	}
	if kit.HTTPURL(base) == nil {
		return nil, errors.New("pagerduty: api_url is not an http(s) URL")
	}
	switch o.MinImpact {
	case "", model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical:
	default:
		return nil, fmt.Errorf("pagerduty: min impact %q is not none, minor, major or critical", o.MinImpact)
	}
	r := &Receiver{name: cmp.Or(o.Name, "pagerduty"), key: strings.TrimSpace(o.RoutingKey), min: o.MinImpact, now: time.Now}
	r.client = pd.NewClient("", pd.WithV2EventsAPIEndpoint(strings.TrimRight(base, "/")))
	r.client.HTTPClient = recorder{kit.HTTPClientOr(o.HTTPClient)}
	return r, nil
}

// Destination is the one routing key: every source's events share its queue and its
// pause. PagerDuty needs no pacing at our volume; a 429 waits as it asks.
func (r *Receiver) Destination(string) notify.Destination {
	return notify.Destination{Key: r.name, Account: r.name}
}

// Action is what a notification does to its PagerDuty alert: "trigger", "resolve", or
// "" for nothing (no request is sent).
func (r *Receiver) Action(n *notify.Notification) string {
	if !kit.Incident(n) || n.Version.Incident.Kind == model.KindMaintenance {
		// Source events, components, digests, floods and maintenance never page.
		return ""
	}
	inc := &n.Version.Incident
	switch n.Message.Event {
	case model.EventResolved:
		return "resolve"
	case model.EventRemoved:
		// Gone from the page: the alert of an incident still open is resolved; one
		// resolved already was resolved then.
		if inc.Open() {
			return "resolve"
		}
		return ""
	case model.EventNew:
		if inc.Open() && inc.Impact.AtLeast(r.min) {
			return "trigger"
		}
		return ""
	}
	if !inc.Open() || !inc.Impact.AtLeast(r.min) {
		return ""
	}
	for _, c := range n.Version.Changes {
		switch {
		case c.Field == diff.FieldImpact && c.Before != nil && c.After != nil:
			// Worse, and below the bar before: the alert was not raised, or not this high.
			if before := model.Impact(*c.Before); model.Impact(*c.After).Worse(before) {
				return "trigger"
			}
		case c.Field == diff.FieldStatus && c.Before != nil && !model.Status(*c.Before).Open():
			return "trigger" // reopened after a resolution that resolved the alert
		}
	}
	return ""
}

// DedupKey is the alert's key: "<source>/<id>", the id as our UI and API write it, cut
// to PagerDuty's 255 bytes.
func DedupKey(n *notify.Notification) string {
	k := n.Message.Source + "/" + n.Message.IncidentID
	if len(k) > maxDedupKey {
		k = k[:maxDedupKey]
	}
	return k
}

// Event builds the event for n and action; exported for `watcher check -receivers` and
// the golden tests.
func (r *Receiver) Event(n *notify.Notification, action string) *pd.V2Event {
	e := &pd.V2Event{RoutingKey: r.key, Action: action, DedupKey: DedupKey(n), Client: "statuswatch"}
	if n.IncidentLink != "" {
		e.ClientURL = n.IncidentLink
	}
	if action != "trigger" {
		return e
	}
	inc := &n.Version.Incident
	details := map[string]any{
		"status":  kit.Words(inc.Status),
		"impact":  string(inc.Impact),
		"summary": kit.Cut(n.Version.Summary, maxDetail),
	}
	if len(inc.Components) > 0 {
		details["components"] = kit.Cut(strings.Join(inc.Components, ", "), maxDetail)
	}
	if u := kit.LatestUpdate(inc); u != nil && strings.TrimSpace(u.Body) != "" {
		details["latest_update"] = kit.Cut(strings.TrimSpace(u.Body), maxDetail)
	}
	if !inc.StartedAt.IsZero() {
		details["started_at"] = inc.StartedAt.UTC().Format(time.RFC3339)
	}
	e.Payload = &pd.V2Payload{
		Summary:   kit.CutBytes(kit.OneLine(notify.Headline(*n)), maxSummary),
		Source:    n.Message.Source,
		Severity:  Severity(inc.Impact),
		Timestamp: n.Version.ObservedAt.UTC().Format(time.RFC3339),
		Group:     kit.CutBytes(kit.OneLine(n.SourceTitle), maxComponent),
		Class:     string(inc.Kind),
		Details:   details,
	}
	if len(inc.Components) > 0 {
		e.Payload.Component = kit.CutBytes(kit.OneLine(strings.Join(inc.Components, ", ")), maxComponent)
	}
	if n.IncidentLink != "" {
		e.Links = append(e.Links, link{Href: n.IncidentLink, Text: "History and diffs in statuswatch"})
	}
	if u := kit.VendorURL(inc.URL); u != "" {
		e.Links = append(e.Links, link{Href: u, Text: "Vendor status page"})
	}
	return e
}

// link is one of an event's links.
type link struct {
	Href string `json:"href"`
	Text string `json:"text"`
}

// Severity maps an impact to PagerDuty's severities: critical → critical, major →
// error, minor → warning, anything else → info.
func Severity(i model.Impact) string {
	switch i {
	case model.ImpactCritical:
		return "critical"
	case model.ImpactMajor:
		return "error"
	case model.ImpactMinor:
		return "warning"
	}
	return "info"
}

// Send triggers or resolves n's alert, or does nothing for a change that does not page.
func (r *Receiver) Send(ctx context.Context, n *notify.Notification) (notify.Receipt, error) {
	action := r.Action(n)
	if action == "" {
		return notify.Receipt{}, nil
	}
	return notify.Receipt{}, r.send(ctx, r.Event(n, action))
}

// Check sends a trigger with text as its summary and at once its resolve, under a
// dedup_key of its own, for `watcher check -receivers` (notify.Checker): the routing
// key works if both are accepted. An empty text says the receiver works.
func (r *Receiver) Check(ctx context.Context, text string) error {
	if text = kit.OneLine(text); text == "" {
		text = "statuswatch test event: this receiver works"
	}
	e := &pd.V2Event{RoutingKey: r.key, Action: "trigger", DedupKey: "statuswatch/test", Client: "statuswatch",
		Payload: &pd.V2Payload{Summary: kit.CutBytes(text, maxSummary), Source: "statuswatch", Severity: "info",
			Timestamp: r.now().UTC().Format(time.RFC3339)}}
	if err := r.send(ctx, e); err != nil {
		return err
	}
	return r.send(ctx, &pd.V2Event{RoutingKey: r.key, Action: "resolve", DedupKey: "statuswatch/test"})
}

func (r *Receiver) send(ctx context.Context, e *pd.V2Event) error {
	a := &answer{}
	_, err := r.client.ManageEventWithContext(context.WithValue(ctx, answerKey{}, a), e)
	what := "pagerduty " + r.name
	switch {
	case err == nil:
		return nil
	case a.status == 0:
		return kit.NetError(what, err, r.key)
	case a.status >= 200 && a.status < 300:
		// Accepted, but the answer did not read as JSON: the event went through.
		return nil
	}
	var body struct {
		Status  string   `json:"status"`
		Message string   `json:"message"`
		Errors  []string `json:"errors"`
	}
	detail := ""
	if json.Unmarshal(a.body, &body) == nil {
		detail = strings.TrimSpace(strings.Join(append([]string{body.Message}, body.Errors...), "; "))
	}
	ferr := kit.HTTPError(what, a.status, retryafter.Parse(a.retryAfter, r.now()), detail, r.key)
	if a.status == http.StatusBadRequest && strings.Contains(strings.ToLower(detail), "routing") {
		// A bad routing key refuses every event: pause the receiver instead of parking
		// its messages one by one.
		ferr.(*notify.Error).Class = notify.Auth
	}
	return ferr
}

// answer is what the recorder saw of one request's answer: go-pagerduty keeps neither
// the status of an error nor the Retry-After header, nor caps what it reads.
type answer struct {
	status     int
	retryAfter string
	body       []byte
}

type answerKey struct{}

// recorder is the HTTP client go-pagerduty calls: it caps the answer's body and notes
// its status and Retry-After for the request's answer.
type recorder struct{ c *http.Client }

func (rc recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := rc.c.Do(req)
	if err != nil {
		return nil, err
	}
	body := kit.ReadAnswer(resp)
	if a, ok := req.Context().Value(answerKey{}).(*answer); ok {
		a.status, a.retryAfter, a.body = resp.StatusCode, resp.Header.Get("Retry-After"), body
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
