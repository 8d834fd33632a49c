// Package record is what one poll writes to the archive, inside the transactions the
// Store holds: Plan reads what the archive holds of the source and decides what must be
// written (so that an unchanged poll writes nothing, and nothing is decided on what an
// earlier transaction saw), and Apply writes it — a new version of every incident that
// changed, first misses and removals, the component set's new version, the outbox rows
// all of them call for, the raw bodies behind them and the fetch state. The rules it
// applies are internal/archive/policy's; the storage is the other internal packages'.
package record

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/archive/internal/searchindex"
	"github.com/statuswatch/statuswatch/internal/archive/internal/snapshot"
	"github.com/statuswatch/statuswatch/internal/archive/policy"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Result counts what one Record did.
type Result struct {
	Changed  int // incidents that got a new version (inferred resolutions included)
	Messages int // outbox rows written
	Removed  int // incidents marked removed
	Resolved int // incidents resolved by inference (open-only providers)
	// Components is the number of the component set's version this Record wrote, 0
	// when it wrote none.
	Components int
}

// ErrVanished is returned by Plan, and Record then writes nothing, when a well-formed
// snapshot of a history provider lists no incident of a kind while the archive holds some
// inside that listing's window (policy.Vanished). That counts as a fetch failure, never
// as "everything was deleted": pages have served empty lists during their own outages.
var ErrVanished = errors.New("incidents vanished from a well-formed answer")

// archived is what the absence rules read of an incident's meta.
func archived(m *codec.Meta) *policy.Archived {
	return &policy.Archived{Kind: m.Kind, StartedAt: m.StartedAt, FirstMissed: m.FirstMissed,
		Open: m.Open, Removed: m.Removed, Migrated: m.Migrated}
}

// Recording is one Record call: its inputs and what is computed once for both
// transactions.
type Recording struct {
	bc      *codec.Bodies // compresses the bodies stored
	source  string
	snap    *model.Snapshot
	at      time.Time // observation time: the snapshot's fetch time, UTC
	now     time.Time // for message and bookkeeping times
	state   model.FetchState
	bodies  []model.Body
	rules   policy.Policy
	seen    []seenIncident
	present map[string]bool              // URL ids in the snapshot
	comps   *model.Components            // the snapshot's component set, canonical; nil when it has none
	compsFP [32]byte                     // its fingerprint
	route   func(*model.Notice) []string // the store's, when the Record began
}

// seenIncident is an incident of the snapshot with its URL id and fingerprint.
type seenIncident struct {
	id  string
	inc *model.Incident
	fp  [32]byte
}

// New checks a Record's inputs and computes what both its transactions need: now is
// the time of its messages and bookkeeping, route gives the receivers of each message
// (nil: the default sink), bc compresses the bodies it stores.
func New(source string, snap *model.Snapshot, state model.FetchState, bodies []model.Body, p policy.Policy,
	now time.Time, route func(*model.Notice) []string, bc *codec.Bodies) (*Recording, error) {
	if source == "" {
		return nil, errors.New("archive: record: empty source name")
	}
	if snap == nil {
		return nil, fmt.Errorf("archive: record %s: nil snapshot", source)
	}
	if snap.Source != "" && snap.Source != source {
		return nil, fmt.Errorf("archive: record %s: snapshot is of source %s", source, snap.Source)
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("archive: record %s: %w", source, err)
	}
	r := &Recording{
		bc: bc, source: source, snap: snap, now: now,
		state: state, bodies: bodies, rules: p, route: route,
		present: make(map[string]bool, len(snap.Incidents)),
	}
	if snap.Components != nil {
		r.comps = policy.CanonicalComponents(snap.Components)
		r.compsFP = codec.ComponentFingerprint(r.comps)
	}
	r.at = snap.FetchedAt.UTC()
	if snap.FetchedAt.IsZero() {
		r.at = r.now
	}
	for i := range snap.Incidents {
		inc := &snap.Incidents[i]
		if inc.ID == "" {
			return nil, fmt.Errorf("archive: record %s: incident %q has no id", source, inc.Title)
		}
		id := model.URLID(inc.ID)
		if r.present[id] {
			// A listing that repeats an incident (seen on paginated pages) is archived
			// once, from its first occurrence: two versions from one poll would be noise.
			continue
		}
		r.present[id] = true
		r.seen = append(r.seen, seenIncident{id: id, inc: inc, fp: diff.Fingerprint(inc)})
	}
	return r, nil
}

// Plan is what a Record has to write, decided from what a transaction reads.
type Plan struct {
	firstPoll  bool // the source has never been recorded
	saveState  bool // the fetch state differs from the stored one
	components bool // the component set makes a new version
	touched    []touched
	missed     []missed
}

// touched is an incident of the snapshot that needs a write.
type touched struct {
	*seenIncident
	meta    codec.Meta
	known   bool // archived before this Record
	changed bool // its fingerprint differs from the latest version's; else only a miss to clear
}

// missed is an archived incident absent from the snapshot although its listing covers it.
type missed struct {
	id     string
	meta   codec.Meta
	action policy.Miss
}

// Empty reports whether the plan writes nothing.
func (p *Plan) Empty() bool {
	return !p.firstPoll && !p.saveState && !p.components && len(p.touched) == 0 && len(p.missed) == 0
}

// Plan reads what the archive holds for the source and decides what must be written. It
// only reads, so it runs in the read transaction that decides whether to write at all
// and again in the write transaction. A snapshot whose listing lost every archived
// incident of a kind is refused with ErrVanished.
func (r *Recording) Plan(tx *bolt.Tx) (*Plan, error) {
	src := layout.Source(tx, r.source)
	state := layout.Sub(src, layout.BucketState)
	p := &Plan{firstPoll: layout.Get(state, layout.KeyFirst) == nil}
	if r.state != nil {
		stored, err := codec.DecodeFetchState(layout.Get(state, layout.KeyFetch))
		if err != nil {
			return nil, fmt.Errorf("archive: record %s: %w", r.source, err)
		}
		p.saveState = !stored.Equal(r.state)
	}
	var err error
	if p.components, err = r.componentsChanged(state); err != nil {
		return nil, err
	}

	incidents := layout.Sub(src, layout.BucketIncidents)
	for i := range r.seen {
		si := &r.seen[i]
		m, known, err := incident.LoadMeta(incidents, si.id)
		if err != nil {
			return nil, fmt.Errorf("archive: record %s: %w", r.source, err)
		}
		switch {
		case !known || m.Fingerprint != si.fp:
			p.touched = append(p.touched, touched{seenIncident: si, meta: m, known: known, changed: true})
		case !m.FirstMissed.IsZero() || m.Removed:
			// Seen again: the misses were not in a row after all.
			p.touched = append(p.touched, touched{seenIncident: si, meta: m, known: true})
		}
	}
	if incidents == nil {
		return p, nil
	}

	err = incidents.ForEach(func(k, v []byte) error {
		if r.present[string(k)] {
			return nil
		}
		m, err := codec.UnmarshalMeta(v)
		if err != nil {
			return fmt.Errorf("incident %s: %w", k, err)
		}
		if action := policy.MissFor(r.snap, archived(&m)); action != policy.MissNone {
			p.missed = append(p.missed, missed{id: string(k), meta: m, action: action})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive: record %s: %w", r.source, err)
	}
	absent := make([]model.Kind, len(p.missed))
	for i, ms := range p.missed {
		absent[i] = ms.meta.Kind
	}
	if kind, n, ok := policy.Vanished(r.snap, absent); ok {
		return nil, fmt.Errorf("archive: record %s: the answer lists no %s but %d archived are inside its window: %w",
			r.source, kind, n, ErrVanished)
	}
	return p, nil
}

// Apply writes what Plan decided. It runs in the write transaction.
func (r *Recording) Apply(tx *bolt.Tx, p *Plan) (Result, error) {
	var res Result
	src, err := layout.CreateSource(tx, r.source)
	if err != nil {
		return res, err
	}
	w := r.writer(tx, src, &res)
	if p.firstPoll {
		// The first poll's observation time: the version 1 of every incident it archived
		// has it, which is how listings tell them from incidents seen appearing.
		if err := w.state.Put(layout.KeyFirst, []byte(r.at.Format(time.RFC3339Nano))); err != nil {
			return res, err
		}
	}
	// Oldest first, whatever order the provider lists them in, so a first poll's
	// announcements reach the channel in the order the incidents happened. Sorted here,
	// not in newRecording, to keep the unchanged path free of it.
	slices.SortStableFunc(p.touched, func(a, b touched) int {
		return cmp.Or(a.inc.StartedAt.Compare(b.inc.StartedAt), strings.Compare(a.id, b.id))
	})
	for _, t := range p.touched {
		if err := w.seen(p.firstPoll, t); err != nil {
			return res, fmt.Errorf("archive: record %s: incident %s: %w", r.source, t.id, err)
		}
	}
	for _, m := range p.missed {
		if err := w.missed(m); err != nil {
			return res, fmt.Errorf("archive: record %s: incident %s: %w", r.source, m.id, err)
		}
	}
	if err := w.search.Flush(tx); err != nil {
		return res, fmt.Errorf("archive: record %s: %w", r.source, err)
	}
	if p.components {
		if err := w.components(src); err != nil {
			return res, fmt.Errorf("archive: record %s: components: %w", r.source, err)
		}
	}
	if w.evidence {
		if err := snapshot.Put(tx, src.Bucket(layout.BucketSnapshots), r.at, r.bodies, r.bc); err != nil {
			return res, fmt.Errorf("archive: record %s: %w", r.source, err)
		}
	}
	if p.saveState {
		if err := layout.PutJSON(w.state, layout.KeyFetch, r.state); err != nil {
			return res, fmt.Errorf("archive: record %s: fetch state: %w", r.source, err)
		}
	}
	return res, nil
}

// writer holds the transaction and the buckets one apply writes to.
type writer struct {
	r                          *Recording
	tx                         *bolt.Tx // for the outbox rows, written with what they announce
	state, incidents, versions *bolt.Bucket
	res                        *Result
	evidence                   bool // something happened that the raw snapshot must back
	// search gathers the search index's writes of the new versions, applied in key order
	// once they are all known (searchindex.Batch).
	search searchindex.Batch
}

// writer opens the buckets of source bucket src that a write transaction of r writes to.
func (r *Recording) writer(tx *bolt.Tx, src *bolt.Bucket, res *Result) *writer {
	return &writer{
		r:         r,
		tx:        tx,
		state:     src.Bucket(layout.BucketState),
		incidents: src.Bucket(layout.BucketIncidents),
		versions:  src.Bucket(layout.BucketVersions),
		res:       res,
	}
}

// seen handles an incident of the snapshot: a new version if it changed, and in any case
// the end of its misses.
func (w *writer) seen(firstPoll bool, t touched) error {
	m := t.meta
	m.FirstMissed, m.Removed, m.RemovedAt = time.Time{}, false, time.Time{}
	if !t.changed {
		return w.putMeta(t.id, &m)
	}
	var prev *model.Incident
	if t.known {
		v, err := incident.Load(w.versions, t.id, m.Latest)
		if err != nil {
			return err
		}
		prev = &v.Incident
	}
	var changes []model.Change
	if t.known { // version 1's change set is derived when read (codec.EncodeVersion)
		changes = diff.Changes(prev, t.inc)
	}
	if len(changes) == 0 && t.known {
		// diff promises equal fingerprints exactly when it finds no change; should the
		// two ever disagree (a diff upgrade that normalises more, say), remember this
		// fingerprint so the next poll takes the fast path again instead of re-diffing
		// and rewriting on every poll. A new incident always gets version 1, even an
		// empty one, since every archived incident must have a latest version.
		m.Fingerprint = t.fp
		return w.putMeta(t.id, &m)
	}
	a := w.r.rules.Announce(policy.NewVersion{FirstPoll: firstPoll, Known: t.known, Announced: m.Announced,
		Prev: prev, Cur: t.inc, Changes: changes})
	return w.version(t.id, &m, prev, t.inc, t.fp, changes, a)
}

// missed handles an archived incident that the snapshot should have listed and did not.
func (w *writer) missed(ms missed) error {
	m := ms.meta
	switch ms.action {
	case policy.MissNone:
		return nil
	case policy.MissFirst:
		m.FirstMissed = w.r.at
		if err := w.markPending(); err != nil {
			return err
		}
		return w.putMeta(ms.id, &m)
	case policy.MissRemove:
		m.Removed, m.RemovedAt = true, w.r.at
		w.res.Removed++
		w.evidence = true
		if a := policy.Removal(m.Announced); a.Send {
			v, err := incident.Load(w.versions, ms.id, m.Latest)
			if err != nil {
				return err
			}
			if err := w.message(ms.id, m.Latest, a.Event, a.CatchUp, &v.Incident, nil); err != nil {
				return err
			}
		}
		return w.putMeta(ms.id, &m)
	}
	// policy.MissResolve: an open-only page stopped listing it twice in a row.
	v, err := incident.Load(w.versions, ms.id, m.Latest)
	if err != nil {
		return err
	}
	prev := &v.Incident
	cur := policy.InferResolved(prev, m.FirstMissed)
	m.FirstMissed = time.Time{}
	changes := diff.Changes(prev, cur)
	if len(changes) == 0 {
		m.Open, m.Impact, m.Fingerprint = false, cur.Impact, diff.Fingerprint(cur)
		return w.putMeta(ms.id, &m)
	}
	w.res.Resolved++
	a := w.r.rules.Announce(policy.NewVersion{Known: true, Announced: m.Announced, Prev: prev, Cur: cur, Changes: changes})
	return w.version(ms.id, &m, prev, cur, diff.Fingerprint(cur), changes, a)
}

// markPending notes that the source has incidents missed once, so that the next poll
// whose body is unchanged — never parsed, never recorded — still counts as the second
// well-formed poll without them (see ConfirmMisses).
func (w *writer) markPending() error {
	kind := []byte("history")
	if w.r.snap.OpenOnly {
		kind = []byte("open-only")
	}
	return w.state.Put(layout.KeyPending, kind)
}

// version appends version N+1 of an incident, indexes what its texts gained and lost
// since prev (version N, nil for a new incident) and, if a says so, writes its message.
func (w *writer) version(id string, m *codec.Meta, prev, inc *model.Incident, fp [32]byte, changes []model.Change, a policy.Announcement) error {
	n := m.Latest + 1
	v := model.Version{
		N:          int(n),
		ObservedAt: w.r.at,
		Incident:   *inc,
		Snapshot:   layout.SnapshotName(w.r.at),
	}
	if n > 1 { // version 1's is derived when read (codec.EncodeVersion)
		v.Changes, v.Summary = changes, diff.Summary(changes)
	}
	if err := incident.Put(w.versions, id, &v); err != nil {
		return err
	}
	if err := w.search.Index(w.tx, w.r.source, id, n, w.r.at, prev, inc); err != nil {
		return err
	}
	m.Latest, m.Fingerprint = n, fp
	m.Kind, m.StartedAt, m.Open, m.Impact = inc.Kind, inc.StartedAt, inc.Open(), inc.Impact
	m.LastChanged = w.r.at
	if n == 1 {
		m.FirstSeen = w.r.at
	}
	w.res.Changed++
	w.evidence = true
	if a.Send {
		if err := w.message(id, n, a.Event, a.CatchUp, inc, v.Changes); err != nil {
			return err
		}
		if a.Event == model.EventNew {
			m.Announced = true
		}
	}
	return w.putMeta(id, m)
}

func (w *writer) putMeta(id string, m *codec.Meta) error { return incident.PutMeta(w.incidents, id, m) }

// message writes the outbox rows of an incident's message, one per receiver its
// routes give: inc is the version it announces, changes its change set.
func (w *writer) message(id string, n uint32, ev model.Event, catchUp bool, inc *model.Incident, changes []model.Change) error {
	c, err := outbox.PutRouted(w.tx, w.r.route, model.Message{
		Source:     w.r.source,
		IncidentID: id,
		Version:    int(n),
		Event:      ev,
		CatchUp:    catchUp,
		CreatedAt:  w.r.now,
	}, &model.Notice{Source: w.r.source, Event: ev, Incident: inc, Changes: changes, Peak: w.peak(id, n, inc)})
	w.res.Messages += c
	return err
}

// latest is the latest version of one of the source's incidents, for the routing of a
// component message in its thread; nil when the incident is not archived.
func (w *writer) latest(id string) (*model.Incident, error) {
	v, err := incident.Latest(w.incidents, w.versions, id)
	if err != nil || v == nil {
		return nil, err
	}
	return &v.Incident, nil
}

// peak gives the worst impact of incident id over its versions before n and inc (the
// version n being written), for a route's min_impact (model.Notice.Peak). It reads the
// earlier versions only when called; a version it cannot read counts for nothing.
func (w *writer) peak(id string, n uint32, inc *model.Incident) func() model.Impact {
	return func() model.Impact {
		worst := inc.Impact
		for k := uint32(1); k < n; k++ {
			v, err := incident.Load(w.versions, id, k)
			if err == nil && v.Incident.Impact.Worse(worst) {
				worst = v.Incident.Impact
			}
		}
		return worst
	}
}
