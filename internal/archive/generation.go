package archive

import bolt "go.etcd.io/bbolt"

// Generation returns a number that changes with every write committed to the archive
// (bbolt's transaction id of the last commit), also one committed by another process: a
// cache of an answer computed from the archive is good while it is the same.
func (s *Store) Generation() (uint64, error) {
	return read(s, "generation", func(tx *bolt.Tx) (uint64, error) { return uint64(tx.ID()), nil })
}
