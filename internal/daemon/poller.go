// Package daemon wires the pipeline together: it polls sources through their providers,
// records what they read in the archive, and delivers the outbox. `watcher poll` uses one
// round of it; `watcher run` schedules it.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Poller polls one source at a time into the archive. It is safe for concurrent use by
// different sources.
type Poller struct {
	Store       *archive.Store
	Client      *fetch.Client
	OnFirstPoll string
	Log         *slog.Logger
	Now         func() time.Time

	// states holds the poll state of sources whose last poll wrote nothing, as the
	// archive still has it: the next poll starts without a read transaction, and an
	// unchanged poll touches no archive page at all. A poll takes its source's entry out
	// and puts it back only when it wrote nothing (see poll), so any write — a version,
	// new validators, a failure, a detected kind — makes the next poll read the archive
	// again. It relies on this Poller being the only writer of its sources' state, which
	// it is: the daemon holds the archive, and every poll goes through its Poller.
	states stateCache
	// stateReads counts the polls that read their state from the archive rather than from
	// states: every releaseStateReadsEvery of them the archive's mapped pages are released.
	stateReads atomic.Int64
}

// Outcome is what one poll of a source did.
type Outcome struct {
	Changes  int // incidents that got a new version
	Messages int // outbox rows written
	Requests int // HTTP requests made
	// Wrote reports whether the poll wrote to the archive (a version, new validators, a
	// failure, a recovery, a detected kind): the rows such a write adds to the outbox are
	// not all counted in Messages (a source's recovery is written with its success), so
	// the daemon wakes delivery on any write.
	Wrote bool
	// PageTitle is the page's own name, as this poll or an earlier one read it.
	PageTitle string

	wasFailing bool // the archive counted failures before this poll: a success must reset them
}

// Poll fetches src once and records the result. A fetch failure (including a well-formed
// answer that suddenly lacks every incident) is recorded as a failure and returned.
func (p *Poller) Poll(ctx context.Context, src *config.Source) (Outcome, error) {
	log := p.logger().With("source", src.Name)
	if src.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, src.Timeout)
		defer cancel()
	}
	out, err := p.poll(ctx, src)
	if errors.Is(err, archive.ErrStorage) {
		// The archive failed, not the vendor: nothing is counted against the source
		// (/healthz reports the archive).
		log.Error("poll not recorded: archive failure", "err", err)
		return out, err
	}
	if err != nil {
		out.Wrote = true // the failure, below
		failures, ferr := p.Store.RecordFailureOf(src.Name, err.Error(), src.FailureThreshold, unreadable(err))
		if ferr != nil {
			return out, errors.Join(err, fmt.Errorf("record failure: %w", ferr))
		}
		log.Warn("poll failed", "err", err, "consecutive_failures", failures)
		return out, err
	}
	// A healthy source's success writes nothing, and PollState already told us whether it
	// was healthy: no second read on the common path.
	if out.wasFailing {
		out.Wrote = true
		if err := p.Store.RecordSuccess(src.Name); err != nil {
			return out, fmt.Errorf("record success: %w", err)
		}
	}
	if out.Changes > 0 {
		log.Info("poll recorded changes", "changes", out.Changes, "messages", out.Messages)
	}
	return out, nil
}

func (p *Poller) poll(ctx context.Context, src *config.Source) (Outcome, error) {
	var out Outcome
	ps, ok := p.states.take(src.Name)
	if !ok {
		var err error
		if ps, err = p.Store.PollState(src.Name); err != nil {
			return out, fmt.Errorf("read fetch state: %w", err)
		}
		if p.stateReads.Add(1)%releaseStateReadsEvery == 0 {
			p.releasePages()
		}
	}
	out.wasFailing = ps.Failures > 0
	kind, err := p.kind(ctx, src, &ps)
	if err != nil {
		return out, err
	}
	prov, err := fetch.New(kind, p.Client)
	if err != nil {
		return out, err
	}
	state := ps.Fetch

	res, err := prov.Poll(ctx, fetch.Request{
		Source: src.Model(),
		State:  state,
		Archived: func(id string) *model.Incident {
			inc, _ := p.Store.Latest(src.Name, model.URLID(id))
			return inc
		},
		Now: p.now(),
		Log: p.logger().With("source", src.Name),
	})
	if res != nil {
		out.Requests = res.Requests
	}
	if err != nil {
		return out, err
	}
	fetch.Clean(res.Snapshot) // vendor text is data: valid UTF-8, no control characters
	if res.Snapshot != nil {
		// The page's own name is the source's display title unless the config sets one;
		// remembered with the fetch state, it survives restarts and polls that skip it.
		res.State.SetPageTitle(res.Snapshot.PageTitle)
	}
	out.PageTitle = res.State.PageTitle()
	policy := archive.Policy{FirstPoll: p.OnFirstPoll, Pass: Filter(src),
		ComponentChanges: src.ComponentChanges, Watch: WatchComponent(src), QuietMaintenance: !src.Maintenance}
	if res.Snapshot == nil && !res.StateChanged(state) {
		// Every endpoint 304 or byte-identical: nothing to write, unless incidents missed
		// once by the last parsed answer are now missed a second time in a row.
		if ps.PendingMisses {
			r, err := p.Store.ConfirmMisses(src.Name, p.now(), res.Bodies, policy)
			out.Changes, out.Messages, out.Wrote = r.Changed, r.Messages, true
			return out, err
		}
		p.states.keep(src.Name, ps)
		return out, nil
	}
	if res.Snapshot == nil {
		// New validators but no parse: save the state; the misses wait for a parse.
		res.Snapshot = &model.Snapshot{Source: src.Name, FetchedAt: p.now()}
	}
	r, err := p.Store.Record(src.Name, res.Snapshot, res.State, res.Bodies, policy)
	out.Wrote = true
	if err != nil {
		return out, err
	}
	out.Changes, out.Messages = r.Changed, r.Messages
	return out, nil
}

// redetectAfter is how many polls in a row must fail to parse before a kind: auto source
// is detected again: vendors migrate, but one bad answer is no migration.
const redetectAfter = 3

// kind resolves a source's provider: its configured kind, else the one detected and
// remembered in the archive, else a detection now. After redetectAfter parse failures in a
// row it detects again; a different platform freezes the old incidents as migrated and
// takes the new platform in as a new source.
func (p *Poller) kind(ctx context.Context, src *config.Source, ps *archive.PollState) (string, error) {
	if src.Kind != "" && src.Kind != "auto" {
		return src.Kind, nil
	}
	// The count lives in the archive, so one-shot `watcher poll` runs re-detect too.
	// Every redetectAfter-th unreadable answer, not every one after: a page that stays
	// broken on the same platform must not cost a detection per poll.
	redetect := ps.Unreadable > 0 && ps.Unreadable%redetectAfter == 0
	if ps.Kind != "" && !redetect {
		return ps.Kind, nil
	}
	det := &fetch.Detector{Client: p.Client, Headers: src.Model().Headers}
	d, err := det.Detect(ctx, src.URL)
	if err != nil {
		if ps.Kind != "" {
			return ps.Kind, nil // keep polling what we had; the parse errors speak for themselves
		}
		return "", fmt.Errorf("detect provider: %w", err)
	}
	switch {
	case ps.Kind == "":
		if err := p.Store.SetKind(src.Name, d.Kind); err != nil {
			return "", err
		}
		p.logger().Info("provider detected", "source", src.Name, "kind", d.Kind, "evidence", d.Evidence)
	case ps.Kind != d.Kind:
		frozen, err := p.Store.Migrate(src.Name, d.Kind, p.now())
		if err != nil {
			return "", err
		}
		ps.Fetch, ps.PendingMisses = nil, false
		p.logger().Warn("page moved to another platform: old incidents frozen as migrated",
			"source", src.Name, "from", ps.Kind, "to", d.Kind, "frozen", frozen, "evidence", d.Evidence)
	}
	ps.Kind = d.Kind
	return d.Kind, nil
}

// unreadable reports whether a poll's answer could not be read at all — malformed, or its
// endpoint gone (404, 410) — which is what a page that moved to another platform answers.
func unreadable(err error) bool {
	var se *fetch.StatusError
	return errors.Is(err, fetch.ErrMalformed) || (errors.As(err, &se) && (se.Code == 404 || se.Code == 410))
}

// Filter is the notification gate of a source's options: components, min_impact,
// maintenance and paused. The archive keeps everything whatever it says.
func Filter(src *config.Source) func(inc *model.Incident) bool {
	return func(inc *model.Incident) bool {
		if src.Paused {
			return false
		}
		if inc.Kind == model.KindMaintenance && !src.Maintenance {
			return false
		}
		if !inc.Impact.AtLeast(model.Impact(src.MinImpact)) {
			return false
		}
		if len(src.Components) == 0 || len(inc.Components) == 0 {
			return true
		}
		for _, c := range inc.Components {
			if slices.Contains(src.Components, c) {
				return true
			}
		}
		return false
	}
}

// WatchComponent is the notification gate of a source's components list for component
// changes: a component is watched when the list is empty, names it, or names its group
// (a page's group, "Git Operations", for every component under it). A paused source
// watches none. The archive keeps every component whatever it says.
func WatchComponent(src *config.Source) func(c model.Component) bool {
	return func(c model.Component) bool {
		if src.Paused {
			return false
		}
		return len(src.Components) == 0 || slices.Contains(src.Components, c.Name) ||
			c.Group != "" && slices.Contains(src.Components, c.Group)
	}
}

func (p *Poller) logger() *slog.Logger {
	if p.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Log
}

func (p *Poller) now() time.Time {
	if p.Now == nil {
		return time.Now().UTC()
	}
	return p.Now().UTC()
}
