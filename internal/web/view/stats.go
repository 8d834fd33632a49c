package view

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/diff"
)

// StatsColumn is one figure of a source's vendor figures (api.SourceStats) as the
// /stats table and the source page show it: its key in ?sort=, its labels, its value
// for sorting (ok false for null) and its text.
type StatsColumn struct {
	Key, Label, Title string
	Kind              statsKind
	value             func(*api.SourceStats) (float64, bool)
}

type statsKind int

const (
	statsCount statsKind = iota
	statsDuration
	statsRate
)

func count(f func(*api.SourceStats) int) func(*api.SourceStats) (float64, bool) {
	return func(s *api.SourceStats) (float64, bool) { return float64(f(s)), true }
}

func nullable(f func(*api.SourceStats) *float64) func(*api.SourceStats) (float64, bool) {
	return func(s *api.SourceStats) (float64, bool) {
		if v := f(s); v != nil {
			return *v, true
		}
		return 0, false
	}
}

// StatsColumns are the columns of the /stats table, in order; their keys are the JSON
// names of the figures (by_impact's and edits' without their prefix).
var StatsColumns = []StatsColumn{
	{"incidents", "Incidents", "incidents that started in the window", statsCount, count(func(s *api.SourceStats) int { return s.Incidents })},
	{"critical", "Critical", "of them critical", statsCount, count(func(s *api.SourceStats) int { return s.ByImpact.Critical })},
	{"major", "Major", "of them major", statsCount, count(func(s *api.SourceStats) int { return s.ByImpact.Major })},
	{"minor", "Minor", "of them minor", statsCount, count(func(s *api.SourceStats) int { return s.ByImpact.Minor })},
	{"open", "Open", "of them still open", statsCount, count(func(s *api.SourceStats) int { return s.Open })},
	{"median_resolve_s", "Resolve p50", "median time from start to resolution", statsDuration, nullable(func(s *api.SourceStats) *float64 { return s.MedianResolveS })},
	{"p90_resolve_s", "Resolve p90", "90th percentile of the time from start to resolution", statsDuration, nullable(func(s *api.SourceStats) *float64 { return s.P90ResolveS })},
	{"median_posting_lag_s", "Posted after", "median time from the start until the page showed it", statsDuration, nullable(func(s *api.SourceStats) *float64 { return s.MedianPostingLagS })},
	{"median_first_update_s", "First update", "median time from the start to the first update's posted time", statsDuration, nullable(func(s *api.SourceStats) *float64 { return s.MedianFirstUpdateS })},
	{"postmortem_rate", "Post\u00admortems", "share of incidents with a postmortem", statsRate, nullable(func(s *api.SourceStats) *float64 { return s.PostmortemRate })},
	{"median_postmortem_delay_s", "Post\u00admortem after", "median time from resolution to postmortem", statsDuration, nullable(func(s *api.SourceStats) *float64 { return s.MedianPostmortemDelayS })},
	{"updates_edited", "Updates edited", "updates whose text or status was changed after posting", statsCount, count(func(s *api.SourceStats) int { return s.Edits.UpdatesEdited })},
	{"updates_removed", "Updates removed", "updates taken down after posting", statsCount, count(func(s *api.SourceStats) int { return s.Edits.UpdatesRemoved })},
	{"titles_changed", "Titles changed", "incidents whose title changed", statsCount, count(func(s *api.SourceStats) int { return s.Edits.TitlesChanged })},
	{"backdated", "Back\u00addated", "incidents whose start was moved earlier", statsCount, count(func(s *api.SourceStats) int { return s.Edits.Backdated })},
	{"impact_lowered_after_resolution", "Impact lowered", "incidents whose impact was lowered once resolved", statsCount, count(func(s *api.SourceStats) int { return s.Edits.ImpactLoweredAfterResolution })},
	{"incidents_removed", "Deleted", "incidents that vanished from the page", statsCount, count(func(s *api.SourceStats) int { return s.Edits.IncidentsRemoved })},
	{"incidents_with_silent_edits", "Silent edits", "incidents with an update edited or removed after posting", statsCount, count(func(s *api.SourceStats) int { return s.IncidentsWithSilentEdits })},
	{"component_outage_s", "Outage", "component time in partial or major outage, summed over the components", statsDuration, nullable(func(s *api.SourceStats) *float64 { return s.ComponentOutageS })},
}

// StatsColumnOf returns the column of key, ok false for none.
func StatsColumnOf(key string) (StatsColumn, bool) {
	i := slices.IndexFunc(StatsColumns, func(c StatsColumn) bool { return c.Key == key })
	if i < 0 {
		return StatsColumn{}, false
	}
	return StatsColumns[i], true
}

// Text is the column's value for s as a cell shows it: "—" for null.
func (c StatsColumn) Text(s *api.SourceStats) string {
	v, ok := c.value(s)
	if !ok {
		return "—"
	}
	switch c.Kind {
	case statsDuration:
		if v == 0 {
			return "0"
		}
		return diff.FormatDuration(time.Duration(v * float64(time.Second)))
	case statsRate:
		return strconv.Itoa(int(math.Round(v*100))) + "%"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// SortStats orders rows by column c, descending when desc, null values last whichever
// the order, then by source name.
func SortStats(rows []api.SourceStats, c StatsColumn, desc bool) {
	slices.SortStableFunc(rows, func(a, b api.SourceStats) int {
		va, oka := c.value(&a)
		vb, okb := c.value(&b)
		switch {
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		case oka && va != vb:
			if desc {
				return cmp.Compare(vb, va)
			}
			return cmp.Compare(va, vb)
		}
		return strings.Compare(a.Source, b.Source)
	})
}

// StatsFigures are a source's vendor figures as its page shows them, each with a note
// saying what it is over.
func StatsFigures(s *api.SourceStats) []Figure {
	col := func(key string) StatsColumn { c, _ := StatsColumnOf(key); return c }
	by := s.ByImpact
	incidents := strconv.Itoa(by.Critical) + " critical, " + strconv.Itoa(by.Major) + " major, " + strconv.Itoa(by.Minor) + " minor"
	if by.None+by.Unknown > 0 {
		incidents += ", " + strconv.Itoa(by.None+by.Unknown) + " other"
	}
	e := s.Edits
	return []Figure{
		{"Incidents", strconv.Itoa(s.Incidents), incidents + "; " + strconv.Itoa(s.Open) + " open"},
		{"Time to resolve", col("median_resolve_s").Text(s), "median; p90 " + col("p90_resolve_s").Text(s)},
		{"Posted after the start", col("median_posting_lag_s").Text(s), "median, as first seen by this archive"},
		{"First update after the start", col("median_first_update_s").Text(s), "median, as the vendor dates it"},
		{"Postmortems", col("postmortem_rate").Text(s), strconv.Itoa(s.Postmortems) + " published; median " + col("median_postmortem_delay_s").Text(s) + " after resolution"},
		{"Edited after posting", strconv.Itoa(s.IncidentsWithSilentEdits), plural(e.UpdatesEdited, "update edited", "updates edited") + ", " + plural(e.UpdatesRemoved, "removed", "removed")},
		{"Other edits", strconv.Itoa(e.TitlesChanged + e.Backdated + e.ImpactLoweredAfterResolution + e.IncidentsRemoved),
			plural(e.TitlesChanged, "title changed", "titles changed") + ", " + strconv.Itoa(e.Backdated) + " backdated, " +
				strconv.Itoa(e.ImpactLoweredAfterResolution) + " impact lowered after resolution, " + strconv.Itoa(e.IncidentsRemoved) + " deleted"},
		{"Component outage", col("component_outage_s").Text(s), "partial or major, summed over the components"},
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
