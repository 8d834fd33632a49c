// Package teams is the Microsoft Teams receiver of notify: a Teams Workflows webhook
// ("When a Teams webhook request is received", then "Post card in a chat or channel")
// gets one message with one Adaptive Card per change set — the headline, the status,
// the new updates and the word diff of the rest, removed words struck through and added
// ones underlined, cut under Teams' size limit with a link to the full diff. It sends
// and classifies; the notify.Deliverer owns pacing, retries and parking.
package teams

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
	"github.com/statuswatch/statuswatch/internal/retryafter"
)

// Interval paces one webhook: Teams throttles a webhook that posts faster than a few
// messages a second, and a channel read by people needs no more.
const Interval = time.Second

// Options configure a Receiver.
type Options struct {
	// Name is the receiver's name in the config: the destination's key in counts,
	// metrics and errors (the URL is a secret and never shows). Empty: "teams".
	Name string
	// WebhookURL is the Workflows webhook's URL (webhook_url_file). Required.
	WebhookURL string
	// HTTPClient sends every card; nil: a client with dial, TLS, header and overall
	// timeouts.
	HTTPClient *http.Client
}

// Receiver posts cards to a Teams Workflows webhook. It is safe for concurrent use.
type Receiver struct {
	name, url string
	http      *http.Client
	now       func() time.Time
}

var (
	_ notify.Notifier = (*Receiver)(nil)
	_ notify.Checker  = (*Receiver)(nil)
)

// New returns a Receiver. It fails only on options that can never work.
func New(o Options) (*Receiver, error) {
	if kit.HTTPURL(o.WebhookURL) == nil {
		return nil, errors.New("teams: the webhook URL is not an http(s) URL")
	}
	return &Receiver{name: cmp.Or(o.Name, "teams"), url: o.WebhookURL, http: kit.HTTPClientOr(o.HTTPClient), now: time.Now}, nil
}

// Destination is the one webhook, paced at Interval.
func (r *Receiver) Destination(string) notify.Destination {
	return notify.Destination{Key: r.name, Account: r.name, Interval: Interval}
}

// Send posts n's card.
func (r *Receiver) Send(ctx context.Context, n *notify.Notification) (notify.Receipt, error) {
	return notify.Receipt{}, r.post(ctx, encode(render(n)))
}

// Check posts a card with text, for `watcher check -receivers` (notify.Checker). An
// empty text says the receiver works.
func (r *Receiver) Check(ctx context.Context, text string) error {
	if text = kit.OneLine(text); text == "" {
		text = "statuswatch test message: this receiver works"
	}
	n := &notify.Notification{Message: model.Message{Source: "statuswatch", Event: model.EventSourceUp}, SourceTitle: "statuswatch test"}
	m := render(n)
	m.Attachments[0].Content.Body[0].Inlines[0].Text = kit.Cut(text, 1000)
	return r.post(ctx, encode(m))
}

// post sends one message. Workflows answers 202 Accepted (200 from older flows); the
// URL carries the webhook's signature, so it never appears in an error.
func (r *Receiver) post(ctx context.Context, body []byte) error {
	what := "teams " + r.name
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return notify.Classify(notify.Auth, errors.New(what+": the webhook URL cannot be requested"))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.http.Do(req)
	if err != nil {
		return kit.NetError(what, err, r.url)
	}
	answer := kit.ReadAnswer(resp)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	return kit.HTTPError(what, resp.StatusCode, retryafter.Parse(resp.Header.Get("Retry-After"), r.now()), errorText(answer), r.url)
}

// errorText is the reason in a Workflows error answer ({"error":{"code","message"}}),
// or the answer itself when it is short text.
func errorText(b []byte) string {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && (e.Error.Code != "" || e.Error.Message != "") {
		return e.Error.Code + " " + e.Error.Message
	}
	if len(b) <= 300 && !bytes.ContainsAny(b, "<{") {
		return string(b)
	}
	return ""
}
