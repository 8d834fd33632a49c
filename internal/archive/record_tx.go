package archive

import (
	"github.com/statuswatch/statuswatch/internal/archive/internal/record"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Result counts what one Record did (record.Result).
type Result = record.Result

// Record archives what one successful poll of source read, in one write transaction: a
// new version for every incident that changed, the raw bodies behind them, the outbox
// rows the changes call for, first misses and removals, and the fetch state.
//
// bodies lists every endpoint in force; a Body with nil Data is one whose bytes did not
// change since an earlier poll, referenced by Hash. The bodies are stored (compressed,
// once per hash) only when this Record produced a version or a removal, so the file grows
// with changes, never with polls. state is saved when it differs from the stored one; nil
// leaves the stored state alone.
//
// A Record that changes nothing writes nothing: the decision is made in a read
// transaction first, so an unchanged poll neither grows the file nor starts a write.
// A snapshot whose listing lost every archived incident is refused with ErrVanished,
// also without writing; the caller counts it as a failed poll.
//
// A snapshot with Components is compared with the source's latest component version in
// the same transaction: a new version, and the messages it calls for, only when a
// component's status, name or group changed, one came or went, or the page status did
// (the rules are policy.ComponentMessages'). Nil Components leave the set alone.
//
// Message rules: the source's first Record follows p.FirstPoll; later, a
// new incident is announced (EventNew) if p.Pass; an announced incident gets a message
// for every later change set; one never announced gets EventNew with CatchUp once a
// change of it passes; a removal is announced only for an announced incident. The rules
// are internal/archive/policy's; what is written, internal/archive/internal/record's.
func (s *Store) Record(source string, snap *model.Snapshot, state model.FetchState, bodies []model.Body, p Policy) (Result, error) {
	r, err := record.New(source, snap, state, bodies, p, s.clock(), s.router(), s.bodies)
	if err != nil {
		return Result{}, err
	}
	var pl *record.Plan
	err = s.view(func(tx *bolt.Tx) (err error) {
		pl, err = r.Plan(tx)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	if pl.Empty() {
		return Result{}, nil
	}
	var res Result
	// While other Records are in flight, Batch rather than Update: the Records of a
	// round's concurrent polls then share one write transaction and one fsync instead of
	// one each (a cold round over 500 sources: a fifth less CPU, a third less wall time).
	// A Record alone — the daemon's usual case — does not wait the batch's 10 ms for
	// company. A batched function may run again on its own if the batch fails, which
	// this one allows: it plans inside the transaction and keeps nothing outside it but
	// res.
	write := s.update
	if s.recording.Add(1) > 1 {
		write = s.batch
	}
	defer s.recording.Add(-1)
	err = write(func(tx *bolt.Tx) error {
		s.notes.note(tx, source)
		// Plan again inside the write transaction: the read above only decided whether to
		// write, and what to write must be based on what this transaction sees.
		pl, err := r.Plan(tx)
		if err != nil {
			return err
		}
		res, err = r.Apply(tx, pl)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	return res, nil
}
