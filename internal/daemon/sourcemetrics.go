package daemon

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/statuswatch/statuswatch/internal/model"
)

// The per-source series are emitted at each scrape from one compact sourceSeries per
// source, not kept as CounterVec and GaugeVec children: a child holds its label pairs,
// its hash entry and its value cell (~400 bytes), and a source has up to thirteen of
// them, which made ~45 MB of the heap at 10,000 sources. The output is the same: a
// series appears when a Vec would have created its child (a counter at its first
// increment, with the same created timestamp), and keeps its value until the process
// ends.

// pollResults are the result label values of watcher_polls_total.
var pollResults = [...]string{"ok", "unchanged", "failed", "archive_error"}

// openImpacts are the impact label values of watcher_source_open_incidents, in the
// order sourceSeries.open holds them.
var openImpacts = [...]model.Impact{model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical, model.ImpactMaintenance, model.ImpactUnknown}

var (
	pollsDesc = prometheus.NewDesc("watcher_polls_total",
		"Polls of a source, by result (ok, unchanged, failed; archive_error when the archive, not the vendor, failed).", []string{"source", "result"}, nil)
	changesDesc = prometheus.NewDesc("watcher_changes_total",
		"Incidents that got a new archived version.", []string{"source"}, nil)
	lastSuccessDesc = prometheus.NewDesc("watcher_source_last_success_timestamp_seconds",
		"When a source was last read successfully.", []string{"source"}, nil)
	failuresDesc = prometheus.NewDesc("watcher_source_consecutive_failures",
		"Polls of a source that failed in a row.", []string{"source"}, nil)
	openIncidentsDesc = prometheus.NewDesc("watcher_source_open_incidents",
		"Incidents still open on a source's page, by impact.", []string{"source", "impact"}, nil)
	skippedDesc = prometheus.NewDesc("watcher_polls_skipped_total",
		"Scheduled polls skipped because the source is backing off.", []string{"source"}, nil)
	componentStatusDesc = prometheus.NewDesc("watcher_component_status",
		"A component's state on its source's page: 0 operational, 1 maintenance, 2 degraded, 3 partial outage, 4 major outage.", []string{"source", "component"}, nil)
)

// counter is one counter series: absent until its first increment (created is zero).
type counter struct {
	value   float64
	created int64 // unix nanoseconds of the first increment
}

func (c *counter) add(v float64) {
	if c.created == 0 {
		c.created = time.Now().UnixNano()
	}
	c.value += v
}

// sourceSeries is what the per-source series show of one source. A gauge's has* flag
// says whether it was ever set.
type sourceSeries struct {
	polls            [len(pollResults)]counter
	changes, skipped counter
	lastSuccess      float64
	failures         float64
	open             [len(openImpacts)]uint32
	hasLastSuccess   bool
	hasFailures      bool
	hasOpen          bool
}

// sourceMetrics holds every source's series, by name.
type sourceMetrics struct {
	mu     sync.Mutex
	series map[string]*sourceSeries
}

// update changes one source's series under the lock.
func (s *sourceMetrics) update(source string, f func(*sourceSeries)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.series == nil {
		s.series = map[string]*sourceSeries{}
	}
	ss := s.series[source]
	if ss == nil {
		ss = &sourceSeries{}
		s.series[source] = ss
	}
	f(ss)
}

// countPoll counts one poll of source with result, one of pollResults.
func (m *metrics) countPoll(source, result string) {
	for i, r := range pollResults {
		if r == result {
			m.sources.update(source, func(ss *sourceSeries) { ss.polls[i].add(1) })
			return
		}
	}
}

// addChanges counts n incidents of source that got a new version.
func (m *metrics) addChanges(source string, n int) {
	m.sources.update(source, func(ss *sourceSeries) { ss.changes.add(float64(n)) })
}

// countSkipped counts one scheduled poll of source skipped in a backoff wait.
func (m *metrics) countSkipped(source string) {
	m.sources.update(source, func(ss *sourceSeries) { ss.skipped.add(1) })
}

// setLastSuccess sets when source was last read successfully.
func (m *metrics) setLastSuccess(source string, t time.Time) {
	m.sources.update(source, func(ss *sourceSeries) { ss.lastSuccess, ss.hasLastSuccess = float64(t.Unix()), true })
}

// setFailures sets the failed polls of source in a row.
func (m *metrics) setFailures(source string, n int) {
	m.sources.update(source, func(ss *sourceSeries) { ss.failures, ss.hasFailures = float64(n), true })
}

// setOpen sets the open incidents of source, by impact.
func (m *metrics) setOpen(source string, counts map[model.Impact]int) {
	m.sources.update(source, func(ss *sourceSeries) {
		for i, imp := range openImpacts {
			ss.open[i] = uint32(min(max(counts[imp], 0), 1<<32-1))
		}
		ss.hasOpen = true
	})
}

// sourceCollector emits the per-source and component series at each scrape.
type sourceCollector struct{ m *metrics }

func (c sourceCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{pollsDesc, changesDesc, lastSuccessDesc, failuresDesc, openIncidentsDesc, skippedDesc, componentStatusDesc} {
		ch <- d
	}
}

func (c sourceCollector) Collect(ch chan<- prometheus.Metric) {
	// A copy under the lock, sent after it: a slow scrape does not hold up the polls.
	type named struct {
		name string
		sourceSeries
	}
	s := &c.m.sources
	s.mu.Lock()
	all := make([]named, 0, len(s.series))
	for name, ss := range s.series {
		all = append(all, named{name, *ss})
	}
	s.mu.Unlock()
	for _, ss := range all {
		source := labelPair("source", ss.name) // shared by the source's series
		for i := range pollResults {
			if c := ss.polls[i]; c.created != 0 {
				ch <- counterSeries(pollsDesc, c, pollResultLabels[i], source)
			}
		}
		if ss.changes.created != 0 {
			ch <- counterSeries(changesDesc, ss.changes, source)
		}
		if ss.skipped.created != 0 {
			ch <- counterSeries(skippedDesc, ss.skipped, source)
		}
		if ss.hasLastSuccess {
			ch <- &series{desc: lastSuccessDesc, value: ss.lastSuccess, labels: []*dto.LabelPair{source}}
		}
		if ss.hasFailures {
			ch <- &series{desc: failuresDesc, value: ss.failures, labels: []*dto.LabelPair{source}}
		}
		if ss.hasOpen {
			for i := range openImpacts {
				ch <- &series{desc: openIncidentsDesc, value: float64(ss.open[i]), labels: []*dto.LabelPair{impactLabels[i], source}}
			}
		}
	}

	type component struct {
		source string
		series componentSeries
	}
	c.m.componentsMu.Lock()
	comps := make([]component, 0, len(c.m.components))
	for name, cs := range c.m.components {
		comps = append(comps, component{name, cs}) // its slices are replaced, never changed
	}
	c.m.componentsMu.Unlock()
	for _, cs := range comps {
		source := labelPair("source", cs.source)
		for i, l := range cs.series.labels {
			ch <- &series{desc: componentStatusDesc, value: float64(cs.series.levels[i]), labels: []*dto.LabelPair{labelPair("component", l), source}}
		}
	}
}

// series is one gauge or counter series of a scrape. It is MustNewConstMetric's metric
// without its copies: the label pairs are shared (a source's by its series, the result
// and impact ones by every scrape): a scrape of 10,000 sources allocates 42 MB, not 71
// (the Vecs' took 31 MB). labels are sorted by name, as the exposition wants them.
type series struct {
	desc    *prometheus.Desc
	labels  []*dto.LabelPair
	value   float64
	created *timestamppb.Timestamp // a counter's; nil for a gauge
}

func (s *series) Desc() *prometheus.Desc { return s.desc }

func (s *series) Write(out *dto.Metric) error {
	out.Label = s.labels
	v := s.value
	if s.created != nil {
		out.Counter = &dto.Counter{Value: &v, CreatedTimestamp: s.created}
	} else {
		out.Gauge = &dto.Gauge{Value: &v}
	}
	return nil
}

// counterSeries is counter c's series, labelled by labels (sorted by name).
func counterSeries(desc *prometheus.Desc, c counter, labels ...*dto.LabelPair) *series {
	return &series{desc: desc, labels: labels, value: c.value, created: timestamppb.New(time.Unix(0, c.created))}
}

func labelPair(name, value string) *dto.LabelPair {
	return &dto.LabelPair{Name: &name, Value: &value}
}

// pollResultLabels and impactLabels are the label pairs of pollResults and openImpacts.
var pollResultLabels, impactLabels = func() (r, i []*dto.LabelPair) {
	for _, v := range pollResults {
		r = append(r, labelPair("result", v))
	}
	for _, v := range openImpacts {
		i = append(i, labelPair("impact", string(v)))
	}
	return r, i
}()
