package archive

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/searchindex"
	"github.com/statuswatch/statuswatch/internal/cputime"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// benchVocabulary is benchWords made-up words, used with a Zipf distribution as words
// are in prose: a few in nearly every incident, most in a handful.
const benchWords = 20000

func benchWord(i int) string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "qu", "dr", "pl", "st", "ex", "on", "ar"}
	var b strings.Builder
	for n := i + 1; n > 0; n /= len(syl) {
		b.WriteString(syl[n%len(syl)])
	}
	return b.String()
}

// benchArchive records sources×perSource incidents into a new archive at dir, through
// Record: a first version of each (a title and three updates of about twenty words), and
// a second version of every third, whose first update lost its first word.
func benchArchive(b *testing.B, dir string, sources, perSource int) *Store {
	s, err := Open(filepath.Join(dir, "watcher.db"), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	zipf := rand.NewZipf(rng, 1.07, 2, benchWords-1)
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = benchWord(int(zipf.Uint64()))
		}
		return strings.Join(w, " ")
	}
	start := time.Now()
	for si := range sources {
		name := fmt.Sprintf("src%03d", si)
		incs := make([]model.Incident, perSource)
		for i := range incs {
			at := t0.Add(-time.Duration(si*perSource+i) * time.Minute)
			incs[i] = model.Incident{ID: fmt.Sprintf("i%05d", i), Kind: model.KindIncident, Status: model.StatusResolved,
				Impact: model.ImpactMinor, Title: text(5), StartedAt: at, Components: []string{"API"}}
			for u := range 3 {
				incs[i].Updates = append(incs[i].Updates, model.Update{ID: fmt.Sprint(u), Status: model.StatusResolved,
					Body: text(20), Format: model.FormatText, PostedAt: at})
			}
		}
		sn := &model.Snapshot{Source: name, FetchedAt: t0, Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
		if _, err := s.Record(name, sn, nil, nil, Policy{FirstPoll: FirstPollNone}); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(incs); i += 3 {
			u := &incs[i].Updates[0]
			_, u.Body, _ = strings.Cut(u.Body, " ")
		}
		sn.FetchedAt = t0.Add(time.Hour)
		if _, err := s.Record(name, sn, nil, nil, Policy{FirstPoll: FirstPollNone}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("built %d incidents in %v", sources*perSource, time.Since(start).Round(time.Millisecond))
	return s
}

// BenchmarkSearch100k is a search of 100,000 incidents (133,000 versions), built once
// through Record: Store.SearchFirst, the first 100 hits in list order, and those read
// (IncidentInfos), which is the archive's part of GET /api/v1/incidents?q=. With
// SEARCH100K_DB=dir, the archive is built in dir once and read from there after.
func BenchmarkSearch100k(b *testing.B) {
	var s *Store
	if p := os.Getenv("SEARCH100K_DB"); p != "" {
		if _, err := os.Stat(filepath.Join(p, "watcher.db")); err == nil {
			var err error
			if s, err = Open(filepath.Join(p, "watcher.db"), Options{NoSync: true}); err != nil {
				b.Fatal(err)
			}
		} else {
			s = benchArchive(b, p, 10, 10000)
		}
	} else {
		s = benchArchive(b, b.TempDir(), 10, 10000)
	}
	b.Cleanup(func() { s.Close() })
	for _, q := range []struct{ name, q string }{
		// Ranks about 100 and 300 of the vocabulary: each in a few per cent of incidents.
		{"two-words", benchWord(100) + " " + benchWord(300)},
		{"two-rare-words", benchWord(3000) + " " + benchWord(5000)},
		// The two commonest: each in nearly every incident, the worst case.
		{"two-common-words", benchWord(2) + " " + benchWord(3)},
	} {
		b.Run(q.name, func(b *testing.B) {
			all, err := s.Search(q.q, "", nil)
			if err != nil {
				b.Fatal(err)
			}
			old := 0
			for _, h := range all.Hits {
				if !h.Matched.Latest {
					old++
				}
			}
			var hits int
			var partial bool
			cpu := cputime.Process()
			for b.Loop() {
				pg, err := s.SearchFirst(q.q, "", nil, nil, 100)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.IncidentInfos(pg.Hits); err != nil {
					b.Fatal(err)
				}
				hits, partial = pg.Total, pg.Partial
			}
			// The CPU time of the whole process (the collector's included) an operation:
			// on a shared machine, wall time is as much the others' load.
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(hits), "hits")
			b.ReportMetric(float64(old), "hits-not-latest")
			if partial {
				b.ReportMetric(1, "partial")
			}
		})
	}
}

// BenchmarkMigrateTo4 is the upgrade of an archive of 10,000 incidents (13,334 versions)
// from layout 3: its index built from every version, in the one transaction of the
// migration, which runs when the daemon opens the file.
func BenchmarkMigrateTo4(b *testing.B) {
	dir := b.TempDir()
	s := benchArchive(b, dir, 1, 10000)
	path := s.Path()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			b.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error {
			if err := tx.DeleteBucket(searchindex.Bucket); err != nil {
				return err
			}
			return tx.Bucket(layout.BucketMeta).Put(layout.KeyLayout, binary.BigEndian.AppendUint32(nil, 3))
		})
		db.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		s, err := Open(path, Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
