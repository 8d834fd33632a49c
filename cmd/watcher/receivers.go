package main

import (
	"fmt"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/email"
	"github.com/statuswatch/statuswatch/internal/notify/pagerduty"
	"github.com/statuswatch/statuswatch/internal/notify/teams"
	"github.com/statuswatch/statuswatch/internal/notify/webhook"
)

// receiverKind is how one kind of receiver (config receivers:) is built.
type receiverKind struct {
	// build makes the Notifier of a receiver of this kind from its config. store is
	// the archive, for what a receiver reads of earlier versions; nil in a command that
	// has none open (`watcher check -receivers`).
	build func(r *config.Receiver, cfg *config.Config, store *archive.Store) (notify.Notifier, error)
	// batches is whether the kind takes a digest of old messages and a flood's one
	// message (people read it, as in Slack); false sends every message one by one,
	// as a machine on the other end wants (a webhook, PagerDuty's trigger and resolve).
	batches bool
}

// receiverKinds are the receivers this watcher can deliver to, by config kind. A new
// kind is its package under internal/notify and one line here; config parses its block.
var receiverKinds = map[string]receiverKind{
	config.ReceiverWebhook:   {build: newWebhook},
	config.ReceiverPagerDuty: {build: newPagerDuty},
	config.ReceiverTeams:     {build: newTeams, batches: true},
	config.ReceiverEmail:     {build: newEmail, batches: true},
}

func newWebhook(r *config.Receiver, cfg *config.Config, _ *archive.Store) (notify.Notifier, error) {
	w := r.Webhook
	headers := make(map[string]string, len(w.Headers))
	for k, v := range w.Headers {
		headers[k] = v.Value()
	}
	return webhook.New(webhook.Options{Name: r.Name, URL: w.URL.Value(), Secret: w.Secret.Value(), Headers: headers, UserAgent: cfg.HTTP.UserAgent})
}

func newPagerDuty(r *config.Receiver, cfg *config.Config, _ *archive.Store) (notify.Notifier, error) {
	return pagerduty.New(pagerduty.Options{Name: r.Name, RoutingKey: r.PagerDuty.RoutingKey.Value(), APIURL: r.PagerDuty.APIURL,
		MinImpact: cfg.Routes.LeastImpact(r.Name)})
}

func newTeams(r *config.Receiver, _ *config.Config, _ *archive.Store) (notify.Notifier, error) {
	return teams.New(teams.Options{Name: r.Name, WebhookURL: r.Teams.WebhookURL.Value()})
}

func newEmail(r *config.Receiver, _ *config.Config, store *archive.Store) (notify.Notifier, error) {
	m := r.Email
	o := email.Options{Name: r.Name, SMTP: m.SMTP, From: m.From, To: m.To, Username: m.Username, Password: m.Password.Value(), StartTLS: m.StartTLS}
	if store != nil {
		// A thread's subject is the incident's first title, so that a retitled
		// incident stays in its thread.
		o.FirstTitle = func(source, id string) string {
			if v, err := store.Version(source, id, 1); err == nil {
				return v.Incident.Title
			}
			return ""
		}
	}
	return email.New(o)
}

// newReceiver builds the Notifier of r, and says whether it batches.
func newReceiver(r *config.Receiver, cfg *config.Config, store *archive.Store) (notify.Notifier, bool, error) {
	k, ok := receiverKinds[r.Kind]
	if !ok {
		return nil, false, fmt.Errorf("receiver %s: kind %s is not available in this build of watcher", r.Name, r.Kind)
	}
	n, err := k.build(r, cfg, store)
	if err != nil {
		return nil, false, fmt.Errorf("receiver %s: %w", r.Name, err)
	}
	return n, k.batches, nil
}
