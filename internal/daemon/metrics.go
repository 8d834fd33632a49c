package daemon

import (
	"runtime"

	"github.com/statuswatch/statuswatch/internal/model"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the daemon's Prometheus series; every name starts with watcher_.
type metrics struct {
	reg              *prometheus.Registry
	polls            *prometheus.CounterVec // by source and result
	changes          *prometheus.CounterVec // incidents that got a new version, by source
	notifications    *prometheus.CounterVec // by result
	lastSuccess      *prometheus.GaugeVec   // unix seconds, by source
	failures         *prometheus.GaugeVec   // consecutive failures, by source
	openIncidents    *prometheus.GaugeVec   // by source and impact
	skippedInBackoff *prometheus.CounterVec // cron ticks skipped inside a backoff wait
}

// gauges are what the scrape-time series read: the outbox, by state, and whether delivery
// is paused. They are computed on each scrape rather than refreshed on a timer, so
// /metrics never lags behind the state it reports.
type gauges struct {
	// outbox counts the undelivered messages by state; an error leaves the series out of
	// that scrape.
	outbox func() (map[model.MessageState]int, error)
	// paused reports whether an auth error pauses delivery.
	paused func() bool
}

func newMetrics(version, commit string, g gauges) *metrics {
	m := &metrics{
		reg:              prometheus.NewRegistry(),
		polls:            counterVec("watcher_polls_total", "Polls of a source, by result (ok, unchanged, failed; archive_error when the archive, not the vendor, failed).", "source", "result"),
		changes:          counterVec("watcher_changes_total", "Incidents that got a new archived version.", "source"),
		notifications:    counterVec("watcher_notifications_total", "Notifications handed to a sink, by result (sent, or the failure: transient, rate_limited, rejected, channel, auth).", "result"),
		lastSuccess:      gaugeVec("watcher_source_last_success_timestamp_seconds", "When a source was last read successfully.", "source"),
		failures:         gaugeVec("watcher_source_consecutive_failures", "Polls of a source that failed in a row.", "source"),
		openIncidents:    gaugeVec("watcher_source_open_incidents", "Incidents still open on a source's page, by impact.", "source", "impact"),
		skippedInBackoff: counterVec("watcher_polls_skipped_total", "Scheduled polls skipped because the source is backing off.", "source"),
	}
	paused := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "watcher_delivery_paused", Help: "1 while delivery is paused by an authentication error of the sink.",
	}, func() float64 {
		if g.paused != nil && g.paused() {
			return 1
		}
		return 0
	})
	// Known label values start at 0, so a rate() has a series before the first event.
	for _, r := range []string{"sent", "transient", "rate_limited", "rejected", "channel", "auth"} {
		m.notifications.WithLabelValues(r)
	}
	build := gaugeVec("watcher_build_info", "Build information; the value is always 1.", "version", "commit", "goversion")
	build.WithLabelValues(version, commit, runtime.Version()).Set(1)
	m.reg.MustRegister(m.polls, m.changes, m.notifications, m.lastSuccess, m.failures,
		m.openIncidents, m.skippedInBackoff, paused, outboxCollector{g.outbox}, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
}

// outboxDesc describes watcher_outbox_messages.
var outboxDesc = prometheus.NewDesc("watcher_outbox_messages",
	"Undelivered outbox messages, by state (pending, parked).", []string{"state"}, nil)

// outboxCollector reads the outbox's counts at each scrape.
type outboxCollector struct {
	count func() (map[model.MessageState]int, error)
}

func (c outboxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- outboxDesc }

func (c outboxCollector) Collect(ch chan<- prometheus.Metric) {
	if c.count == nil {
		return
	}
	counts, err := c.count()
	if err != nil {
		return // logged by count; the other series still answer
	}
	for _, state := range []model.MessageState{model.MessagePending, model.MessageParked} {
		ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(counts[state]), string(state))
	}
}

// refreshGauges sets every source's open-incident gauges from the archive, at start-up.
func (d *Daemon) refreshGauges() {
	d.mu.RLock()
	names := make([]string, 0, len(d.sources))
	for n := range d.sources {
		names = append(names, n)
	}
	d.mu.RUnlock()
	for i, n := range names {
		d.refreshOpen(n)
		if (i+1)%releaseEvery == 0 {
			d.releasePages() // a scan of every source's incidents: keep its peak RSS small
		}
	}
}

// refreshOpen sets one source's open-incident gauges, one per impact, from the archive.
func (d *Daemon) refreshOpen(source string) {
	counts, err := d.store.OpenCounts(source)
	if err != nil {
		d.log.Warn("count open incidents", "source", source, "err", err)
		return
	}
	for _, imp := range []model.Impact{model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical, model.ImpactMaintenance, model.ImpactUnknown} {
		d.metrics.openIncidents.WithLabelValues(source, string(imp)).Set(float64(counts[imp]))
	}
}

// outboxCounts counts the undelivered messages by state, for each scrape of /metrics.
func (d *Daemon) outboxCounts() (map[model.MessageState]int, error) {
	counts, err := d.store.OutboxCounts()
	if err != nil {
		d.log.Warn("count outbox", "err", err)
	}
	return counts, err
}
