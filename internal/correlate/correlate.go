// Package correlate answers "is it the cloud?": which incidents of different sources are
// related, and which related incidents form cross-vendor events. It is pure: it reads the
// incidents it is given (each with its active window and the terms of the vocabulary
// found in it) and decides by fixed rules, explaining each relation with its reasons
// (docs/design.md, "Related incidents and events").
package correlate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultWindow is correlation.window's default: two incidents whose active windows do
// not overlap are still related when they started within it of each other.
const DefaultWindow = 30 * time.Minute

// Bounds of the work, so that a large archive or a hostile page cannot make a read
// unbounded.
const (
	// MaxPairs caps the candidate pairs examined in one Correlate: past it, later
	// candidates are not examined (Result.Truncated).
	MaxPairs = 500_000
	// MaxRelated caps the relations kept for one incident.
	MaxRelated = 100
)

// Incident is what correlation needs of one incident.
type Incident struct {
	Source, ID, Title string
	// Start and End are its active window: from its start to its resolution (or now,
	// while it is open). Open marks one still going on: End is then the time of the read.
	Start, End time.Time
	Open       bool
	// Terms are the vocabulary terms found in it (Vocabulary.Find over its title,
	// components, updates, postmortem and its source's name).
	Terms []string
}

// Ref names an incident.
type Ref struct{ Source, ID string }

// Options tune Correlate.
type Options struct {
	// Window is correlation.window; 0 means DefaultWindow, a negative one none (only
	// overlapping incidents are related).
	Window time.Duration
	// DependsOn is each source's depends_on: the sources it runs on.
	DependsOn map[string][]string
	// Vocabulary, when set, keeps the reasons to the most specific shared terms: a
	// shared term that another shared term implies ("AWS" beside "us-east-1") is in
	// Relation.Terms and the event's terms, not in the reasons.
	Vocabulary *Vocabulary
}

// Relation is one related incident, as seen from another, with the reasons.
type Relation struct {
	Incident *Incident
	// Reasons say why, evidence first, then time: "same term: us-east-1",
	// "twingate depends on gcp", "started 7m apart".
	Reasons []string
	// Terms are the shared terms, sorted.
	Terms []string
}

// Event is a connected group of related incidents of at least two sources.
type Event struct {
	// ID is the earliest incident's "source.id" (a source name has no dot): stable while
	// no incident that started earlier joins.
	ID         string
	Start, End time.Time // End is zero while an incident of it is open
	Sources    []string  // sorted
	Incidents  []*Incident
	// Terms are the terms shared by its relations, sorted.
	Terms []string
}

// Result is what Correlate found. Its methods are safe for concurrent use.
type Result struct {
	related map[Ref][]Relation
	events  []*Event // newest first
	byID    map[string]*Event
	of      map[Ref]*Event
	// Truncated reports that MaxPairs stopped the examination: some relations may be
	// missing.
	Truncated bool
}

// Related returns the relations of an incident, by the other's start then source and id;
// nil for an incident with none.
func (r *Result) Related(source, id string) []Relation { return r.related[Ref{source, id}] }

// Events returns every event, newest first (by start, then id).
func (r *Result) Events() []*Event { return r.events }

// Event returns the event of that id, or nil.
func (r *Result) Event(id string) *Event { return r.byID[id] }

// EventOf returns the event an incident belongs to, or nil.
func (r *Result) EventOf(source, id string) *Event { return r.of[Ref{source, id}] }

// Correlate decides the relations between incs and groups them into events. Two
// incidents are related when they are of different sources, their active windows overlap
// or they started within the window of each other, and they share evidence: a term, or a
// depends_on link (one depends on the other's source, or both depend on the same source).
// The result depends on incs and o only, not on their order; it points into incs (an End
// before its Start is set to the Start).
func Correlate(incs []Incident, o Options) *Result {
	window := cmp.Or(o.Window, DefaultWindow)
	if window < 0 {
		window = 0
	}
	list := make([]*Incident, 0, len(incs))
	for i := range incs {
		in := &incs[i]
		if in.End.Before(in.Start) {
			in.End = in.Start
		}
		list = append(list, in)
	}
	slices.SortFunc(list, compareIncidents)
	deps := dependsOn(o.DependsOn)

	res := &Result{related: map[Ref][]Relation{}, byID: map[string]*Event{}, of: map[Ref]*Event{}}
	parent := make([]int, len(list))
	for i := range parent {
		parent[i] = i
	}
	shared := make([]map[string]bool, len(list)) // the terms each incident's relations share
	// A sweep by start: list[j] is a candidate for list[i] (j < i) while it started
	// within the window of list[i] or was still active when list[i] started. active holds
	// the candidates, dropped once list[i] starts past them.
	var active []int
	reach := func(j int) time.Time {
		return maxTime(list[j].End, list[j].Start.Add(window))
	}
	pairs := 0
sweep:
	for i, b := range list {
		kept := active[:0]
		for _, j := range active {
			if !reach(j).Before(b.Start) {
				kept = append(kept, j)
			}
		}
		active = kept
		for _, j := range active {
			a := list[j]
			if pairs++; pairs > MaxPairs {
				res.Truncated = true
				break sweep
			}
			if a.Source == b.Source {
				continue
			}
			reasons, terms := evidence(a, b, deps, o.Vocabulary)
			if len(reasons) == 0 {
				continue
			}
			reasons = append(reasons, when(a, b, window))
			res.relate(a, b, reasons, terms)
			res.relate(b, a, reasons, terms)
			union(parent, j, i)
			for _, k := range []int{i, j} {
				for _, t := range terms {
					if shared[k] == nil {
						shared[k] = map[string]bool{}
					}
					shared[k][t] = true
				}
			}
		}
		active = append(active, i)
	}
	for k, rels := range res.related {
		slices.SortFunc(rels, func(x, y Relation) int { return compareIncidents(x.Incident, y.Incident) })
		if len(rels) > MaxRelated {
			rels = rels[:MaxRelated]
		}
		res.related[k] = rels
	}
	res.group(list, parent, shared)
	return res
}

// relate records b as related to a.
func (r *Result) relate(a, b *Incident, reasons, terms []string) {
	k := Ref{a.Source, a.ID}
	r.related[k] = append(r.related[k], Relation{Incident: b, Reasons: reasons, Terms: terms})
}

// group builds the events: the connected groups of related incidents.
func (r *Result) group(list []*Incident, parent []int, shared []map[string]bool) {
	members := map[int][]int{}
	for i := range list {
		if _, ok := r.related[Ref{list[i].Source, list[i].ID}]; !ok {
			continue
		}
		root := find(parent, i)
		members[root] = append(members[root], i)
	}
	for _, ms := range members {
		slices.Sort(ms) // list is sorted: the first is the earliest
		first := list[ms[0]]
		ev := &Event{ID: first.Source + "." + first.ID, Start: first.Start}
		sources, terms := map[string]bool{}, map[string]bool{}
		open := false
		for _, m := range ms {
			in := list[m]
			ev.Incidents = append(ev.Incidents, in)
			sources[in.Source] = true
			for t := range shared[m] {
				terms[t] = true
			}
			open = open || in.Open
			ev.End = maxTime(ev.End, in.End)
		}
		if open {
			ev.End = time.Time{}
		}
		ev.Sources = sortedKeys(sources)
		ev.Terms = sortedKeys(terms)
		r.events = append(r.events, ev)
		r.byID[ev.ID] = ev
		for _, in := range ev.Incidents {
			r.of[Ref{in.Source, in.ID}] = ev
		}
	}
	slices.SortFunc(r.events, func(a, b *Event) int {
		return cmp.Or(b.Start.Compare(a.Start), strings.Compare(b.ID, a.ID))
	})
}

// evidence is what a and b share: their common terms, then their depends_on links.
func evidence(a, b *Incident, deps map[string]map[string]bool, v *Vocabulary) (reasons, terms []string) {
	for _, t := range a.Terms {
		if slices.Contains(b.Terms, t) {
			terms = append(terms, t)
		}
	}
	slices.SortFunc(terms, compareTerms)
	terms = slices.Compact(terms)
	for _, t := range terms {
		if !v.impliedBy(t, terms) {
			reasons = append(reasons, "same term: "+t)
		}
	}
	if deps[a.Source][b.Source] {
		reasons = append(reasons, a.Source+" depends on "+b.Source)
	}
	if deps[b.Source][a.Source] {
		reasons = append(reasons, b.Source+" depends on "+a.Source)
	}
	var common []string
	for d := range deps[a.Source] {
		if deps[b.Source][d] {
			common = append(common, d)
		}
	}
	slices.Sort(common)
	for _, d := range common {
		reasons = append(reasons, "both depend on "+d)
	}
	return reasons, terms
}

// when is the time reason: how far apart a and b started, or, past the window, how long
// their active windows overlapped.
func when(a, b *Incident, window time.Duration) string {
	apart := b.Start.Sub(a.Start).Abs()
	if apart <= window {
		if apart < time.Minute {
			return "started less than a minute apart"
		}
		return "started " + Duration(apart) + " apart"
	}
	from, to := maxTime(a.Start, b.Start), minTime(a.End, b.End)
	if to.Sub(from) < time.Minute {
		return "overlapping"
	}
	return "overlapping for " + Duration(to.Sub(from))
}

// Duration writes d to the minute as the reasons do: "7m", "2h 5m", "3d 4h".
func Duration(d time.Duration) string {
	m := int(d / time.Minute)
	switch {
	case m < 60:
		return fmt.Sprintf("%dm", m)
	case m < 24*60:
		if m%60 == 0 {
			return fmt.Sprintf("%dh", m/60)
		}
		return fmt.Sprintf("%dh %dm", m/60, m%60)
	}
	days, hours := m/(24*60), (m%(24*60))/60
	if hours == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd %dh", days, hours)
}

// dependsOn is depends_on as a set per source.
func dependsOn(m map[string][]string) map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(m))
	for src, deps := range m {
		set := map[string]bool{}
		for _, d := range deps {
			if d != src {
				set[d] = true
			}
		}
		out[src] = set
	}
	return out
}

// compareIncidents orders incidents by start, then source, then id.
func compareIncidents(a, b *Incident) int {
	return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.Source, b.Source), strings.Compare(a.ID, b.ID))
}

// compareTerms orders terms case-insensitively, then as written.
func compareTerms(a, b string) int {
	return cmp.Or(strings.Compare(strings.ToLower(a), strings.ToLower(b)), strings.Compare(a, b))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compareTerms)
	return out
}

func find(parent []int, i int) int {
	for parent[i] != i {
		parent[i] = parent[parent[i]]
		i = parent[i]
	}
	return i
}

func union(parent []int, a, b int) {
	ra, rb := find(parent, a), find(parent, b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	parent[rb] = ra
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
