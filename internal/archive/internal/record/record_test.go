package record

import (
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout/layouttest"
	"github.com/statuswatch/statuswatch/internal/archive/policy"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// TestPlanApply records two polls inside transactions, as the Store does: the first
// writes version 1 and its announcement, the same poll again plans nothing, a changed
// incident gets version 2.
func TestPlanApply(t *testing.T) {
	db := layouttest.Open(t, t0, "acme")
	bc, err := codec.NewBodies()
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	inc := model.Incident{ID: "a", Title: "API errors", Status: model.StatusInvestigating, Impact: model.ImpactMajor, StartedAt: t0}
	poll := func(at time.Time, incs ...model.Incident) (Result, bool, error) {
		snap := &model.Snapshot{Source: "acme", FetchedAt: at, Incidents: incs}
		r, err := New("acme", snap, nil, nil, policy.Policy{FirstPoll: policy.FirstPollAll}, at, nil, bc)
		if err != nil {
			return Result{}, false, err
		}
		var res Result
		var empty bool
		err = db.Update(func(tx *bolt.Tx) error {
			p, err := r.Plan(tx)
			if err != nil {
				return err
			}
			if empty = p.Empty(); empty {
				return nil
			}
			res, err = r.Apply(tx, p)
			return err
		})
		return res, empty, err
	}
	if res, empty, err := poll(t0, inc); err != nil || empty || res.Changed != 1 || res.Messages != 1 {
		t.Fatalf("first poll: %+v, empty %v, %v", res, empty, err)
	}
	if _, empty, err := poll(t0.Add(time.Minute), inc); err != nil || !empty {
		t.Errorf("the same poll again: empty %v, %v; want an empty plan", empty, err)
	}
	inc.Status = model.StatusResolved
	if res, _, err := poll(t0.Add(2*time.Minute), inc); err != nil || res.Changed != 1 || res.Messages != 1 {
		t.Errorf("resolved: %+v, %v", res, err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		src := layout.Source(tx, "acme")
		v, err := incident.Latest(src.Bucket(layout.BucketIncidents), src.Bucket(layout.BucketVersions), "a")
		if err == nil && (v.N != 2 || v.Incident.Status != model.StatusResolved || len(v.Changes) == 0) {
			t.Errorf("latest version: %+v", v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
