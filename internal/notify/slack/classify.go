package slack

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/statuswatch/statuswatch/internal/notify"
)

// codes maps Slack's ok:false error strings to what delivery does about them
// (docs/design.md §7 Delivery). A code not listed is Rejected: tried once as plain text, then
// parked where `watcher outbox` shows it, rather than retried forever.
var codes = map[string]notify.Class{
	// The token: pause everything sent with it; nothing is dropped.
	"invalid_auth":           notify.Auth,
	"not_authed":             notify.Auth,
	"token_revoked":          notify.Auth,
	"token_expired":          notify.Auth,
	"account_inactive":       notify.Auth,
	"missing_scope":          notify.Auth,
	"not_allowed_token_type": notify.Auth,
	"no_permission":          notify.Auth,
	"access_denied":          notify.Auth,
	"ekm_access_denied":      notify.Auth,
	"org_login_required":     notify.Auth,

	// The channel: park its messages, the other channels go on.
	"channel_not_found":       notify.ChannelGone,
	"not_in_channel":          notify.ChannelGone,
	"is_archived":             notify.ChannelGone,
	"channel_is_archived":     notify.ChannelGone,
	"restricted_action":       notify.ChannelGone,
	"team_access_not_granted": notify.ChannelGone,
	// chat.update only: the root is gone or no longer ours to edit; the edit is dropped.
	"message_not_found":   notify.ChannelGone,
	"cant_update_message": notify.ChannelGone,
	"edit_window_closed":  notify.ChannelGone,

	// The message: once more as plain text, then parked.
	"invalid_blocks":        notify.Rejected,
	"invalid_blocks_format": notify.Rejected,
	"msg_too_long":          notify.Rejected,
	"msg_blocks_too_long":   notify.Rejected,
	"invalid_attachments":   notify.Rejected,
	"too_many_attachments":  notify.Rejected,
	"no_text":               notify.Rejected,
	"invalid_arguments":     notify.Rejected,
	"invalid_form_data":     notify.Rejected,

	// Slack's side: back off and retry.
	"ratelimited":         notify.RateLimited,
	"rate_limited":        notify.RateLimited,
	"internal_error":      notify.Transient,
	"fatal_error":         notify.Transient,
	"service_unavailable": notify.Transient,
	"request_timeout":     notify.Transient,
}

// classify turns a slack-go error into a notify.Error: the one place where Slack's
// answers get their meaning. what names the call ("chat.postMessage", or a webhook's
// name); hook is the webhook URL, "" for the Web API.
//
// The error text is rebuilt rather than wrapped: a network error from a webhook quotes
// its URL, which is a secret, and the text is logged, stored with the message and shown
// in the UI.
func (s *Notifier) classify(what, hook string, err error) error {
	e := &notify.Error{Class: notify.Transient}
	var text string
	var sc slackapi.StatusCodeError
	var se slackapi.SlackErrorResponse
	var ue *url.Error
	switch rl, ok := errors.AsType[*slackapi.RateLimitedError](err); {
	case ok:
		e.Class, e.RetryAfter = notify.RateLimited, rl.RetryAfter
		text = fmt.Sprintf("rate limited, retry after %s", rl.RetryAfter)
	case errors.As(err, &sc):
		e.Class = statusClass(sc.Code, hook != "")
		text = fmt.Sprintf("HTTP %d", sc.Code)
		if hook != "" {
			text += webhookHint(sc.Code)
		}
	case errors.As(err, &se):
		c, known := codes[se.Err]
		if !known {
			c = notify.Rejected
		}
		e.Class, text = c, se.Err
	case errors.As(err, &ue):
		// Network errors and timeouts: transient. The URL it quotes is left out.
		text = ue.Op + ": " + ue.Err.Error()
	default:
		text = err.Error()
	}
	e.Err = errors.New("slack " + what + ": " + s.redact(text, hook))
	return e
}

// statusClass classifies an HTTP status without an ok:false body: every webhook error,
// and the Web API's rare non-200 answers.
func statusClass(code int, webhook bool) notify.Class {
	switch {
	case code == http.StatusTooManyRequests:
		return notify.RateLimited
	case code >= 500:
		return notify.Transient
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return notify.Auth
	case code == http.StatusNotFound || code == http.StatusGone:
		if webhook {
			return notify.ChannelGone // the webhook was removed, or its channel archived
		}
		return notify.Auth // a wrong api_url: a config error, like a bad token
	case code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge:
		return notify.Rejected
	}
	return notify.Transient
}

// webhookHint says what Slack's webhook errors usually mean, since slack-go drops the
// body that says it.
func webhookHint(code int) string {
	switch code {
	case http.StatusBadRequest:
		return " (invalid payload)"
	case http.StatusForbidden:
		return " (webhook refused: revoked or not allowed)"
	case http.StatusNotFound:
		return " (no such webhook)"
	case http.StatusGone:
		return " (webhook's channel archived or deleted)"
	}
	return ""
}

// redact removes secrets from an error text: the webhook URL (whole, or any part after
// the host that a transport error may quote), the token and API URL credentials.
func (s *Notifier) redact(text, hook string) string {
	secrets := s.secret
	if hook != "" {
		secrets = append(secrets[:len(secrets):len(secrets)], hook)
		if i := strings.Index(hook, "://"); i >= 0 {
			if j := strings.IndexByte(hook[i+3:], '/'); j >= 0 {
				secrets = append(secrets, hook[i+3+j:])
			}
		}
	}
	for _, sec := range secrets {
		if sec != "" {
			text = strings.ReplaceAll(text, sec, "<redacted>")
		}
	}
	return text
}
