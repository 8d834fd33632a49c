// Package slack is the Slack sink of notify: with a bot token, one thread per incident
// (a root card, one reply per change set, the root edited to show where the incident
// stands) and per spell of a source's components that no incident took (a root
// "<Vendor>: Actions degraded — no incident posted", replies, the root edited to the
// components' state); with an incoming webhook, one self-contained message per change
// set. It sends
// and classifies; the notify.Deliverer owns pacing, retries, parking and the archive.
package slack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
)

// Interval is the pacing Slack asks for: about one message a second per channel, and
// per webhook. Beyond it Slack answers 429.
const Interval = time.Second

// botAccount is the Destination.Account of every bot-token channel: one token, so one
// auth error pauses them all.
const botAccount = "slack-token"

// Options configure a Notifier.
type Options struct {
	// Token is the bot token (slack.token); empty: webhooks only.
	Token string
	// APIURL is the Web API base including "/api/" (slack.api_url); empty: Slack's own.
	APIURL string
	// Route gives a source's channel (its own `channel`, else slack.channel) and webhook
	// URL (its own `webhook_url`, else slack.webhook_url). A webhook wins over a channel.
	Route func(source string) (channel, webhookURL string)
	// HTTPClient sends every request; nil: a client with dial, TLS, header and overall
	// timeouts, since slack-go's default client has none.
	HTTPClient *http.Client
}

// Notifier posts notifications to Slack. It is safe for concurrent use.
type Notifier struct {
	api    *slackapi.Client // nil without a token
	http   *http.Client
	route  func(string) (string, string)
	secret []string // strings that must never appear in an error: token, API URL credentials
}

var _ notify.Threader = (*Notifier)(nil)

// New returns a Notifier. It fails only on options that can never work.
func New(o Options) (*Notifier, error) {
	if o.Route == nil {
		return nil, errors.New("slack: no route")
	}
	if o.APIURL != "" {
		if kit.HTTPURL(o.APIURL) == nil {
			return nil, errors.New("slack: api_url is not an http(s) URL")
		}
	}
	// Bounded at every stage: a Slack that stops answering delays delivery.
	n := &Notifier{http: kit.HTTPClientOr(o.HTTPClient), route: o.Route}
	if o.Token != "" {
		n.secret = append(n.secret, o.Token, url.QueryEscape(o.Token))
		opts := []slackapi.Option{slackapi.OptionHTTPClient(n.http)}
		if o.APIURL != "" {
			base := o.APIURL
			if !strings.HasSuffix(base, "/") {
				base += "/"
			}
			opts = append(opts, slackapi.OptionAPIURL(base))
			if u, _ := url.Parse(base); u.User != nil {
				n.secret = append(n.secret, u.User.String())
			}
		}
		n.api = slackapi.New(o.Token, opts...)
	}
	return n, nil
}

// Destination routes a source: its webhook if it has one, else its channel through the
// bot token. A webhook is named by a hash of its URL, which is a secret.
func (s *Notifier) Destination(source string) notify.Destination {
	ch, hook := s.route(source)
	switch {
	case hook != "":
		name := WebhookName(hook)
		return notify.Destination{Key: name, Account: name, Interval: Interval}
	case s.api != nil && ch != "":
		return notify.Destination{Key: ch, Account: botAccount, Interval: Interval, Threads: true}
	}
	return notify.Destination{Key: "unrouted", Account: "unrouted"}
}

// WebhookName names a webhook in counts, logs and errors without giving its URL away.
func WebhookName(webhookURL string) string {
	sum := sha256.Sum256([]byte(webhookURL))
	return "webhook-" + hex.EncodeToString(sum[:4])
}

// Send posts n: a root card, a reply in n.Thread, a source event or a digest through the
// bot token, or one self-contained message through a webhook. The receipt names the
// channel ID and ts Slack gave a bot message.
func (s *Notifier) Send(ctx context.Context, n *notify.Notification) (notify.Receipt, error) {
	ch, hook := s.route(n.Message.Source)
	switch {
	case hook != "":
		return notify.Receipt{}, s.webhook(ctx, hook, build(n, true))
	case s.api != nil && ch != "":
	default:
		return notify.Receipt{}, notify.Classify(notify.Auth,
			fmt.Errorf("slack: no route for source %s: neither a webhook_url nor a bot token and channel", n.Message.Source))
	}
	m := build(n, false)
	opts := s.options(m, n.PlainText)
	if n.Thread != nil && n.Digest == nil && (n.Message.IncidentID != "" || n.Components != nil) {
		ch = n.Thread.Channel
		opts = append(opts, slackapi.MsgOptionTS(n.Thread.TS))
		if m.Broadcast {
			opts = append(opts, slackapi.MsgOptionBroadcast())
		}
	}
	gotCh, ts, err := s.api.PostMessageContext(ctx, ch, opts...)
	if err != nil {
		return notify.Receipt{}, s.classify("chat.postMessage", "", err)
	}
	return notify.Receipt{Channel: gotCh, TS: ts}, nil
}

// UpdateRoot rewrites the root in n.Thread to show the incident as of n.Version, or the
// component thread's components as of n.Components. Blocks
// are always sent, empty for plain text: chat.update keeps the old blocks otherwise, and
// they would go on showing a stale status.
func (s *Notifier) UpdateRoot(ctx context.Context, n *notify.Notification) error {
	if s.api == nil || n.Thread == nil || n.Version == nil && n.Components == nil {
		return nil
	}
	m := renderRoot(n)
	opts := s.options(m, n.PlainText)
	if n.PlainText {
		opts = append(opts, slackapi.MsgOptionBlocks())
	}
	if _, _, _, err := s.api.UpdateMessageContext(ctx, n.Thread.Channel, n.Thread.TS, opts...); err != nil {
		return s.classify("chat.update", "", err)
	}
	return nil
}

// options are the chat.* parameters every message gets. parse=none and no unfurling:
// Slack must take the text exactly as built, and a vendor's links must not blow up into
// previews.
func (s *Notifier) options(m message, plain bool) []slackapi.MsgOption {
	opts := []slackapi.MsgOption{
		slackapi.MsgOptionText(m.Text, false),
		slackapi.MsgOptionParse(false),
		slackapi.MsgOptionDisableLinkUnfurl(),
		slackapi.MsgOptionDisableMediaUnfurl(),
	}
	if !plain && len(m.Blocks) > 0 {
		opts = append(opts, slackapi.MsgOptionBlocks(m.Blocks...))
	}
	return opts
}

func (s *Notifier) webhook(ctx context.Context, hook string, m message) error {
	no := false
	msg := &slackapi.WebhookMessage{Text: m.Text, Parse: "none", UnfurlLinks: &no, UnfurlMedia: &no}
	if len(m.Blocks) > 0 {
		msg.Blocks = &slackapi.Blocks{BlockSet: m.Blocks}
	}
	if err := slackapi.PostWebhookCustomHTTPContext(ctx, hook, s.http, msg); err != nil {
		return s.classify(WebhookName(hook), hook, err)
	}
	return nil
}
