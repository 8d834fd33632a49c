package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/model"
)

// nopDelivery is a Delivery that does nothing until its context ends.
type nopDelivery struct{}

func (nopDelivery) Run(ctx context.Context, _ <-chan struct{}) error { <-ctx.Done(); return nil }

// TestReloadRoutesAndRefusesAReceiverItCannotBuild checks that a reload hands the new
// routes to the archive, and that a config whose delivery cannot be built (a receiver
// kind this build lacks) is refused before anything changes.
func TestReloadRoutesAndRefusesAReceiverItCannotBuild(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "watcher.db")
	parse := func(extra string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]byte("database: "+db+"\nlisten: ''\nsources:\n  - name: acme\n    url: http://127.0.0.1:1/\n    kind: statuspage\n    schedule: \"@every 1h\"\n"+extra),
			filepath.Join(dir, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	store, err := archive.Open(db, archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	d, err := New(Options{Config: parse(""), Store: store, NewDelivery: func(cfg *config.Config, _ func(string, string)) (Delivery, error) {
		for _, r := range cfg.Receivers {
			if r.Kind != config.ReceiverWebhook {
				return nil, errors.New("receiver " + r.Name + ": kind " + r.Kind + " is not available in this build of watcher")
			}
		}
		return nopDelivery{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	hooks := "receivers:\n  - name: hooks\n    webhook: {url: 'https://h.test', secret: s}\nroutes:\n  - match: {events: [source_down]}\n    receivers: [hooks]\n"
	if err := d.Reload(t.Context(), parse(hooks)); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	defer d.stopDelivery()
	if _, err := store.RecordFailure("acme", "HTTP 500", 1); err != nil {
		t.Fatal(err)
	}
	msgs, err := store.Messages(model.MessagePending)
	if err != nil || len(msgs) != 1 || msgs[0].Receiver != "hooks" {
		t.Fatalf("after the reload: messages %+v, %v; want one source_down for hooks", msgs, err)
	}

	pd := "receivers:\n  - name: oncall\n    pagerduty: {routing_key: k}\nroutes:\n  - match: {}\n    receivers: [oncall]\n"
	err = d.Reload(t.Context(), parse(pd))
	if err == nil || !strings.Contains(err.Error(), "kind pagerduty is not available") {
		t.Errorf("Reload of a receiver it cannot build: %v", err)
	}
	if got := d.config().Receivers; len(got) != 1 || got[0].Name != "hooks" {
		t.Errorf("the refused config replaced the running one: receivers %+v", got)
	}
}
