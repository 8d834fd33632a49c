package archive

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/writehealth"
	bolt "go.etcd.io/bbolt"
)

// ErrStorage is wrapped by the errors of an archive that failed as storage rather than
// refused an operation: a write transaction that could not start or commit (a full disk,
// an I/O error) or a damaged page. Callers count these against the archive, never
// against the vendor whose poll hit them.
var ErrStorage = errors.New("archive storage failure")

// ErrDamaged is wrapped by the errors of a damaged archive file: a page bbolt could not
// read, found at Open or by any later read or write. It also matches ErrStorage.
var ErrDamaged = errors.New("archive damaged")

// damageError is one clear line for a damaged file: which, what was found, what to do.
type damageError struct {
	path   string
	detail any
	layout bool // found by Open: also ErrLayout, as a file that is no archive at all
}

func (e *damageError) Error() string {
	return fmt.Sprintf("archive %s is damaged (%v): restore it from a backup; `watcher check -archive` runs a consistency check of the file",
		e.path, e.detail)
}

func (e *damageError) Is(target error) bool {
	return target == ErrDamaged || target == ErrStorage || (e.layout && target == ErrLayout)
}

// protect runs f, turning a panic into a damage error. bbolt panics, or faults on a
// page past the end of the file, when it meets a damaged page; a poll or a page view
// that reads one must fail, not take the process down. Faults become panics only on
// the goroutine that runs f, for the time it runs.
func (s *Store) protect(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &damageError{path: s.path, detail: r}
		}
	}()
	return f()
}

// view is db.View under protect: every read of the archive goes through it. An error
// that fn did not return (the transaction could not begin) wraps ErrStorage, and counts
// for Health as a failed write does: the archive cannot be written either.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	var fnErr error
	err := s.protect(func() error {
		return s.db.View(func(tx *bolt.Tx) error { fnErr = fn(tx); return fnErr })
	})
	if err != nil && err != fnErr && !errors.Is(err, ErrStorage) { //nolint:errorlint // fn's own error, unwrapped
		err = fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if errors.Is(err, ErrStorage) {
		s.writes.Fail(err, s.clock())
	}
	return err
}

// read runs fn in one read transaction (view) and returns what fn returns, its error
// wrapped with op (wrapErr).
func read[T any](s *Store, op string, fn func(*bolt.Tx) (T, error)) (T, error) {
	var v T
	err := s.view(func(tx *bolt.Tx) (err error) {
		v, err = fn(tx)
		return err
	})
	return v, wrapErr(op, err)
}

// update is db.Update under protect, with its outcome kept for Health: every write of
// the archive goes through it or batch.
func (s *Store) update(fn func(*bolt.Tx) error) error { return s.write(s.db.Update, fn) }

// batch is db.Batch as update is db.Update.
func (s *Store) batch(fn func(*bolt.Tx) error) error { return s.write(s.db.Batch, fn) }

func (s *Store) write(via func(func(*bolt.Tx) error) error, fn func(*bolt.Tx) error) error {
	id := s.writes.Begin()
	var fnErr error
	err := s.protect(func() error {
		return via(func(tx *bolt.Tx) error {
			// Protected on its own too: db.Batch runs fn on another goroutine.
			fnErr = s.protect(func() error { return fn(tx) })
			return fnErr
		})
	})
	// An error that fn did not return is bbolt's own: the transaction could not begin
	// or commit, or met a damaged page.
	storage := err != nil && (err != fnErr || errors.Is(err, ErrStorage)) //nolint:errorlint // identity is the point: fn's own error, unwrapped
	if storage && !errors.Is(err, ErrStorage) {
		err = fmt.Errorf("%w: %w", ErrStorage, err)
	}
	switch {
	case storage:
		s.writes.End(id, err, s.clock())
	case err == nil:
		s.writes.End(id, nil, time.Time{})
	default: // refused by fn: says nothing of the storage
		s.writes.End(id, writehealth.Refused, time.Time{})
	}
	return err
}

// Health reports whether the archive takes writes, from what the writes of the process
// saw, without writing: an error when the last write (or a read) failed as storage
// (ErrStorage) and no write has committed since, or when a write has been waiting or running for longer than
// stall (a frozen disk, a transaction that cannot start). nil otherwise, also when
// nothing was written yet.
func (s *Store) Health(stall time.Duration) error { return s.writes.Check(s.path, stall) }

// wrapErr prefixes err with the operation, and keeps nil nil.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("archive: %s: %w", op, err)
}
