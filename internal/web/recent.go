package web

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// change is one archived version of an incident, the change that made it, as the
// dashboard and the Atom feeds list them.
type change struct {
	info *archive.IncidentInfo
	v    *model.Version
}

// recentChanges returns the n most recent changes among the incidents of infos, newest
// first. The archive keeps no index of versions by time, but it need not: the n most
// recent changes all belong to the n most recently changed incidents (any other incident
// has n changes newer than its latest). So it merges, newest first, the version histories
// of those n incidents, reading one version at a time: at most 2n short reads, however
// large the archive.
func (s *Server) recentChanges(infos []archive.IncidentInfo, n int) ([]change, error) {
	cands := make([]*archive.IncidentInfo, 0, len(infos))
	for i := range infos {
		cands = append(cands, &infos[i])
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
		heads = append(heads, change{in, v})
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
		out = append(out, c)
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
		heads[best] = change{c.info, prev}
	}
	return out, nil
}

// changeRow is a change as the dashboard lists it, under the incident's current title
// (the feed keeps the title each change had).
type changeRow struct {
	At                             stamp
	Source, SourceTitle, SourceURL string
	Title, IncidentURL             string
	N                              int
	URL                            string // the change view
	Summary                        string
	New                            bool // version 1: the incident appeared
}

func (s *Server) changeRow(c change) changeRow {
	return changeRow{
		At:     s.stamp(c.v.ObservedAt),
		Source: c.info.Source, SourceTitle: s.title(c.info.Source), SourceURL: s.sourcePath(c.info.Source),
		Title: titleOf(&c.info.Latest), IncidentURL: s.incidentPath(c.info.Source, c.info.ID),
		N: c.v.N, URL: s.changePath(c.info.Source, c.info.ID, c.v.N),
		Summary: c.v.Summary, New: c.v.N == 1,
	}
}
