package archive

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/record"
	"github.com/statuswatch/statuswatch/internal/archive/internal/sourcehealth"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// PollState is what a poll needs from the archive before it fetches.
type PollState struct {
	Fetch model.FetchState
	// PendingMisses: incidents missed once by the last parsed answer await a second miss.
	PendingMisses bool
	// Kind is the provider detected for a kind: auto source; empty until detected.
	Kind string
	// Failures counts the failed polls in a row; Unreadable those whose answer could not
	// be read at all.
	Failures, Unreadable int
}

// PollState reads a source's poll state in one short read transaction.
func (s *Store) PollState(source string) (PollState, error) {
	return read(s, "poll state "+source, func(tx *bolt.Tx) (PollState, error) { return readPollState(tx, source) })
}

// PollStates reads the poll state of each of sources in one read transaction, in name
// order, which is the archive's: a round over every source reads its state pages in one
// sweep rather than one transaction per source.
func (s *Store) PollStates(sources []string) (map[string]PollState, error) {
	names := slices.Sorted(slices.Values(sources))
	return read(s, "poll states", func(tx *bolt.Tx) (map[string]PollState, error) {
		out := make(map[string]PollState, len(names))
		for i, name := range names {
			// Each source's state is on pages of its own, and the kernel maps tens of KB
			// around each one read: the daemon's start reads every source's (its page
			// names), which at 10,000 sources mapped 600 MB of the file at once.
			if i > 0 && i%releaseSourcesEvery == 0 {
				if err := s.releaseMapped(tx); err != nil {
					return out, err
				}
			}
			ps, err := readPollState(tx, name)
			if err != nil {
				return out, fmt.Errorf("%s: %w", name, err)
			}
			out[name] = ps
		}
		return out, nil
	})
}

func readPollState(tx *bolt.Tx, source string) (ps PollState, err error) {
	st := layout.Sub(layout.Source(tx, source), layout.BucketState)
	if ps.Fetch, err = codec.DecodeFetchState(layout.Get(st, layout.KeyFetch)); err != nil {
		return ps, err
	}
	ps.PendingMisses = layout.Get(st, layout.KeyPending) != nil
	ps.Kind = string(layout.Get(st, layout.KeyKind))
	h, err := sourcehealth.Load(layout.Source(tx, source))
	ps.Failures, ps.Unreadable = h.Failures, h.Unreadable
	return ps, err
}

// ConfirmMisses applies the second miss in a row after a well-formed poll whose bodies
// were unchanged (304 or byte-identical): the page still says what it said when these
// incidents were first missed, so they are missed twice in a row. History providers mark
// them removed; open-only ones resolve them. bodies are the poll's (unchanged) bodies, the
// evidence of the change. It writes nothing when no miss is pending.
func (s *Store) ConfirmMisses(source string, at time.Time, bodies []model.Body, p Policy) (Result, error) {
	var res Result
	var kind []byte
	if err := s.view(func(tx *bolt.Tx) error {
		kind = bytes.Clone(layout.Get(layout.Sub(layout.Source(tx, source), layout.BucketState), layout.KeyPending))
		return nil
	}); err != nil || kind == nil {
		return res, wrapErr("confirm misses "+source, err)
	}
	snap := &model.Snapshot{Source: source, FetchedAt: at, OpenOnly: string(kind) == "open-only"}
	r, err := record.New(source, snap, nil, bodies, p, s.clock(), s.router(), s.bodies)
	if err != nil {
		return res, err
	}
	err = s.update(func(tx *bolt.Tx) (err error) {
		s.notes.note(tx, source)
		res, err = r.ConfirmMisses(tx)
		return err
	})
	if err != nil {
		return Result{}, wrapErr("confirm misses "+source, err)
	}
	return res, nil
}

// PackFetchState packs st into one byte slice of a few hundred bytes, for a poll state
// kept in memory between polls (the daemon keeps every unchanged source's): a decoded
// FetchState is a map of ~1.5 KB. UnpackFetchState reads it back.
func PackFetchState(st model.FetchState) []byte { return codec.PackFetchState(st) }

// UnpackFetchState reads what PackFetchState packed.
func UnpackFetchState(b []byte) (model.FetchState, error) { return codec.UnpackFetchState(b) }
