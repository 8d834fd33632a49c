package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/writehealth"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrLocked is returned by Open when another process (another watcher, or a CLI command
// writing to the archive) holds the file's lock for longer than Options.Timeout. bbolt
// allows one writer per file; browse commands then go through the daemon's API instead.
var ErrLocked = errors.New("archive locked")

// ErrNotExist is returned by Open with Options.MustExist (or ReadOnly) when there is no
// file at the path: browse commands must never create an empty archive by accident.
var ErrNotExist = errors.New("no archive")

// ErrLayout is returned by Open for a file whose layout this build cannot use: written by
// a newer watcher, not a watcher archive at all, or (read-only) still to be migrated.
var ErrLayout = layout.ErrUnsupported

// ErrNotFound is returned by reads and outbox operations for an unknown source, incident,
// version, snapshot or message.
var ErrNotFound = layout.ErrNotFound

// DefaultTimeout is how long Open waits for the file lock when Options.Timeout is zero:
// long enough to ride out a `watcher poll` finishing, short enough that a second daemon
// fails at once with a clear message instead of hanging (bbolt's zero means forever).
const DefaultTimeout = time.Second

// Options tune Open.
type Options struct {
	// Timeout is how long to wait for the file lock; zero means DefaultTimeout.
	Timeout time.Duration
	// ReadOnly opens the file with a shared lock and refuses writes. It implies MustExist.
	ReadOnly bool
	// MustExist makes Open fail with ErrNotExist instead of creating a new archive.
	MustExist bool
	// NoSync skips fsync after each commit. Only for tests and benchmarks: a crash can
	// then lose committed transactions.
	NoSync bool
	// Now is the clock for message and bookkeeping times; nil means time.Now.
	Now func() time.Time
	// Progress, when set, is called after each part of a search index's build (an
	// archive of an older layout opened read-write), with the versions indexed so far:
	// on a large archive Open then takes minutes, and a supervisor must hear of it.
	Progress func(indexed int)
}

// Store is an open archive. Its methods are safe for concurrent use; bbolt serialises the
// writers.
type Store struct {
	db   *bolt.DB
	path string
	now  func() time.Time

	// bodies compresses raw bodies, only inside write transactions, which bbolt
	// serialises, and decompresses them, from any goroutine.
	bodies *codec.Bodies

	// legacyTimeKeys: a read-only store of a layout 1 archive, whose snapshot keys are
	// still layout 1's (layout.LegacyTimeKey).
	legacyTimeKeys bool

	// writes is the writes' outcome, for Health.
	writes writehealth.Tracker

	// recording counts the Records past their read transaction, for the choice
	// between Update and Batch (Record).
	recording atomic.Int32

	// notes tells which sources each write transaction may have written incident
	// records of (CachedIncidentHeads).
	notes writeNotes

	// facts remembers each incident's figures facts by its latest version (figures.go).
	facts factsCache
	// route gives the receivers of each message written (SetRoute); nil: the default
	// sink alone.
	route atomic.Pointer[func(*model.Notice) []string]

	closeOnce sync.Once
	closeErr  error
}

// Open opens the archive at path, creating it unless o.MustExist or o.ReadOnly, and brings
// its layout up to date. It fails with ErrLocked when another process holds the file, with
// ErrNotExist when the file must exist and does not, and with ErrLayout when the file is
// newer than this build or not an archive.
func Open(path string, o Options) (*Store, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && (o.MustExist || o.ReadOnly):
		return nil, fmt.Errorf("%w at %s", ErrNotExist, path)
	case err == nil && fi.Size() == 0:
		// bbolt would silently make it a new archive: an emptied file is damage (a
		// failed copy, a truncation), and starting afresh would hide it.
		return nil, &damageError{path: path, detail: "the file is empty (0 bytes); if no archive was ever written to it, remove it to start a new one", layout: true}
	}
	s := &Store{path: path, now: o.Now}
	err = s.protect(func() (err error) {
		s.db, err = bolt.Open(path, 0o600, &bolt.Options{
			Timeout:  o.Timeout,
			ReadOnly: o.ReadOnly,
			NoSync:   o.NoSync,
		})
		return err
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("archive %s: another watcher holds it (gave up after %s): %w", path, o.Timeout, ErrLocked)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return nil, &damageError{path: path, detail: fmt.Sprintf("%v; or not a watcher archive at all", err), layout: true}
	case errors.Is(err, ErrDamaged):
		if s.db != nil {
			_ = s.db.Close()
		}
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	db := s.db
	if err := s.migrate(o.ReadOnly); err != nil {
		_ = db.Close()
		return nil, err
	}
	if !o.ReadOnly {
		if err := s.buildSearch(o.Progress); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	if s.bodies, err = codec.NewBodies(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("archive %s: zstd decoder: %w", path, err)
	}
	return s, nil
}

// Path returns the file the store was opened from.
func (s *Store) Path() string { return s.path }

// Close releases the file and its lock. Calling it again returns the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.bodies.Close()
		s.closeErr = s.db.Close()
	})
	return s.closeErr
}

// clock returns the store's current time in UTC: every time the archive writes is UTC.
func (s *Store) clock() time.Time { return s.now().UTC() }
