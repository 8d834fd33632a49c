package archive

import (
	"sort"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// writeNotes remembers which sources each write transaction of this Store may have
// written incident records of, so that a HeadCache is brought up to date by reading
// those sources alone. Without them it walked every source to compare write counts
// after any commit: at 10,000 sources ~70 ms of CPU and a fault of every source's pages,
// once for each message the daemon delivered.
//
// A note is taken inside its transaction, before the commit: a reader whose transaction
// sees the commit finds the note too. The notes are a hint, checked against the archive:
// every write of an incident record also counts in one sequence for all sources
// (incident.AllWrites), and a cache is brought up to date from the notes only when the
// sources noted account for every write counted since; otherwise it walks, as before.
// A write path that forgot its note would cost a walk, never a stale answer.
//
// The notes are this process's own, and enough: bbolt's file lock keeps any other
// process from committing while a Store is open.
type writeNotes struct {
	mu    sync.Mutex
	notes []writeNote // in transaction order
	// dropped is the newest transaction id of a note dropped to keep notes bounded: a
	// cache as of an older transaction cannot be brought up to date from the notes.
	dropped uint64
}

type writeNote struct {
	tx     uint64
	source string
}

// maxWriteNotes bounds the notes kept: a reader asking after every change needs the last
// few, and one that asks seldom walks.
const maxWriteNotes = 4096

// note records that tx, a write transaction, may write source's incident records.
func (w *writeNotes) note(tx *bolt.Tx, source string) {
	n := writeNote{uint64(tx.ID()), source}
	w.mu.Lock()
	defer w.mu.Unlock()
	if k := len(w.notes); k > 0 && w.notes[k-1] == n {
		return
	}
	// bbolt runs one write transaction at a time, each with an id at least its
	// predecessor's (a rolled-back one's id is used again): the notes stay in order.
	w.notes = append(w.notes, n)
	if len(w.notes) > maxWriteNotes {
		drop := len(w.notes) - maxWriteNotes/2
		w.dropped = w.notes[drop-1].tx
		w.notes = append(w.notes[:0], w.notes[drop:]...)
	}
}

// since returns the sources noted by the transactions after from, up to to; ok is false
// when some of them may have been dropped.
func (w *writeNotes) since(from, to uint64) (sources []string, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if from < w.dropped {
		return nil, false
	}
	i := sort.Search(len(w.notes), func(i int) bool { return w.notes[i].tx > from })
	seen := map[string]bool{}
	for ; i < len(w.notes) && w.notes[i].tx <= to; i++ {
		if s := w.notes[i].source; !seen[s] {
			seen[s] = true
			sources = append(sources, s)
		}
	}
	return sources, true
}
