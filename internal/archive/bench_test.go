package archive

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/cputime"
	"github.com/statuswatch/statuswatch/internal/model"
)

// benchSnapshot is a Statuspage-sized snapshot: 50 incidents with a few updates each.
func benchSnapshot(at time.Time) *model.Snapshot {
	incs := make([]model.Incident, 50)
	for i := range incs {
		id := fmt.Sprintf("inc%02d", i)
		incs[i] = inc(id, started(t0.Add(-time.Duration(i)*24*time.Hour)), status(model.StatusResolved),
			update("Identified: a bad deploy of the edge configuration."),
			update("Monitoring: error rates are back to normal in every region."),
			update("Resolved: this incident has been resolved."))
	}
	return snap(at, incs...)
}

func benchStore(b *testing.B) *Store {
	path := filepath.Join(b.TempDir(), "watcher.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkRecordUnchanged is a poll whose body changed bytes but not meaning: 50
// incidents compared by fingerprint in one read transaction, nothing written.
func BenchmarkRecordUnchanged(b *testing.B) {
	s := benchStore(b)
	st := model.FetchState{"incidents": {ETag: `W/"1"`, Hash: "h"}}
	if _, err := s.Record("acme", benchSnapshot(t0), st, nil, Policy{}); err != nil {
		b.Fatal(err)
	}
	benchUnchanged(b, s, benchSnapshot(t0.Add(time.Minute)), st)
}

// benchUnchanged records snap with state st over and over, each Record changing nothing,
// and reports the file's growth per Record (0).
func benchUnchanged(b *testing.B, s *Store, snap *model.Snapshot, st model.FetchState) {
	fi, _ := os.Stat(s.Path())
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Record("acme", snap, st, nil, Policy{})
		if err != nil || res != (Result{}) {
			b.Fatalf("Record: %+v, %v", res, err)
		}
	}
	after, _ := os.Stat(s.Path())
	b.ReportMetric(float64(after.Size()-fi.Size())/float64(b.N), "file-B/op")
}

// BenchmarkRecordChanged is a poll where one of 50 incidents got a new update: one
// version, one message, one new raw body (compressed), in one write transaction.
func BenchmarkRecordChanged(b *testing.B) {
	s := benchStore(b)
	raw, err := os.ReadFile("testdata/openai-statuspage-compat-summary-2026-07-22.json")
	if err != nil {
		b.Fatal(err)
	}
	snap := benchSnapshot(t0)
	if _, err := s.Record("acme", snap, nil, nil, Policy{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	cpu := cputime.Process()
	for b.Loop() {
		n++
		snap.FetchedAt = t0.Add(time.Duration(n) * time.Minute)
		i := &snap.Incidents[n%len(snap.Incidents)]
		i.Title = fmt.Sprintf("Elevated errors, take %d", n)
		data := append(raw[:len(raw):len(raw)], fmt.Sprintf(" %d", n)...)
		res, err := s.Record("acme", snap, nil, []model.Body{body("incidents", data)}, Policy{})
		if err != nil || res.Changed != 1 {
			b.Fatalf("Record: %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
}

// benchComponents is a page of 300 components (one per data centre), the first bad of
// them major_outage.
func benchComponents(bad int) *model.Components {
	cs := &model.Components{PageStatus: "none", List: make([]model.Component, 300)}
	for i := range cs.List {
		cs.List[i] = model.Component{ID: fmt.Sprintf("dc%04d", i), Name: fmt.Sprintf("Data centre %03d", i),
			Group: "Data centres", Status: model.ComponentOperational, StatusRaw: "operational"}
		if i < bad {
			cs.List[i].Status = model.ComponentMajorOutage
		}
	}
	return cs
}

// BenchmarkRecordComponentsUnchanged is a poll that read a 300-component page, changed
// in nothing that is versioned: a canonical copy, a hash, one key read, nothing written.
func BenchmarkRecordComponentsUnchanged(b *testing.B) {
	s := benchStore(b)
	sn := benchSnapshot(t0)
	sn.Components = benchComponents(0)
	if _, err := s.Record("acme", sn, nil, nil, Policy{}); err != nil {
		b.Fatal(err)
	}
	sn = benchSnapshot(t0.Add(time.Minute))
	sn.Components = benchComponents(0)
	benchUnchanged(b, s, sn, nil)
}

// BenchmarkRecordComponentChanged is a poll where one component of a 300-component page
// flips: one component version (the whole set, compressed) and one message.
func BenchmarkRecordComponentChanged(b *testing.B) {
	s := benchStore(b)
	sn := benchSnapshot(t0)
	sn.Components = benchComponents(0)
	if _, err := s.Record("acme", sn, nil, nil, Policy{}); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(s.Path())
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		sn.FetchedAt = t0.Add(time.Duration(n) * time.Minute)
		sn.Components = benchComponents(n % 2)
		res, err := s.Record("acme", sn, nil, nil, Policy{})
		if err != nil || res.Components != n+1 || res.Messages != 1 {
			b.Fatalf("Record: %+v, %v", res, err)
		}
	}
	after, _ := os.Stat(s.Path())
	b.ReportMetric(float64(after.Size()-fi.Size())/float64(b.N), "file-B/op")
}
