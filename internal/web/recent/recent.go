// Package recent finds the latest changes across the archive's incidents, for the
// dashboard and the Atom feeds, without an index of versions by time; and it tells apart
// the incidents a source's first poll archived, which were already on the page, not new.
package recent

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

// Change is one archived version of an incident, the change that made it, as the
// dashboard and the Atom feeds list them; or, when Sight is set, the incidents a
// source's first poll archived, which stand as one item.
type Change struct {
	Info  *archive.IncidentInfo
	V     *model.Version
	Sight *FirstSight
}

// At is when the change was observed.
func (c Change) At() time.Time {
	if c.Sight != nil {
		return c.Sight.At
	}
	return c.V.ObservedAt
}

// FirstSight is what a source's first poll archived: the incidents already on the page
// when statuswatch first read it. Their version 1 says when they were archived, not that
// they appeared, so listings show them as one line per source, never as new.
type FirstSight struct {
	Source    string
	At        time.Time               // the first poll's observation time
	Incidents []*archive.IncidentInfo // most recent first
}

// firstSights finds, per source of infos, the incidents of its first poll: those whose
// version 1 was observed when the source's first incidents were, provided that was on
// its first poll (a page that listed nothing at first had none).
func firstSights(st *archive.Store, infos []archive.IncidentInfo) (map[string]*FirstSight, error) {
	sources, err := st.Sources()
	if err != nil {
		return nil, err
	}
	firstPoll := make(map[string]time.Time, len(sources))
	for _, src := range sources {
		firstPoll[src.Name] = src.FirstPoll
	}
	out := map[string]*FirstSight{}
	for i := range infos {
		in := &infos[i]
		g := out[in.Source]
		switch {
		case g == nil || in.FirstSeen.Before(g.At):
			out[in.Source] = &FirstSight{Source: in.Source, At: in.FirstSeen, Incidents: []*archive.IncidentInfo{in}}
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
func (g *FirstSight) has(v *model.Version) bool {
	return g != nil && v.N == 1 && v.ObservedAt.Equal(g.At)
}

// Changes returns the n most recent changes among the incidents of infos, newest
// first, each source's first poll as one item. The archive keeps no index of versions by
// time, but it need not: the n most recent changes all belong to the n most recently
// changed incidents (any other incident has n changes newer than its latest), leaving
// out those whose only version is of a first poll. So it merges, newest first, the
// version histories of those n incidents, reading one version at a time: at most 2n
// short reads, however large the archive.
func Changes(st *archive.Store, infos []archive.IncidentInfo, n int) ([]Change, error) {
	sights, err := firstSights(st, infos)
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

	heads := make([]Change, 0, len(cands)) // each incident's newest version not yet taken
	for _, in := range cands {
		v, err := st.Version(in.Source, in.ID, in.Versions)
		if err != nil {
			return nil, err
		}
		heads = append(heads, Change{Info: in, V: v})
	}
	var out []Change
	for len(out) < n && len(heads) > 0 {
		best := 0
		for i := 1; i < len(heads); i++ {
			if heads[i].V.ObservedAt.After(heads[best].V.ObservedAt) {
				best = i
			}
		}
		c := heads[best]
		if !sights[c.Info.Source].has(c.V) {
			out = append(out, c)
		}
		if c.V.N == 1 {
			heads = slices.Delete(heads, best, best+1)
			continue
		}
		prev, err := st.Version(c.Info.Source, c.Info.ID, c.V.N-1)
		if errors.Is(err, archive.ErrNotFound) {
			heads = slices.Delete(heads, best, best+1)
			continue
		}
		if err != nil {
			return nil, err
		}
		heads[best] = Change{Info: c.Info, V: prev}
	}
	for _, g := range sights {
		out = append(out, Change{Sight: g})
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		return cmp.Or(b.At().Compare(a.At()), cmp.Compare(sightRank(a), sightRank(b)))
	})
	return out[:min(n, len(out))], nil
}

// sightRank orders a first poll after the changes observed at the same time, and first
// polls by source.
func sightRank(c Change) string {
	if c.Sight == nil {
		return ""
	}
	return "\xff" + c.Sight.Source
}

// SummaryOf is the summary of version n of an incident, observed at observedAt, as
// listings show it: a version 1 of the source's first poll was archived as found, so it reads "Archived
// on first sight: resolved, minor impact; 2 updates." rather than "New incident: …".
// firstPoll is the source's (archive.SourceInfo.FirstPoll).
func SummaryOf(n int, observedAt time.Time, summary string, firstPoll time.Time) string {
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

// FirstPoll is the observation time of source's first poll, zero when unknown (an
// archive read fails the same way on the next read, where it is reported).
func FirstPoll(st *archive.Store, source string) time.Time {
	sources, err := st.Sources()
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
