package record

import (
	"fmt"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/snapshot"
	"github.com/statuswatch/statuswatch/internal/archive/policy"
	bolt "go.etcd.io/bbolt"
)

// ConfirmMisses applies, in write transaction tx, the second miss in a row of every
// incident of the source missed once, for a well-formed poll whose bodies were unchanged
// (r's snapshot is empty, of the kind of listing that missed them): history providers'
// are marked removed, open-only ones' resolved. The poll's bodies are stored when that
// wrote a version or a removal, and the pending mark is cleared.
func (r *Recording) ConfirmMisses(tx *bolt.Tx) (Result, error) {
	var res Result
	src := layout.Source(tx, r.source)
	if src == nil {
		return res, nil
	}
	w := r.writer(tx, src, &res)
	var todo []missed
	if w.incidents != nil {
		err := incident.EachMeta(w.incidents, func(k []byte, m codec.Meta) error {
			if action := policy.ConfirmFor(r.snap.OpenOnly, archived(&m)); action != policy.MissNone {
				todo = append(todo, missed{id: string(k), meta: m, action: action})
			}
			return nil
		})
		if err != nil {
			return res, err
		}
	}
	for _, ms := range todo {
		if err := w.missed(ms); err != nil {
			return res, fmt.Errorf("incident %s: %w", ms.id, err)
		}
	}
	if w.evidence && len(r.bodies) > 0 {
		if err := snapshot.Put(tx, src.Bucket(layout.BucketSnapshots), r.at, r.bodies, r.bc); err != nil {
			return res, err
		}
	}
	return res, w.state.Delete(layout.KeyPending)
}
