package figures

import (
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func mins(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

func up(id, body string, at time.Time) model.Update {
	return model.Update{ID: id, Status: model.StatusInvestigating, Body: body, Format: model.FormatText, PostedAt: at}
}

// history is an incident's versions from its successive states, as the archive keeps
// them, newest first: version 1 with no change set, each later one with its change
// from the one before. It returns the latest state too.
func history(states ...model.Incident) (*model.Incident, []*model.Version) {
	vs := make([]*model.Version, len(states))
	for i := range states {
		vs[i] = &model.Version{N: i + 1, Incident: states[i]}
		if i > 0 {
			vs[i].Changes = diff.Changes(&states[i-1], &states[i])
		}
	}
	slices.Reverse(vs)
	return &states[len(states)-1], vs
}

// walk reads the facts of versions (newest first) as the archive does, from each
// version's number and fields, decoding those w asks for, and counts those in *decoded.
func walk(w *Walk, l Listing, latest *model.Incident, versions []*model.Version, decoded *int) *IncidentFacts {
	w.Start(l, latest)
	for _, v := range versions {
		if !w.More() {
			break
		}
		var fields []string
		for _, c := range v.Changes {
			fields = append(fields, c.Field)
		}
		decode, more := w.Version(v.N, fields)
		if decode {
			*decoded++
			w.Decoded(v)
		}
		if !more {
			break
		}
	}
	return w.Facts()
}

// TestIncident reads the facts of short histories, one kind of edit each.
func TestIncident(t *testing.T) {
	base := model.Incident{ID: "a", Title: "API errors", Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		StartedAt: mins(0), Updates: []model.Update{up("u1", "Looking.", mins(5))}}
	with := func(change func(*model.Incident)) model.Incident {
		i := base
		i.Updates = slices.Clone(base.Updates)
		change(&i)
		return i
	}
	resolved := func(i *model.Incident) { i.Status, i.ResolvedAt = model.StatusResolved, mins(60) }
	tests := []struct {
		name    string
		listing Listing
		states  []model.Incident
		want    IncidentFacts
		decodes int // versions that moved the start or the impact
	}{
		{"one version", Listing{ID: "a", FirstSeen: mins(1)}, []model.Incident{with(func(i *model.Incident) {
			i.Updates = append(i.Updates, up("u0", "First.", mins(2)))
			i.Postmortem = &model.Postmortem{Body: "Why.", Format: model.FormatText, PublishedAt: mins(90)}
		})}, IncidentFacts{ID: "a", Impact: model.ImpactMajor, Open: true, StartedAt: mins(0), FirstSeen: mins(1),
			FirstUpdateAt: mins(2), Postmortem: true, PostmortemAt: mins(90)}, 0},
		{"title changed, an update edited twice", Listing{ID: "a"}, []model.Incident{base,
			with(func(i *model.Incident) { i.Title = "API errors in eu-west"; i.Updates[0].Body = "Looking hard." }),
			with(func(i *model.Incident) { i.Title = "API errors in eu-west"; i.Updates[0].Body = "Looking harder." }),
		}, IncidentFacts{ID: "a", Impact: model.ImpactMajor, Open: true, StartedAt: mins(0), FirstUpdateAt: mins(5),
			TitleChanged: true, UpdatesEdited: 1}, 0},
		{"an update added, then removed", Listing{ID: "a"}, []model.Incident{base,
			with(func(i *model.Incident) { i.Updates = append(i.Updates, up("u2", "More.", mins(10))) }),
			base,
		}, IncidentFacts{ID: "a", Impact: model.ImpactMajor, Open: true, StartedAt: mins(0), FirstUpdateAt: mins(5),
			UpdatesRemoved: 1}, 0},
		{"backdated", Listing{ID: "a"}, []model.Incident{base, with(func(i *model.Incident) { i.StartedAt = mins(-20) })},
			IncidentFacts{ID: "a", Impact: model.ImpactMajor, Open: true, StartedAt: mins(-20), FirstUpdateAt: mins(5),
				Backdated: true}, 1},
		{"start moved later", Listing{ID: "a"}, []model.Incident{base, with(func(i *model.Incident) { i.StartedAt = mins(20) })},
			IncidentFacts{ID: "a", Impact: model.ImpactMajor, Open: true, StartedAt: mins(20), FirstUpdateAt: mins(5)}, 1},
		{"impact lowered after resolution", Listing{ID: "a"}, []model.Incident{base, with(resolved),
			with(func(i *model.Incident) { resolved(i); i.Impact = model.ImpactMinor }),
		}, IncidentFacts{ID: "a", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(60), FirstUpdateAt: mins(5),
			ImpactLoweredAfterResolution: true}, 1},
		{"impact lowered as it resolves", Listing{ID: "a"}, []model.Incident{base,
			with(func(i *model.Incident) { resolved(i); i.Impact = model.ImpactMinor }),
		}, IncidentFacts{ID: "a", Impact: model.ImpactMinor, StartedAt: mins(0), ResolvedAt: mins(60), FirstUpdateAt: mins(5)}, 1},
		{"impact raised after resolution", Listing{ID: "a"}, []model.Incident{base, with(resolved),
			with(func(i *model.Incident) { resolved(i); i.Impact = model.ImpactCritical }),
		}, IncidentFacts{ID: "a", Impact: model.ImpactCritical, StartedAt: mins(0), ResolvedAt: mins(60), FirstUpdateAt: mins(5)}, 1},
		{"removed: not open", Listing{ID: "a", Removed: true}, []model.Incident{base},
			IncidentFacts{ID: "a", Impact: model.ImpactMajor, Removed: true, StartedAt: mins(0), FirstUpdateAt: mins(5)}, 0},
		{"migrated: not open", Listing{ID: "a", Migrated: true}, []model.Incident{base},
			IncidentFacts{ID: "a", Impact: model.ImpactMajor, StartedAt: mins(0), FirstUpdateAt: mins(5)}, 0},
	}
	var w Walk // one for every case, as for the incidents of a source
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decoded := 0
			latest, versions := history(tt.states...)
			got := walk(&w, tt.listing, latest, versions, &decoded)
			if *got != tt.want {
				t.Errorf("facts:\n got %+v\nwant %+v", *got, tt.want)
			}
			if decoded != tt.decodes {
				t.Errorf("decoded %d versions, want %d", decoded, tt.decodes)
			}
		})
	}
}

// TestWalkBound: a history longer than MaxVersions is read to its bound and marked
// truncated; the next incident walked with the same Walk is not.
func TestWalkBound(t *testing.T) {
	latest := &model.Incident{ID: "a", Status: model.StatusResolved}
	var w Walk
	w.Start(Listing{ID: "a"}, latest)
	read := 0
	for n := MaxVersions + 500; n >= 1 && w.More(); n-- {
		read++
		if _, more := w.Version(n, []string{diff.FieldTitle}); !more {
			break
		}
	}
	if f := w.Facts(); !f.Truncated || !f.TitleChanged || read != MaxVersions {
		t.Errorf("long history: %+v after %d versions; want truncated after %d", f, read, MaxVersions)
	}
	w.Start(Listing{ID: "b"}, latest)
	if w.More() {
		w.Version(1, nil)
	}
	if f := w.Facts(); f.Truncated || f.TitleChanged || f.ID != "b" {
		t.Errorf("the next incident: %+v", f)
	}
}

// TestComponentOutage sums the outage of component sets over a window of an hour.
func TestComponentOutage(t *testing.T) {
	comp := func(name string, s model.ComponentStatus) model.Component {
		return model.Component{Name: name, Status: s}
	}
	change := func(name string, to model.ComponentStatus) model.ComponentChange {
		return model.ComponentChange{Key: comp(name, to).Key(), Component: name, To: to}
	}
	from, to := mins(0), mins(60)
	tests := []struct {
		name      string
		start     *model.Components
		steps     []ComponentStep
		has       bool
		total     time.Duration
		wantSteps int // steps read
	}{
		{"no set", nil, nil, false, 0, 0},
		{"operational throughout", &model.Components{List: []model.Component{comp("API", model.ComponentOperational)}}, nil, true, 0, 0},
		{"out throughout", &model.Components{List: []model.Component{comp("API", model.ComponentMajorOutage)}}, nil, true, time.Hour, 0},
		{"degraded is no outage", &model.Components{List: []model.Component{comp("API", model.ComponentDegraded)}}, nil, true, 0, 0},
		{"first set inside the window", nil, []ComponentStep{
			{At: mins(10), Changes: []model.ComponentChange{change("API", model.ComponentMajorOutage)}},
			{At: mins(30), Changes: []model.ComponentChange{change("API", model.ComponentPartialOutage)}},
			{At: mins(40), Changes: []model.ComponentChange{change("API", model.ComponentOperational)}},
		}, true, 30 * time.Minute, 3},
		{"two out at once, a step after the window", &model.Components{List: []model.Component{
			comp("API", model.ComponentMajorOutage), comp("Web", model.ComponentOperational)}}, []ComponentStep{
			{At: mins(20), Changes: []model.ComponentChange{change("Web", model.ComponentPartialOutage)}},
			{At: mins(50), Changes: []model.ComponentChange{change("API", model.ComponentOperational), change("Web", model.ComponentOperational)}},
			{At: mins(70), Changes: []model.ComponentChange{change("API", model.ComponentMajorOutage)}},
		}, true, 50*time.Minute + 30*time.Minute, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := 0
			steps := func(yield func(ComponentStep) bool) {
				for _, st := range tt.steps {
					read++
					if !yield(st) {
						return
					}
				}
			}
			has, total := ComponentOutage(tt.start, steps, from, to)
			if has != tt.has || total != tt.total {
				t.Errorf("got %v %v, want %v %v", has, total, tt.has, tt.total)
			}
			if read != tt.wantSteps {
				t.Errorf("read %d steps, want %d", read, tt.wantSteps)
			}
		})
	}
}
