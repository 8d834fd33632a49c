package daemon

import (
	"cmp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/model"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the daemon's Prometheus series; every name starts with watcher_.
type metrics struct {
	reg           *prometheus.Registry
	notifications *prometheus.CounterVec // by receiver and result

	// sources holds the per-source series (polls, changes, skipped polls, last success,
	// consecutive failures, open incidents), emitted at each scrape by sourceCollector
	// with the component series below.
	sources sourceMetrics

	// components is, by source, what watcher_component_status shows of its latest
	// component set: the version and the components list it was made from, and the
	// series, so that an unchanged set is not read again and a component gone loses its
	// series.
	componentsMu sync.Mutex
	components   map[string]componentSeries
}

// componentSeries is what the component gauge shows of one source.
type componentSeries struct {
	version int
	watch   []string // the source's components list it was filtered by
	labels  []string // the component label values, one per series
	levels  []int8   // each series' value: model.ComponentStatus.Level
}

// maxComponentSeries bounds the component series of one source: a page of a few
// thousand components (one per data centre) with no components list in the config
// exports its first ones in the set's order (group, then name), not all of them.
const maxComponentSeries = 1000

// gauges are what the scrape-time series read: the outbox, by state, and whether delivery
// is paused. They are computed on each scrape rather than refreshed on a timer, so
// /metrics never lags behind the state it reports.
type gauges struct {
	// outbox counts the undelivered messages by state; an error leaves the series out of
	// that scrape.
	outbox func() (map[model.MessageState]int, error)
	// paused reports whether an auth error pauses delivery.
	paused func() bool
	// receivers gives each receiver's undelivered messages and pause; nil leaves
	// watcher_receiver_messages and watcher_receiver_paused out.
	receivers func() ([]receiverState, error)
}

// receiverState is what the receiver series show of one receiver.
type receiverState struct {
	name            string
	pending, parked int
	paused          bool
}

func newMetrics(version, commit string, g gauges) *metrics {
	m := &metrics{
		reg:           prometheus.NewRegistry(),
		notifications: counterVec("watcher_notifications_total", "Notifications handed to a receiver (slack or console for the default sink, else the receivers: name), by result (sent, or the failure: transient, rate_limited, rejected, channel, auth).", "receiver", "result"),
		components:    map[string]componentSeries{},
	}
	paused := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "watcher_delivery_paused", Help: "1 while delivery is paused by an authentication error of the sink.",
	}, func() float64 {
		if g.paused != nil && g.paused() {
			return 1
		}
		return 0
	})
	build := gaugeVec("watcher_build_info", "Build information; the value is always 1.", "version", "commit", "goversion")
	build.WithLabelValues(version, commit, runtime.Version()).Set(1)
	m.reg.MustRegister(m.notifications, sourceCollector{m}, paused, outboxCollector{g.outbox}, receiverCollector{g.receivers}, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// notificationResults are the result label values of watcher_notifications_total.
var notificationResults = []string{"sent", "transient", "rate_limited", "rejected", "channel", "auth"}

// receiver starts a receiver's notification series at 0, so that a rate() has a
// series before its first send.
func (m *metrics) receiver(name string) {
	for _, r := range notificationResults {
		m.notifications.WithLabelValues(name, r)
	}
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

// The receiver series, read at each scrape from the delivery running.
var (
	receiverMessagesDesc = prometheus.NewDesc("watcher_receiver_messages",
		"Undelivered outbox messages of each receiver (slack or console for the default sink), by state (pending, parked).", []string{"receiver", "state"}, nil)
	receiverPausedDesc = prometheus.NewDesc("watcher_receiver_paused",
		"1 while a receiver's delivery is paused by an authentication error.", []string{"receiver"}, nil)
)

// receiverCollector reads the receivers' queues and pauses at each scrape.
type receiverCollector struct {
	states func() ([]receiverState, error)
}

func (c receiverCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- receiverMessagesDesc
	ch <- receiverPausedDesc
}

func (c receiverCollector) Collect(ch chan<- prometheus.Metric) {
	if c.states == nil {
		return
	}
	states, err := c.states()
	if err != nil {
		return // logged by states; the other series still answer
	}
	for _, r := range states {
		ch <- prometheus.MustNewConstMetric(receiverMessagesDesc, prometheus.GaugeValue, float64(r.pending), r.name, string(model.MessagePending))
		ch <- prometheus.MustNewConstMetric(receiverMessagesDesc, prometheus.GaugeValue, float64(r.parked), r.name, string(model.MessageParked))
		paused := 0.0
		if r.paused {
			paused = 1
		}
		ch <- prometheus.MustNewConstMetric(receiverPausedDesc, prometheus.GaugeValue, paused, r.name)
	}
}

// refreshGauges sets every source's open-incident and component gauges from the
// archive, at start-up.
func (d *Daemon) refreshGauges() {
	d.mu.RLock()
	names := make([]string, 0, len(d.sources))
	srcs := make([]*config.Source, 0, len(d.sources))
	for n, st := range d.sources {
		names = append(names, n)
		st.mu.Lock()
		srcs = append(srcs, st.src)
		st.mu.Unlock()
	}
	d.mu.RUnlock()
	for i, n := range names {
		d.refreshOpen(n)
		if srcs[i] != nil {
			d.refreshComponents(srcs[i])
		}
		if (i+1)%releaseEvery == 0 {
			d.releasePages() // a scan of every source's incidents: keep its peak RSS small
		}
	}
}

// refreshComponentLists refreshes the component gauges of the sources whose components
// list is not the one their series were set from: after a reload, so that a component
// the list no longer names loses its series at once, not at the source's next poll
// (maybe an hour away, while an alert on it keeps firing).
func (d *Daemon) refreshComponentLists() {
	d.mu.RLock()
	srcs := make([]*config.Source, 0, len(d.sources))
	for _, st := range d.sources {
		st.mu.Lock()
		if st.src != nil {
			srcs = append(srcs, st.src)
		}
		st.mu.Unlock()
	}
	d.mu.RUnlock()
	m := d.metrics
	m.componentsMu.Lock()
	srcs = slices.DeleteFunc(srcs, func(src *config.Source) bool {
		old, ok := m.components[src.Name]
		return !ok || slices.Equal(old.watch, src.Components)
	})
	m.componentsMu.Unlock()
	for _, src := range srcs {
		d.refreshComponents(src)
	}
}

// refreshOpen sets one source's open-incident gauges, one per impact, from the archive.
func (d *Daemon) refreshOpen(source string) {
	counts, err := d.store.OpenCounts(source)
	if err != nil {
		d.log.Warn("count open incidents", "source", source, "err", err)
		return
	}
	d.metrics.setOpen(source, counts)
	open := false
	for _, imp := range openImpacts {
		// A maintenance window, scheduled or under way, is not an incident to follow:
		// it may be announced weeks ahead.
		open = open || (imp != model.ImpactMaintenance && counts[imp] > 0)
	}
	d.setOpen(source, open)
	d.mu.RLock()
	st := d.sources[source]
	d.mu.RUnlock()
	if st != nil {
		st.maint.Store(counts[model.ImpactMaintenance] > 0)
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

// refreshComponents sets a source's component gauges from its latest component set,
// one series per component its components list watches (every one without a list, up
// to maxComponentSeries), and deletes the series of components no longer there. It
// reads the set only when its version or the list changed since the last refresh: the
// daemon calls it after every successful poll, for the cost of one read of a meta.
func (d *Daemon) refreshComponents(src *config.Source) {
	m := d.metrics
	n, err := d.store.ComponentsLatestVersion(src.Name)
	if err != nil {
		d.log.Warn("read component version", "source", src.Name, "err", err)
		return
	}
	m.componentsMu.Lock()
	defer m.componentsMu.Unlock()
	old := m.components[src.Name]
	if n == 0 || (n == old.version && slices.Equal(old.watch, src.Components)) {
		return
	}
	v, err := d.store.ComponentsLatest(src.Name)
	if err != nil || v == nil {
		d.log.Warn("read components", "source", src.Name, "err", err)
		return
	}
	// The components list, paused or not: a paused source still shows its last states.
	watch := WatchComponent(&config.Source{Components: src.Components})
	var kept []model.Component
	for _, c := range v.Components.List {
		if watch(c) && len(kept) < maxComponentSeries {
			kept = append(kept, c)
		}
	}
	labels := componentLabels(kept)
	// One series per label (two would fail the whole scrape): should a set repeat a
	// component, id and all (the archive keeps one of each id), the last one sets it.
	series := componentSeries{version: n, watch: slices.Clone(src.Components), labels: make([]string, 0, len(kept)), levels: make([]int8, 0, len(kept))}
	at := make(map[string]int, len(kept))
	for i, c := range kept {
		l := strings.ToValidUTF8(labels[i], "\uFFFD") // a label value must be UTF-8
		if j, ok := at[l]; ok {
			series.levels[j] = int8(c.Status.Level())
			continue
		}
		at[l] = len(series.labels)
		series.labels = append(series.labels, l)
		series.levels = append(series.levels, int8(c.Status.Level()))
	}
	m.components[src.Name] = series
}

// forgetComponents deletes the component series of a source the config no longer has.
func (d *Daemon) forgetComponents(source string) {
	m := d.metrics
	m.componentsMu.Lock()
	defer m.componentsMu.Unlock()
	delete(m.components, source)
}

// componentLabels are the component label values of a set's components: the name, or
// "group/name" for a name that more than one group of the page uses, and, for what is
// still shared (one name twice in one group), the vendor's id after it, so that no two
// components share a series.
func componentLabels(cs []model.Component) []string {
	count := map[string]int{}
	for _, c := range cs {
		count[c.Name]++
	}
	out := make([]string, len(cs))
	taken := map[string]int{}
	for i, c := range cs {
		out[i] = c.Name
		if count[c.Name] > 1 && c.Group != "" {
			out[i] = c.Group + "/" + c.Name
		}
		taken[out[i]]++
	}
	for i, c := range cs {
		if taken[out[i]] > 1 {
			out[i] += " (" + cmp.Or(c.ID, strconv.Itoa(i)) + ")"
		}
	}
	return out
}
