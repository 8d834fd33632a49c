package main

import (
	"log/slog"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/daemon"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// newDeliverer builds the outbox delivery for cfg: Slack when it is configured, else the
// console (standard output).
func newDeliverer(e *env, store *archive.Store, cfg *config.Config, log *slog.Logger) (*notify.Deliverer, error) {
	return &notify.Deliverer{
		Outbox:      store,
		Notifier:    &notify.Console{W: e.stdout},
		Title:       titles(cfg),
		BaseURL:     cfg.BaseURL,
		MaxQueueAge: cfg.Slack.MaxQueueAge,
		Log:         log,
	}, nil
}

// newDelivery is newDeliverer in the shape the daemon rebuilds on every reload.
func newDelivery(e *env, store *archive.Store, log *slog.Logger) func(*config.Config) (daemon.Delivery, error) {
	return func(cfg *config.Config) (daemon.Delivery, error) {
		return newDeliverer(e, store, cfg, log)
	}
}
