//go:build !linux

package archive

// ReleasePages is a no-op where the daemon is not supported; see release_linux.go.
func (s *Store) ReleasePages() error { return nil }
