package daemon

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the daemon's Prometheus series; every name starts with watcher_ (SPEC §6).
type metrics struct {
	reg              *prometheus.Registry
	polls            *prometheus.CounterVec // by source and result
	changes          *prometheus.CounterVec // incidents that got a new version, by source
	notifications    *prometheus.CounterVec // by result
	lastSuccess      *prometheus.GaugeVec   // unix seconds, by source
	failures         *prometheus.GaugeVec   // consecutive failures, by source
	openIncidents    *prometheus.GaugeVec   // by source and impact
	outbox           *prometheus.GaugeVec   // messages by state
	skippedInBackoff *prometheus.CounterVec // cron ticks skipped inside a backoff wait
	deliveryPaused   prometheus.Gauge       // 1 while an auth error pauses delivery
}

func newMetrics(version, commit string) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		polls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "watcher_polls_total", Help: "Polls of a source, by result (ok, unchanged, failed).",
		}, []string{"source", "result"}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "watcher_changes_total", Help: "Incidents that got a new archived version.",
		}, []string{"source"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "watcher_notifications_total", Help: "Notifications handed to a sink, by result (sent, or the failure: transient, rate_limited, rejected, channel, auth).",
		}, []string{"result"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "watcher_source_last_success_timestamp_seconds", Help: "When a source was last read successfully.",
		}, []string{"source"}),
		failures: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "watcher_source_consecutive_failures", Help: "Polls of a source that failed in a row.",
		}, []string{"source"}),
		openIncidents: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "watcher_source_open_incidents", Help: "Incidents still open on a source's page, by impact.",
		}, []string{"source", "impact"}),
		outbox: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "watcher_outbox_messages", Help: "Undelivered outbox messages, by state (pending, parked).",
		}, []string{"state"}),
		skippedInBackoff: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "watcher_polls_skipped_total", Help: "Scheduled polls skipped because the source is backing off.",
		}, []string{"source"}),
		deliveryPaused: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "watcher_delivery_paused", Help: "1 while delivery is paused by an authentication error of the sink.",
		}),
	}
	// Known label values start at 0, so a rate() has a series before the first event.
	for _, r := range []string{"sent", "transient", "rate_limited", "rejected", "channel", "auth"} {
		m.notifications.WithLabelValues(r)
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "watcher_build_info", Help: "Build information; the value is always 1.",
	}, []string{"version", "commit", "goversion"})
	build.WithLabelValues(version, commit, runtime.Version()).Set(1)
	m.reg.MustRegister(m.polls, m.changes, m.notifications, m.lastSuccess, m.failures,
		m.openIncidents, m.outbox, m.skippedInBackoff, m.deliveryPaused, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
