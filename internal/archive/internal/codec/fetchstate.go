package codec

// The stored fetch state, and the form of AWS's episodes before they had a field of
// their own, which every reader of a fetch state still understands.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// DecodeFetchState reads a stored fetch state, empty if none. An entry in the form of
// layout 2 and before (legacyEpisodes) comes back in today's, so a read-only open, or a
// backup taken before, reads as a migrated archive does.
func DecodeFetchState(data []byte) (model.FetchState, error) {
	st := model.FetchState{}
	if data == nil {
		return st, nil
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("fetch state: %w", err)
	}
	UpgradeEpisodes(st)
	return st, nil
}

// legacyEpisodes prefixes the fetch-state entries in which AWS remembered, up to layout
// 2, the episodes of one service, as a list in the entry's Hash, joined by commas:
//
//	<start>-<last>             resolved by a post
//	<start>-<last>+            open, not listed by currentevents (feed only)
//	<start>-<last>+e           open, listed by currentevents
//	<start>-<last>+m<unix>     open, absent from currentevents since that poll (missed once)
//	<start>-<last>i<unix>      resolved by inference, resolved_at that time
//
// The first two are the form before the absence rule, which reads the same (an open
// episode of theirs counts as not listed). It is frozen: archives in the field hold it.
const legacyEpisodes = "episodes/"

// UpgradeEpisodes moves the episodes of every entry still in the legacy form
// (legacyEpisodes) into its Episodes field, skipping unreadable ones as AWS did, and
// reports whether it moved any.
func UpgradeEpisodes(st model.FetchState) bool {
	moved := false
	for k, v := range st {
		if !strings.HasPrefix(k, legacyEpisodes) || v.Hash == "" || v.Episodes != nil {
			continue
		}
		var eps []model.Episode
		for _, f := range strings.Split(v.Hash, ",") {
			if e, ok := parseLegacyEpisode(f); ok {
				eps = append(eps, e)
			}
		}
		st[k] = model.EndpointState{Episodes: eps}
		moved = true
	}
	return moved
}

// parseLegacyEpisode reads one entry of the legacy form; see legacyEpisodes.
func parseLegacyEpisode(f string) (model.Episode, bool) {
	a, rest, ok := strings.Cut(f, "-")
	if !ok {
		return model.Episode{}, false
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(rest[:i], 10, 64)
	if err1 != nil || err2 != nil || start < 0 || last < start {
		return model.Episode{}, false
	}
	e := model.Episode{Start: start, Last: last}
	flags := rest[i:]
	flags, e.Open = strings.CutPrefix(flags, "+")
	at := func(v string) int64 {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0
		}
		return n
	}
	switch {
	case flags == "":
	case e.Open && flags == "e":
		e.Listed = true
	case e.Open && flags[0] == 'm':
		e.Missed = at(flags[1:])
		ok = e.Missed > 0
	case !e.Open && flags[0] == 'i':
		e.Inferred = at(flags[1:])
		ok = e.Inferred > 0
	default:
		ok = false
	}
	return e, ok
}
