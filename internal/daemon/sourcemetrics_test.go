package daemon

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/statuswatch/statuswatch/internal/model"
)

// exposition is reg's text exposition of every family but the build, Go and process ones.
func exposition(t *testing.T, reg prometheus.Gatherer) string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		switch n := mf.GetName(); {
		case n == "watcher_polls_total", n == "watcher_changes_total", n == "watcher_polls_skipped_total",
			n == "watcher_source_last_success_timestamp_seconds", n == "watcher_source_consecutive_failures",
			n == "watcher_source_open_incidents":
			if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.String()
}

// The per-source series emitted at scrape time are the ones the CounterVec and GaugeVec
// children they replace showed, after any sequence of updates: the same names, help,
// labels, values, and series present.
func TestSourceSeriesMatchVecs(t *testing.T) {
	m := newMetrics("v", "c", gauges{})
	ref := prometheus.NewRegistry()
	polls := counterVec("watcher_polls_total", "Polls of a source, by result (ok, unchanged, failed; archive_error when the archive, not the vendor, failed).", "source", "result")
	changes := counterVec("watcher_changes_total", "Incidents that got a new archived version.", "source")
	lastSuccess := gaugeVec("watcher_source_last_success_timestamp_seconds", "When a source was last read successfully.", "source")
	failures := gaugeVec("watcher_source_consecutive_failures", "Polls of a source that failed in a row.", "source")
	open := gaugeVec("watcher_source_open_incidents", "Incidents still open on a source's page, by impact.", "source", "impact")
	skipped := counterVec("watcher_polls_skipped_total", "Scheduled polls skipped because the source is backing off.", "source")
	ref.MustRegister(polls, changes, lastSuccess, failures, open, skipped)

	rng := rand.New(rand.NewPCG(1, 2))
	if got, want := exposition(t, m.reg), exposition(t, ref); got != want || got != "" {
		t.Fatalf("before any update: got\n%s\nwant\n%s", got, want)
	}
	for step := range 400 {
		src := "src-" + strconv.Itoa(rng.IntN(6))
		switch rng.IntN(6) {
		case 0:
			r := pollResults[rng.IntN(len(pollResults))]
			m.countPoll(src, r)
			polls.WithLabelValues(src, r).Inc()
		case 1:
			n := rng.IntN(5)
			m.addChanges(src, n)
			changes.WithLabelValues(src).Add(float64(n))
		case 2:
			m.countSkipped(src)
			skipped.WithLabelValues(src).Inc()
		case 3:
			at := time.Unix(1_780_000_000+int64(rng.IntN(1e6)), 0)
			m.setLastSuccess(src, at)
			lastSuccess.WithLabelValues(src).Set(float64(at.Unix()))
		case 4:
			n := rng.IntN(9)
			m.setFailures(src, n)
			failures.WithLabelValues(src).Set(float64(n))
		case 5:
			counts := map[model.Impact]int{}
			for _, imp := range openImpacts {
				if rng.IntN(2) == 0 {
					counts[imp] = rng.IntN(4)
				}
			}
			m.setOpen(src, counts)
			for _, imp := range openImpacts {
				open.WithLabelValues(src, string(imp)).Set(float64(counts[imp]))
			}
		}
		if got, want := exposition(t, m.reg), exposition(t, ref); got != want {
			t.Fatalf("step %d: got\n%s\nwant\n%s", step, got, want)
		}
	}
	if problems, err := testutil.GatherAndLint(m.reg); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
	// Counters carry a created timestamp, as a Vec's children do.
	mfs, _ := m.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "watcher_polls_total" && mf.GetMetric()[0].GetCounter().GetCreatedTimestamp() == nil {
			t.Error("watcher_polls_total has no created timestamp")
		}
	}
}
