package ui

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// change is one archived version of an incident, the change that made it, as the
// dashboard and the Atom feeds list them; or, when sight is set, the incidents a
// source's first poll archived, which stand as one item.
type change struct {
	info  *archive.IncidentInfo
	v     *model.Version
	sight *firstSight
}

// at is when the change was observed.
func (c change) at() time.Time {
	if c.sight != nil {
		return c.sight.At
	}
	return c.v.ObservedAt
}

// firstSight is what a source's first poll archived: the incidents already on the page
// when statuswatch first read it. Their version 1 says when they were archived, not that
// they appeared, so listings show them as one line per source, never as new.
type firstSight struct {
	Source    string
	At        time.Time               // the first poll's observation time
	Incidents []*archive.IncidentInfo // most recent first
}

// firstSights finds, per source of infos, the incidents of its first poll: those whose
// version 1 was observed when the source's first incidents were, provided that was on
// its first poll (a page that listed nothing at first had none).
func (s *Site) firstSights(infos []archive.IncidentInfo) (map[string]*firstSight, error) {
	sources, err := s.store.Sources()
	if err != nil {
		return nil, err
	}
	firstPoll := make(map[string]time.Time, len(sources))
	for _, src := range sources {
		firstPoll[src.Name] = src.FirstPoll
	}
	out := map[string]*firstSight{}
	for i := range infos {
		in := &infos[i]
		g := out[in.Source]
		switch {
		case g == nil || in.FirstSeen.Before(g.At):
			out[in.Source] = &firstSight{Source: in.Source, At: in.FirstSeen, Incidents: []*archive.IncidentInfo{in}}
		case in.FirstSeen.Equal(g.At):
			g.Incidents = append(g.Incidents, in)
		}
	}
	for name, g := range out {
		// An archive written before the first poll's time was kept has no FirstPoll, or
		// one a moment after it (when it was recorded).
		if fp := firstPoll[name]; !fp.IsZero() && g.At.After(fp) {
			delete(out, name)
			continue
		}
		slices.SortFunc(g.Incidents, func(a, b *archive.IncidentInfo) int { return view.CompareKeys(view.KeyOf(a), view.KeyOf(b)) })
	}
	return out, nil
}

// has reports whether v is an incident's version 1 from its source's first poll.
func (g *firstSight) has(v *model.Version) bool {
	return g != nil && v.N == 1 && v.ObservedAt.Equal(g.At)
}

// recentChanges returns the n most recent changes among the incidents of infos, newest
// first, each source's first poll as one item. The archive keeps no index of versions by
// time, but it need not: the n most recent changes all belong to the n most recently
// changed incidents (any other incident has n changes newer than its latest), leaving
// out those whose only version is of a first poll. So it merges, newest first, the
// version histories of those n incidents, reading one version at a time: at most 2n
// short reads, however large the archive.
func (s *Site) recentChanges(infos []archive.IncidentInfo, n int) ([]change, error) {
	sights, err := s.firstSights(infos)
	if err != nil {
		return nil, err
	}
	cands := make([]*archive.IncidentInfo, 0, len(infos))
	for i := range infos {
		in := &infos[i]
		if g := sights[in.Source]; in.Versions == 1 && g != nil && in.FirstSeen.Equal(g.At) {
			continue
		}
		cands = append(cands, in)
	}
	slices.SortFunc(cands, func(a, b *archive.IncidentInfo) int {
		return cmp.Or(b.LastChanged.Compare(a.LastChanged), strings.Compare(a.Source, b.Source), strings.Compare(a.ID, b.ID))
	})
	cands = cands[:min(n, len(cands))]

	heads := make([]change, 0, len(cands)) // each incident's newest version not yet taken
	for _, in := range cands {
		v, err := s.store.Version(in.Source, in.ID, in.Versions)
		if err != nil {
			return nil, err
		}
		heads = append(heads, change{info: in, v: v})
	}
	var out []change
	for len(out) < n && len(heads) > 0 {
		best := 0
		for i := 1; i < len(heads); i++ {
			if heads[i].v.ObservedAt.After(heads[best].v.ObservedAt) {
				best = i
			}
		}
		c := heads[best]
		if !sights[c.info.Source].has(c.v) {
			out = append(out, c)
		}
		if c.v.N == 1 {
			heads = slices.Delete(heads, best, best+1)
			continue
		}
		prev, err := s.store.Version(c.info.Source, c.info.ID, c.v.N-1)
		if errors.Is(err, archive.ErrNotFound) {
			heads = slices.Delete(heads, best, best+1)
			continue
		}
		if err != nil {
			return nil, err
		}
		heads[best] = change{info: c.info, v: prev}
	}
	for _, g := range sights {
		out = append(out, change{sight: g})
	}
	slices.SortStableFunc(out, func(a, b change) int {
		return cmp.Or(b.at().Compare(a.at()), cmp.Compare(sightRank(a), sightRank(b)))
	})
	return out[:min(n, len(out))], nil
}

// sightRank orders a first poll after the changes observed at the same time, and first
// polls by source.
func sightRank(c change) string {
	if c.sight == nil {
		return ""
	}
	return "\xff" + c.sight.Source
}

// changeRow is a change as the dashboard lists it, under the incident's current title
// (the feed keeps the title each change had).
type changeRow struct {
	At                             view.Stamp
	Source, SourceTitle, SourceURL string
	Title, IncidentURL             string
	N                              int
	URL                            string // the change view
	Summary                        string
	FirstSight                     bool    // the incidents of the source's first poll, as one row
	Sighted                        []crumb // of a first poll: the most recent of its incidents
	More                           int     // and how many more it archived
}

// sightedOnDashboard is how many of a first poll's incidents its dashboard row names.
const sightedOnDashboard = 3

func (s *Site) changeRow(c change) changeRow {
	if g := c.sight; g != nil {
		row := changeRow{
			At:     s.stamp(g.At),
			Source: g.Source, SourceTitle: s.title(g.Source), SourceURL: s.paths.Source(g.Source),
			Title: "Archived on first sight", URL: s.paths.Source(g.Source) + "#incidents-h",
			Summary:    firstSightSummary(len(g.Incidents)),
			FirstSight: true,
			More:       max(0, len(g.Incidents)-sightedOnDashboard),
		}
		for _, in := range g.Incidents[:min(sightedOnDashboard, len(g.Incidents))] {
			row.Sighted = append(row.Sighted, crumb{view.Title(&in.Latest), s.paths.Incident(in.Source, in.ID)})
		}
		return row
	}
	return changeRow{
		At:     s.stamp(c.v.ObservedAt),
		Source: c.info.Source, SourceTitle: s.title(c.info.Source), SourceURL: s.paths.Source(c.info.Source),
		Title: view.Title(&c.info.Latest), IncidentURL: s.paths.Incident(c.info.Source, c.info.ID),
		N: c.v.N, URL: s.paths.Change(c.info.Source, c.info.ID, c.v.N),
		Summary: c.v.Summary,
	}
}

// summaryOf is the summary of version n of an incident, observed at observedAt, as
// listings show it: a version 1 of the source's first poll was archived as found, so it reads "Archived
// on first sight: resolved, minor impact; 2 updates." rather than "New incident: …".
// firstPoll is the source's (archive.SourceInfo.FirstPoll).
func summaryOf(n int, observedAt time.Time, summary string, firstPoll time.Time) string {
	if n != 1 || firstPoll.IsZero() || !observedAt.Equal(firstPoll) {
		return summary
	}
	for _, p := range []string{"New incident", "New maintenance"} {
		if rest, ok := strings.CutPrefix(summary, p); ok {
			return "Archived on first sight" + rest
		}
	}
	return summary
}

// firstPoll is the observation time of source's first poll, zero when unknown (an
// archive read fails the same way on the next read, where it is reported).
func (s *Site) firstPoll(source string) time.Time {
	sources, err := s.store.Sources()
	if err != nil {
		return time.Time{}
	}
	for _, src := range sources {
		if src.Name == source {
			return src.FirstPoll
		}
	}
	return time.Time{}
}

// firstSightSummary says what a first poll archived, without a full stop.
func firstSightSummary(n int) string {
	return view.Plural(n, "incident") + " already on the page when statuswatch first read it, archived as found"
}
