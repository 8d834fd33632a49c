package archive

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// ReleasePages drops this process's mappings of the archive's pages (madvise
// MADV_DONTNEED on bbolt's read-only shared mapping). The pages stay in the kernel's page
// cache, and the next read of one maps it again from there: nothing is lost or re-read
// from disk while memory is plentiful. What it changes is the process's RSS, which counts
// every page of the file the process has touched since it started: a scan of the archive
// (the start-up counts, pruning, a page listing many incidents) would otherwise stay in
// the daemon's RSS for good, and kernels with large page-cache folios map up to a whole
// folio (hundreds of KB) around each 4 KB page read.
func (s *Store) ReleasePages() error {
	return s.view(s.releaseMapped)
}

// releaseMapped is ReleasePages inside a transaction the caller holds, for scans that
// read the whole archive in one transaction and release as they go. In a read
// transaction bbolt's mmap lock is held shared, and in a write transaction only this
// goroutine could remap (by growing the file in a Put): either way the address and size
// below stay those of the mapping until madvise returns.
func (s *Store) releaseMapped(tx *bolt.Tx) error {
	data, size := s.db.Info().Data, uintptr(tx.Size())
	if data == 0 || size == 0 {
		return nil
	}
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, data, size, unix.MADV_DONTNEED); errno != 0 {
		return fmt.Errorf("archive: release pages: madvise: %w", errno)
	}
	return nil
}
