package query

import (
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The bounds of a figures window in days, and its default.
const (
	DefaultStatsDays = 90
	MaxStatsDays     = 3650
)

const day = 24 * time.Hour

// Stats returns the vendor figures of source (of every archived source, by name, when
// source is empty) over the days up to now, read in one transaction
// (archive.Store.Facts). A known source with nothing archived has none: the caller
// answers it with Figures of no facts.
func Stats(st *archive.Store, source string, days int, now time.Time) ([]api.SourceStats, error) {
	facts, err := st.Facts(source, now.Add(-time.Duration(days)*day), now)
	if err != nil {
		return nil, err
	}
	out := make([]api.SourceStats, len(facts))
	for i := range facts {
		out[i] = Figures(&facts[i], days)
	}
	return out, nil
}

// Figures computes one source's vendor figures from its facts over a window of days.
// Medians of an even count are the mean of the middle two; p90 is the nearest rank
// (the smallest value at or above 90% of them). Durations that come out negative (a
// vendor's clock, or a start given after the first post) count as zero.
func Figures(f *archive.SourceFacts, days int) api.SourceStats {
	out := api.SourceStats{Source: f.Source, Days: days}
	var resolve, lag, firstUpdate, pmDelay []time.Duration
	for i := range f.Incidents {
		in := &f.Incidents[i]
		out.Incidents++
		switch in.Impact {
		case model.ImpactNone:
			out.ByImpact.None++
		case model.ImpactMinor:
			out.ByImpact.Minor++
		case model.ImpactMajor:
			out.ByImpact.Major++
		case model.ImpactCritical:
			out.ByImpact.Critical++
		default:
			out.ByImpact.Unknown++
		}
		if in.Open {
			out.Open++
		}
		started := !in.StartedAt.IsZero()
		if started && !in.ResolvedAt.IsZero() && !in.Open {
			resolve = append(resolve, max(0, in.ResolvedAt.Sub(in.StartedAt)))
		}
		if started && !in.OnFirstPoll {
			lag = append(lag, max(0, in.FirstSeen.Sub(in.StartedAt)))
		}
		if started && !in.FirstUpdateAt.IsZero() {
			firstUpdate = append(firstUpdate, max(0, in.FirstUpdateAt.Sub(in.StartedAt)))
		}
		if in.Postmortem {
			out.Postmortems++
			if !in.PostmortemAt.IsZero() && !in.ResolvedAt.IsZero() {
				pmDelay = append(pmDelay, max(0, in.PostmortemAt.Sub(in.ResolvedAt)))
			}
		}
		e := &out.Edits
		e.UpdatesEdited += in.UpdatesEdited
		e.UpdatesRemoved += in.UpdatesRemoved
		e.TitlesChanged += count(in.TitleChanged)
		e.Backdated += count(in.Backdated)
		e.ImpactLoweredAfterResolution += count(in.ImpactLoweredAfterResolution)
		e.IncidentsRemoved += count(in.Removed)
		out.IncidentsWithSilentEdits += count(in.UpdatesEdited > 0 || in.UpdatesRemoved > 0)
	}
	out.MedianResolveS = seconds(median(resolve))
	out.P90ResolveS = seconds(percentile(resolve, 90))
	out.MedianPostingLagS = seconds(median(lag))
	out.MedianFirstUpdateS = seconds(median(firstUpdate))
	out.MedianPostmortemDelayS = seconds(median(pmDelay))
	if out.Incidents > 0 {
		r := float64(out.Postmortems) / float64(out.Incidents)
		out.PostmortemRate = &r
	}
	if f.HasComponents {
		s := f.ComponentOutage.Seconds()
		out.ComponentOutageS = &s
	}
	return out
}

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

// median is the median of ds (sorting it), nil for none.
func median(ds []time.Duration) *time.Duration {
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	m := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		m = ds[len(ds)/2-1] + (m-ds[len(ds)/2-1])/2
	}
	return &m
}

// percentile is the nearest-rank p-th percentile of ds (sorting it), nil for none.
func percentile(ds []time.Duration, p int) *time.Duration {
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	rank := (p*len(ds) + 99) / 100 // ⌈p·n/100⌉, from 1
	d := ds[max(rank, 1)-1]
	return &d
}

// seconds is d in seconds, nil for nil.
func seconds(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	s := d.Seconds()
	return &s
}

// StatsRows is the figures of every source over the days up to now, one row each: first
// the sources named, in that order (a source with nothing archived has figures of
// nothing), then every other archived source by name.
func StatsRows(st *archive.Store, names []string, days int, now time.Time) ([]api.SourceStats, error) {
	rows, err := Stats(st, "", days, now)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]api.SourceStats, len(rows))
	for _, row := range rows {
		byName[row.Source] = row
	}
	out := make([]api.SourceStats, 0, max(len(rows), len(names)))
	named := make(map[string]bool, len(names))
	for _, name := range names {
		row, ok := byName[name]
		if !ok {
			row = Figures(&archive.SourceFacts{Source: name}, days)
		}
		out = append(out, row)
		named[name] = true
	}
	for _, row := range rows { // by name, as the archive lists them
		if !named[row.Source] {
			out = append(out, row)
		}
	}
	return out, nil
}
