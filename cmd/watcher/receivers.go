package main

import (
	"fmt"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/webhook"
)

// receiverKind is how one kind of receiver (config receivers:) is built.
type receiverKind struct {
	// build makes the Notifier of a receiver of this kind from its config.
	build func(r *config.Receiver, cfg *config.Config) (notify.Notifier, error)
	// batches is whether the kind takes a digest of old messages and a flood's one
	// message (people read it, as in Slack); false sends every message one by one,
	// as a machine on the other end wants (a webhook, PagerDuty's trigger and resolve).
	batches bool
}

// receiverKinds are the receivers this watcher can deliver to, by config kind. A new
// kind is its package under internal/notify and one line here; config parses its block.
var receiverKinds = map[string]receiverKind{
	config.ReceiverWebhook: {build: newWebhook},
}

func newWebhook(r *config.Receiver, cfg *config.Config) (notify.Notifier, error) {
	w := r.Webhook
	headers := make(map[string]string, len(w.Headers))
	for k, v := range w.Headers {
		headers[k] = v.Value()
	}
	return webhook.New(webhook.Options{Name: r.Name, URL: w.URL.Value(), Secret: w.Secret.Value(), Headers: headers, UserAgent: cfg.HTTP.UserAgent})
}

// newReceiver builds the Notifier of r, and says whether it batches.
func newReceiver(r *config.Receiver, cfg *config.Config) (notify.Notifier, bool, error) {
	k, ok := receiverKinds[r.Kind]
	if !ok {
		return nil, false, fmt.Errorf("receiver %s: kind %s is not available in this build of watcher", r.Name, r.Kind)
	}
	n, err := k.build(r, cfg)
	if err != nil {
		return nil, false, fmt.Errorf("receiver %s: %w", r.Name, err)
	}
	return n, k.batches, nil
}
