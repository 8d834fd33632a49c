// Package archived correlates the incidents of an archive: it reads the latest version of
// every incident, finds the vocabulary's terms in each and hands them to
// correlate.Correlate, keeping the result while the archive is unchanged (its
// Generation). The web server answers /related and /events from it, and the notifier
// names the other sources of an event in a Slack root.
package archived

import (
	"slices"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/correlate"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// Options configure an Index.
type Options struct {
	// Correlate is correlation.window and the sources' depends_on.
	Correlate correlate.Options
	// TitleOf is a source's display name, whose terms its incidents carry (an incident
	// of the "Google Cloud" page is a GCP incident); nil or empty: the source's name.
	TitleOf func(source string) string
	// Now is the clock: an open incident is active until now. nil means time.Now.
	Now func() time.Time
	// Vocabulary is the terms; nil means correlate.Default().
	Vocabulary *correlate.Vocabulary
}

// Index is the correlation of an archive's incidents, computed on read and kept until the
// archive changes. Its methods are safe for concurrent use.
type Index struct {
	store *archive.Store
	o     Options

	mu    sync.Mutex // held while computing, so that concurrent readers compute once
	gen   uint64
	res   *correlate.Result
	terms map[termKey][]string // the terms of each incident version, kept across computes
}

// termKey names an incident version and the source title its terms were found with.
type termKey struct {
	source, id  string
	version     int
	sourceTitle string
}

// New returns an Index of st.
func New(st *archive.Store, o Options) *Index {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Vocabulary == nil {
		o.Vocabulary = correlate.Default()
	}
	o.Correlate.Vocabulary = o.Vocabulary
	return &Index{store: st, o: o, terms: map[termKey][]string{}}
}

// Result returns the correlation of the archive as it is now.
func (x *Index) Result() (*correlate.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	gen, err := x.store.Generation()
	if err != nil {
		return nil, err
	}
	if x.res != nil && gen == x.gen {
		return x.res, nil
	}
	infos, err := x.store.Incidents("")
	if err != nil {
		return nil, err
	}
	now := x.o.Now().UTC()
	incs := make([]correlate.Incident, 0, len(infos))
	used := make(map[termKey][]string, len(infos))
	for i := range infos {
		in := &infos[i]
		if in.Latest.Kind == model.KindMaintenance {
			continue // planned work: not a sign of a shared cause
		}
		from, to := view.Span(in, now)
		if from.IsZero() {
			continue
		}
		k := termKey{in.Source, in.ID, in.Versions, x.title(in.Source)}
		terms, ok := x.terms[k]
		if !ok {
			terms = x.o.Vocabulary.Find(Texts(in.Source, k.sourceTitle, &in.Latest)...)
		}
		used[k] = terms
		incs = append(incs, correlate.Incident{
			Source: in.Source, ID: in.ID, Title: view.Title(&in.Latest),
			Start: from, End: to, Open: in.Latest.Open() && !in.Removed,
			Terms: terms,
		})
	}
	x.terms = used // the versions no longer latest are forgotten
	x.res, x.gen = correlate.Correlate(incs, x.o.Correlate), gen
	return x.res, nil
}

// Texts are the texts of an incident the vocabulary is looked for in: its source's name
// and title, its title, components, updates and postmortem.
func Texts(source, sourceTitle string, inc *model.Incident) []string {
	out := make([]string, 0, 4+len(inc.Components)+len(inc.Updates))
	out = append(out, source, sourceTitle, inc.Title)
	out = append(out, inc.Components...)
	for _, u := range inc.Updates {
		out = append(out, u.Body)
	}
	if pm := inc.Postmortem; pm != nil {
		out = append(out, pm.Body)
	}
	return out
}

// AlsoAffected returns the display names of the other sources of the event an incident
// belongs to, sorted; nil when it belongs to none or the archive cannot be read (a Slack
// root is then posted without the line).
func (x *Index) AlsoAffected(source, id string) []string {
	res, err := x.Result()
	if err != nil {
		return nil
	}
	ev := res.EventOf(source, model.URLID(id))
	if ev == nil {
		return nil
	}
	var out []string
	for _, s := range ev.Sources {
		if s != source {
			out = append(out, x.title(s))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (x *Index) title(source string) string {
	if x.o.TitleOf != nil {
		if t := x.o.TitleOf(source); t != "" {
			return t
		}
	}
	return source
}
