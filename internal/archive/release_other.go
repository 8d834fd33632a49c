//go:build !linux

package archive

import bolt "go.etcd.io/bbolt"

// ReleasePages is a no-op where the daemon is not supported; see release_linux.go.
func (s *Store) ReleasePages() error { return nil }

func (s *Store) releaseMapped(*bolt.Tx) error { return nil }
