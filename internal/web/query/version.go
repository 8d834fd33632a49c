// Package query answers what the API and the pages ask of the archive beyond its plain
// reads: an incident's latest version and the version in force at a time, found without
// decoding every version; whether a source is known; whether an incident has every word
// of a search.
package query

import (
	"errors"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The archive numbers an incident's versions 1..N without gaps, since versions are only
// ever appended, and knows N from the incident record (Store.VersionCount). An answer
// that needs the last version meeting a condition on the whole version searches with
// Store.Version: a gallop from a version known to exist, then a binary search, about
// 2·log2(N) short reads of one version each, instead of decoding all N.

// LastVersion returns the last version from known on (known must exist) for which ok
// holds, given that ok holds for known and, once false, stays false for every later
// version; a missing version counts as false.
func LastVersion(st *archive.Store, source, id string, known *model.Version, ok func(*model.Version) bool) (*model.Version, error) {
	lo, hi := known, 0 // ok(lo); hi, once set, is a number where ok fails
	for step := 1; hi == 0; step *= 2 {
		n := lo.N + step
		v, err := probe(st, source, id, n, ok)
		if err != nil {
			return nil, err
		}
		if v == nil {
			hi = n
			break
		}
		lo = v
	}
	for hi-lo.N > 1 {
		mid := lo.N + (hi-lo.N)/2
		v, err := probe(st, source, id, mid, ok)
		if err != nil {
			return nil, err
		}
		if v == nil {
			hi = mid
		} else {
			lo = v
		}
	}
	return lo, nil
}

// probe returns version n if it exists and ok holds for it, else nil.
func probe(st *archive.Store, source, id string, n int, ok func(*model.Version) bool) (*model.Version, error) {
	v, err := st.Version(source, id, n)
	switch {
	case errors.Is(err, archive.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case !ok(v):
		return nil, nil
	}
	return v, nil
}

// LatestFrom returns the latest version of an incident, searching from known, which
// exists.
// The incident record knows the latest number, so this is one decode, not a search.
func LatestFrom(st *archive.Store, source, id string, known *model.Version) (*model.Version, error) {
	n, err := st.VersionCount(source, id)
	switch {
	case err != nil:
		return nil, err
	case n == known.N:
		return known, nil
	}
	return st.Version(source, id, n)
}

// Latest returns the latest version of an incident, or archive.ErrNotFound.
func Latest(st *archive.Store, source, id string) (*model.Version, error) {
	first, err := st.Version(source, id, 1)
	if err != nil {
		return nil, err
	}
	return LatestFrom(st, source, id, first)
}
