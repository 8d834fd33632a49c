package archive

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// maxCheckProblems is how many problems Check lists: a badly damaged file has
// thousands, and the first few say what there is to say.
const maxCheckProblems = 20

// Check runs bbolt's consistency check of the archive file at path (`watcher check
// -archive`): every page reachable once, no freed page in use, every bucket's keys in
// order. It opens the file read-only, never creates or migrates it, and fails with
// ErrLocked while the daemon holds it. It returns the problems found (at most
// maxCheckProblems, then a count of the rest) and the file's layout; an error for a
// file it could not check at all.
func Check(path string, timeout time.Duration) (problems []string, fileLayout int, err error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, 0, fmt.Errorf("%w at %s", ErrNotExist, path)
	case err != nil:
		return nil, 0, err
	case fi.Size() == 0:
		return []string{"the file is empty (0 bytes)"}, 0, nil
	}
	s := &Store{path: path}
	err = s.protect(func() (err error) {
		s.db, err = bolt.Open(path, 0o400, &bolt.Options{ReadOnly: true, Timeout: timeout})
		return err
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, 0, fmt.Errorf("archive %s: another watcher holds it (gave up after %s); stop it, or check a backup: %w", path, timeout, ErrLocked)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return []string{fmt.Sprintf("meta pages: %v", err)}, 0, nil
	case errors.Is(err, ErrDamaged):
		if s.db != nil {
			_ = s.db.Close()
		}
		return []string{detailOf(err)}, 0, nil
	case err != nil:
		return nil, 0, fmt.Errorf("archive %s: %w", path, err)
	}
	defer s.db.Close()
	n := 0
	err = s.protect(func() error {
		return s.db.View(func(tx *bolt.Tx) error {
			// bbolt's check reads the freelist in a goroutine of its own, where a page
			// past the end of a truncated file is a fault no recover catches.
			// The size is read again: a daemon may have grown the file while Open
			// waited for its lock.
			if now, err := os.Stat(path); err == nil && tx.Size() > now.Size() {
				problems = append(problems, fmt.Sprintf("the file is truncated: it has %d bytes, its pages need %d", now.Size(), tx.Size()))
				return nil
			}
			for e := range tx.Check() {
				if n++; n <= maxCheckProblems {
					problems = append(problems, strings.TrimPrefix(e.Error(), "panic: "))
				}
			}
			if n == 0 {
				var err error
				if fileLayout, err = layout.Read(tx); err != nil {
					problems = append(problems, err.Error())
				}
			}
			return nil
		})
	})
	if err != nil {
		problems = append(problems, detailOf(err))
	}
	if n > maxCheckProblems {
		problems = append(problems, fmt.Sprintf("and %d more", n-maxCheckProblems))
	}
	return problems, fileLayout, nil
}

// detailOf is what a damage error found, without its advice; any other error whole.
func detailOf(err error) string {
	var d *damageError
	if errors.As(err, &d) {
		return fmt.Sprint(d.detail)
	}
	return err.Error()
}
