package archive

import bolt "go.etcd.io/bbolt"

// Generation returns a number that changes with every write committed to the archive
// (bbolt's transaction id of the last commit), also one committed by another process: a
// cache of an answer computed from the archive is good while it is the same.
func (s *Store) Generation() (uint64, error) {
	var gen uint64
	err := s.view(func(tx *bolt.Tx) error {
		gen = uint64(tx.ID())
		return nil
	})
	return gen, wrapErr("generation", err)
}
