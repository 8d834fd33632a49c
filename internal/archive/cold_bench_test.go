package archive

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/cputime"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
)

// coldSnapshot is the first poll of a Statuspage page of fleet seed: fakepage's 50
// incidents of prose (eight updates each, one to four components), all new to the archive.
func coldSnapshot(seed uint64, at time.Time) *model.Snapshot {
	return &model.Snapshot{FetchedAt: at, Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: fakepage.ModelIncidents(seed, t0)}
}

// BenchmarkRecordCold is a cold poll, a page's first: Record of 50 incidents new to an
// archive that holds 300 sources of them already (15,000 incidents), each one a version,
// a first-poll of nothing to tell (FirstPollNone), and the search index's terms of each.
func BenchmarkRecordCold(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "watcher.db"), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	const fleet = 300
	for i := range fleet {
		name := fmt.Sprintf("src%04d", i)
		if _, err := s.Record(name, coldSnapshot(uint64(i), t0), nil, nil, Policy{FirstPoll: FirstPollNone}); err != nil {
			b.Fatal(err)
		}
	}
	snaps := make([]*model.Snapshot, 0, 64)
	b.ReportAllocs()
	n := fleet
	var cpu time.Duration // the process's CPU time in the Records
	for b.Loop() {
		b.StopTimer()
		if len(snaps) == 0 {
			for j := range cap(snaps) {
				snaps = append(snaps, coldSnapshot(uint64(n+j), t0))
			}
		}
		sn := snaps[len(snaps)-1]
		snaps = snaps[:len(snaps)-1]
		name := fmt.Sprintf("src%04d", n)
		n++
		b.StartTimer()
		c := cputime.Process()
		res, err := s.Record(name, sn, nil, nil, Policy{FirstPoll: FirstPollNone})
		cpu += cputime.Process() - c
		if err != nil || res.Changed != 50 {
			b.Fatalf("Record: %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
