package main

import (
	"log/slog"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/correlate/archived"
	"github.com/statuswatch/statuswatch/internal/daemon"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/slack"
)

// newDeliverer builds the outbox delivery for cfg, one Deliverer per receiver: the
// default sink first — Slack for the sources it routes (a bot token with a channel, or
// a webhook), the console (standard output) for the rest — then each of the config's
// receivers, each draining its own rows. onResult hears every send's result, by
// receiver name; nil: no one.
func newDeliverer(e *env, store *archive.Store, cfg *config.Config, log *slog.Logger, onResult func(receiver, result string)) (*notify.Set, error) {
	console := &notify.Console{W: e.stdout}
	// One title lookup for every deliverer and the correlation: its map holds an entry
	// per titled source (~130 B each, 1.3 MB at 10,000 sources).
	title := titles(cfg, store)
	route := slackRoute(cfg)
	var sink notify.Notifier = console
	name := "console"
	if slackRoutesAny(cfg, route) {
		s, err := slack.New(slack.Options{Token: cfg.Slack.Token.Value(), APIURL: cfg.Slack.APIURL, Route: route})
		if err != nil {
			return nil, err
		}
		sink = &notify.Router{Pick: func(source string) notify.Notifier {
			if ch, hook := route(source); hook != "" || ch != "" {
				return s
			}
			return console
		}}
		name = "slack"
	}
	deliverer := func(receiver, name string, sink notify.Notifier) *notify.Deliverer {
		d := &notify.Deliverer{
			Outbox:      store,
			Notifier:    sink,
			Receiver:    receiver,
			Name:        name,
			Title:       title,
			BaseURL:     cfg.BaseURL,
			MaxQueueAge: cfg.Slack.MaxQueueAge,
			Log:         log,
		}
		if receiver != "" {
			d.Log = log.With("receiver", name)
		}
		if onResult != nil {
			d.OnResult = func(result string) { onResult(name, result) }
		}
		return d
	}
	slack := deliverer("", name, sink)
	// A root names the other vendors of its incident's event ("Also affected: …"); only
	// the default sink threads, so only its roots do. A root is about an incident of now:
	// the incidents closed that started over a week ago are left out of its correlation,
	// which would otherwise hold the whole archive's incidents in memory.
	slack.AlsoAffected = archived.New(store, archived.Options{Correlate: cfg.CorrelateOptions(), TitleOf: title,
		Horizon: alsoAffectedHorizon}).AlsoAffected
	set := &notify.Set{Deliverers: []*notify.Deliverer{slack}}
	for i := range cfg.Receivers {
		r := &cfg.Receivers[i]
		n, batches, err := newReceiver(r, cfg, store)
		if err != nil {
			return nil, err
		}
		d := deliverer(r.Name, r.Name, n)
		d.Standalone = true // no receiver threads as Slack does
		if !batches {
			d.MaxQueueAge, d.MaxPerPoll = -1, -1
		}
		set.Deliverers = append(set.Deliverers, d)
	}
	return set, nil
}

// slackRoute gives a source's Slack route: its own webhook, else its own channel, else the
// global webhook or channel. Both empty: the console.
func slackRoute(cfg *config.Config) func(source string) (channel, webhook string) {
	return func(source string) (channel, webhook string) {
		if cfg.Slack.Token.IsSet() {
			channel = cfg.Slack.Channel
		}
		webhook = cfg.Slack.WebhookURL.Value()
		if src := cfg.Source(source); src != nil {
			if src.Channel != "" && cfg.Slack.Token.IsSet() {
				channel, webhook = src.Channel, ""
			}
			if src.WebhookURL.IsSet() {
				channel, webhook = "", src.WebhookURL.Value()
			}
		}
		return channel, webhook
	}
}

// slackRoutesAny reports whether any source's messages go to Slack.
func slackRoutesAny(cfg *config.Config, route func(string) (string, string)) bool {
	for i := range cfg.Sources {
		if ch, hook := route(cfg.Sources[i].Name); ch != "" || hook != "" {
			return true
		}
	}
	return false
}

// newDelivery is newDeliverer in the shape the daemon rebuilds on every reload.
func newDelivery(e *env, store *archive.Store, log *slog.Logger) func(*config.Config, func(string, string)) (daemon.Delivery, error) {
	return func(cfg *config.Config, onResult func(string, string)) (daemon.Delivery, error) {
		return newDeliverer(e, store, cfg, log, onResult)
	}
}

// alsoAffectedHorizon is how far back the roots' "Also affected" looks for the incidents
// closed: one that started a week ago and is over cannot share an event with a new one,
// unless it lasted the week.
const alsoAffectedHorizon = 7 * 24 * time.Hour
