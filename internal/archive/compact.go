package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Compact rewrites the archive at path into a new file without the free pages deletes and
// pruning left behind, then swaps it in atomically (rename), so a crash leaves either the
// old file or the new one whole. It holds the archive's lock throughout and fails with
// ErrLocked while another process (the daemon) holds it. It returns the sizes before and
// after.
func Compact(path string, timeout time.Duration) (before, after int64, err error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, 0, fmt.Errorf("%w at %s", ErrNotExist, path)
		}
		return 0, 0, err
	}
	src, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return 0, 0, fmt.Errorf("archive %s: another watcher holds it (gave up after %s): %w", path, timeout, ErrLocked)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("archive %s: %w", path, err)
	}
	defer src.Close()
	if err := src.View(func(tx *bolt.Tx) error { _, err := layout.Read(tx); return err }); err != nil {
		return 0, 0, err
	}

	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".compact")
	_ = os.Remove(tmp) // a leftover of an interrupted compaction
	dst, err := bolt.Open(tmp, fi.Mode().Perm(), &bolt.Options{Timeout: timeout})
	if err != nil {
		return 0, 0, fmt.Errorf("compact %s: %w", path, err)
	}
	// 64 KiB per transaction keeps memory flat on a large archive; bolt.Compact keeps
	// bucket sequences, which our keys depend on.
	if err := bolt.Compact(dst, src, 64<<10); err != nil {
		dst.Close()
		os.Remove(tmp)
		return 0, 0, fmt.Errorf("compact %s: %w", path, err)
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		os.Remove(tmp)
		return 0, 0, fmt.Errorf("compact %s: sync: %w", path, err)
	}
	if err := dst.Close(); err != nil {
		os.Remove(tmp)
		return 0, 0, fmt.Errorf("compact %s: %w", path, err)
	}
	nfi, err := os.Stat(tmp)
	if err != nil {
		return 0, 0, err
	}
	// Rename while still holding the old file's lock: no writer can slip in between.
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return 0, 0, fmt.Errorf("compact %s: swap: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync() // make the rename durable
		d.Close()
	}
	return fi.Size(), nfi.Size(), nil
}
