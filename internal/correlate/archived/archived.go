// Package archived correlates the incidents of an archive: it reads the latest version of
// every incident (with a Horizon, of the recent and open ones), finds the vocabulary's terms in each and hands them to
// correlate.Correlate, keeping the result while the archive is unchanged (its
// Generation) and, across changes, what it found in each incident version (only the
// incidents with a new version are read again). The web server answers /related and
// /events from it, and the notifier names the other sources of an event in a Slack root.
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
	// Horizon, when positive, leaves out the incidents closed that started more than
	// Horizon before now, and maintenance, without reading them: what the notifier asks
	// is about incidents happening now, and correlating a whole archive holds every
	// incident of every source in memory (500,000 at 10,000 sources). Zero correlates
	// every incident, as /events and /related need.
	Horizon time.Duration
}

// Index is the correlation of an archive's incidents, computed on read and kept until the
// archive changes. Its methods are safe for concurrent use.
type Index struct {
	store *archive.Store
	o     Options

	mu    sync.Mutex // held while computing, so that concurrent readers compute once
	gen   uint64
	res   *correlate.Result
	known map[ref]entry // what each incident's latest version gave, kept across computes
	heads archive.HeadCache
}

type ref struct{ source, id string }

// entry is what correlation needs of an incident version, and what it was read from.
type entry struct {
	versions    int
	removed     bool
	sourceTitle string
	skip        bool // a maintenance, or no start known
	inc         correlate.Incident
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
	return &Index{store: st, o: o, known: map[ref]entry{}}
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
	now := x.o.Now().UTC()
	// The heads alone, and each incident not known as it is read on its own: reading
	// every incident whole at once (the first computation) held the whole archive's
	// latest versions in memory together — gigabytes at 10,000 sources. The heads of the
	// sources not written since the last computation are those it kept: a change to one
	// source does not decode the records of all the others again.
	heads, err := x.store.CachedIncidentHeads(&x.heads, x.recent(now))
	if err != nil {
		return nil, err
	}
	known := make(map[ref]entry, len(heads))
	changed := x.res == nil || len(heads) != len(x.known)
	// A source's title is looked up once per computation, not once per incident: the
	// look-up may read the archive (the page's own name), and a source has many.
	titles := map[string]string{}
	title := func(source string) string {
		t, ok := titles[source]
		if !ok {
			t = x.title(source)
			titles[source] = t
		}
		return t
	}
	for _, h := range heads {
		k := ref{h.Source, h.ID}
		e, ok := x.known[k]
		if !ok || e.versions != h.Versions || e.removed != h.Removed || e.sourceTitle != title(h.Source) {
			if e, err = x.read(h, title(h.Source), now); err != nil {
				return nil, err
			}
			changed = true
		}
		known[k] = e
	}
	x.known, x.gen = known, gen
	if !changed {
		return x.res, nil // a write that left every incident as it was (an outbox row, a poll time)
	}
	incs := make([]correlate.Incident, 0, len(known))
	for _, h := range heads {
		e := known[ref{h.Source, h.ID}]
		if e.skip {
			continue
		}
		in := e.inc
		if in.Open {
			in.End = now
		}
		incs = append(incs, in)
	}
	x.res = correlate.Correlate(incs, x.o.Correlate)
	return x.res, nil
}

// recent keeps the heads within the Horizon: open, or started since now − Horizon (or with
// no start known, which reading decides), and not maintenance; nil (all) without one.
func (x *Index) recent(now time.Time) func(*archive.IncidentHead) bool {
	if x.o.Horizon <= 0 {
		return nil
	}
	since := now.Add(-x.o.Horizon)
	return func(h *archive.IncidentHead) bool {
		return h.Kind != model.KindMaintenance && (h.Open || h.StartedAt.IsZero() || !h.StartedAt.Before(since))
	}
}

// read reads an incident's latest version and finds what correlation needs in it;
// sourceTitle is its source's title.
func (x *Index) read(h archive.IncidentHead, sourceTitle string, now time.Time) (entry, error) {
	latest, err := x.store.Latest(h.Source, h.ID)
	if err != nil || latest == nil {
		return entry{versions: h.Versions, removed: h.Removed, sourceTitle: sourceTitle, skip: true}, err
	}
	return x.entryOf(&archive.IncidentInfo{Source: h.Source, ID: h.ID, Latest: *latest, Versions: h.Versions,
		FirstSeen: h.FirstSeen, LastChanged: h.LastChanged, Removed: h.Removed}, sourceTitle, now), nil
}

// entryOf finds what correlation needs in an incident's latest version; sourceTitle is
// its source's title.
func (x *Index) entryOf(in *archive.IncidentInfo, sourceTitle string, now time.Time) entry {
	e := entry{versions: in.Versions, removed: in.Removed, sourceTitle: sourceTitle}
	latest := &in.Latest
	if latest.Kind == model.KindMaintenance {
		e.skip = true // planned work: not a sign of a shared cause
		return e
	}
	from, to := view.Span(in, now)
	if from.IsZero() {
		e.skip = true
		return e
	}
	e.inc = correlate.Incident{
		Source: in.Source, ID: in.ID, Title: view.Title(latest),
		Start: from, End: to, Open: latest.Open() && !in.Removed,
		Terms: x.o.Vocabulary.Find(Texts(in.Source, e.sourceTitle, latest)...),
	}
	return e
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
