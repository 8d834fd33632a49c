package archive

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	bolt "go.etcd.io/bbolt"
)

// PollTimes is when a source was last polled, and last read successfully. A poll that
// changes nothing writes nothing, so these are not written per poll: the daemon saves
// them once, at a clean shutdown, and `watcher poll` at the end of a run that wrote
// anyway. They are what the UI shows until the daemon's own first poll.
type PollTimes struct {
	Polled    time.Time `json:"polled,omitzero"`
	Succeeded time.Time `json:"succeeded,omitzero"`
}

// PollTimes returns the saved poll times by source; an archive that has none gives an
// empty map.
func (s *Store) PollTimes() (map[string]PollTimes, error) {
	out := map[string]PollTimes{}
	err := s.db.View(func(tx *bolt.Tx) error {
		v := layout.Get(tx.Bucket(layout.BucketMeta), layout.KeyPollTimes)
		if v == nil {
			return nil
		}
		return json.Unmarshal(v, &out)
	})
	if err != nil {
		return nil, wrapErr("poll times", err)
	}
	return out, nil
}

// SavePollTimes merges times into the saved ones, in one write transaction: each time
// is kept only when it is later than the saved one, so a daemon and a `watcher poll`
// never move a source's times back. Nothing is written when nothing is later.
func (s *Store) SavePollTimes(times map[string]PollTimes) error {
	saved, err := s.PollTimes()
	if err != nil {
		return err
	}
	merged, changed := mergePollTimes(saved, times)
	if !changed {
		return nil
	}
	return wrapErr("save poll times", s.db.Update(func(tx *bolt.Tx) error {
		// Merged again inside the transaction: another process may have saved since.
		saved := map[string]PollTimes{}
		if v := layout.Get(tx.Bucket(layout.BucketMeta), layout.KeyPollTimes); v != nil {
			if err := json.Unmarshal(v, &saved); err != nil {
				return err
			}
		}
		merged, _ = mergePollTimes(saved, merged)
		return layout.PutJSON(tx.Bucket(layout.BucketMeta), layout.KeyPollTimes, merged)
	}))
}

// mergePollTimes returns saved with every later time of times, and whether any was.
func mergePollTimes(saved, times map[string]PollTimes) (map[string]PollTimes, bool) {
	out := maps.Clone(saved)
	if out == nil {
		out = map[string]PollTimes{}
	}
	changed := false
	for _, name := range slices.Sorted(maps.Keys(times)) {
		t, cur := times[name], out[name]
		if t.Polled.After(cur.Polled) {
			cur.Polled, changed = t.Polled.UTC(), true
		}
		if t.Succeeded.After(cur.Succeeded) {
			cur.Succeeded, changed = t.Succeeded.UTC(), true
		}
		out[name] = cur
	}
	return out, changed
}
