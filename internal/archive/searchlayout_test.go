package archive

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/testbin"
	bolt "go.etcd.io/bbolt"
)

// testdata/search-layout-4.db.gz is an archive written by the last build of layout 4,
// whose index kept a key per term and incident, and search-layout-4.json the answers
// that build gave to searchQueries. Opening it read-write must build the index again
// and give the same answers. Regenerate both only with layout 4 code (commit 2cabcdb):
//
//	go test ./internal/archive -run TestGenerateSearchLayout4 -generate-search4
var generateSearch4 = flag.Bool("generate-search4", false, "regenerate testdata/search-layout-4.*")

const (
	searchLayout4        = "testdata/search-layout-4.db.gz"
	searchLayout4Answers = "testdata/search-layout-4.json"
)

// searchCorpus records three sources of fakepage's incidents, then a second poll of
// each in which every third incident's first update lost its first two words and
// every fifth got a new title, so that searches find words in older versions only.
func searchCorpus(tb testing.TB, s *Store) {
	for i := range 3 {
		name := fmt.Sprintf("src-%d", i)
		incs := fakepage.ModelIncidents(uint64(100+i), t0)
		sn := &model.Snapshot{FetchedAt: t0, Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
		if _, err := s.Record(name, sn, nil, nil, Policy{FirstPoll: FirstPollNone}); err != nil {
			tb.Fatal(err)
		}
		edited := make([]model.Incident, len(incs))
		for j, in := range incs {
			in.Updates = append([]model.Update(nil), in.Updates...)
			if j%3 == 0 && len(in.Updates) > 0 {
				words := strings.Fields(in.Updates[0].Body)
				in.Updates[0].Body = strings.Join(words[min(2, len(words)):], " ")
			}
			if j%5 == 0 {
				in.Title = fmt.Sprintf("Renamed incident %d of %s", j, name)
			}
			edited[j] = in
		}
		sn = &model.Snapshot{FetchedAt: t0.Add(time.Hour), Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: edited}
		if _, err := s.Record(name, sn, nil, nil, Policy{FirstPoll: FirstPollNone}); err != nil {
			tb.Fatal(err)
		}
	}
}

// searchQueries are the corpus's words that the second polls removed, the first words
// of some titles, pairs of both, and words of every source.
func searchQueries() []string {
	qs := []string{"renamed", "renamed src", "incident", "zzzz-nothing"}
	for i := range 3 {
		incs := fakepage.ModelIncidents(uint64(100+i), t0)
		for j := 0; j < len(incs); j += 7 {
			in := incs[j]
			title := strings.Fields(in.Title)
			if len(in.Updates) > 0 {
				words := strings.Fields(in.Updates[0].Body)
				if len(words) >= 2 {
					qs = append(qs, words[0], words[0]+" "+words[1], words[1]+" "+title[0])
				}
			}
			qs = append(qs, title[0], strings.Join(title[:min(2, len(title))], " "))
		}
	}
	return qs
}

// searchAnswers is every hit of every query, each as "source/id version field latest".
func searchAnswers(tb testing.TB, s *Store) map[string][]string {
	out := map[string][]string{}
	for _, q := range searchQueries() {
		pg, err := s.SearchFirst(q, "", nil, nil, 1000)
		if err != nil {
			tb.Fatalf("search %q: %v", q, err)
		}
		infos, err := s.IncidentInfos(pg.Hits)
		if err != nil {
			tb.Fatal(err)
		}
		hits := []string{}
		for i, h := range pg.Hits {
			hits = append(hits, fmt.Sprintf("%s/%s %d %s %t (of %d)", h.Source, h.ID, h.Matched.Version, h.Matched.Field, h.Matched.Latest, infos[i].Versions))
		}
		out[q] = hits
	}
	return out
}

func TestGenerateSearchLayout4(t *testing.T) {
	if !*generateSearch4 {
		t.Skip("run with -generate-search4 to rewrite " + searchLayout4)
	}
	if Layout != 4 {
		t.Fatalf("this build writes layout %d: generate with layout 4 code", Layout)
	}
	tmp := filepath.Join(t.TempDir(), "watcher.db")
	s := mustOpenPath(t, tmp, Options{NoSync: true})
	searchCorpus(t, s)
	answers := searchAnswers(t, s)
	checkAndClose(t, s)
	data, err := json.MarshalIndent(answers, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(searchLayout4Answers, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	// Compacted, so that the file holds no freed pages, then compressed.
	compacted := filepath.Join(t.TempDir(), "compact.db")
	compactFile(t, tmp, compacted)
	raw, err := os.ReadFile(compacted)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(searchLayout4)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSearchLayout4 opens the archive of layout 4: read-only, a search says there is no
// index yet and the rest reads; read-write, the index is built again in blocks and gives
// the answers layout 4 gave.
func TestSearchLayout4(t *testing.T) {
	path := filepath.Join(t.TempDir(), "watcher.db")
	testbin.Gunzip(t, searchLayout4, path)
	var want map[string][]string
	data, err := os.ReadFile(searchLayout4Answers)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 || len(want["renamed"]) == 0 {
		t.Fatalf("%s holds too few answers: %d", searchLayout4Answers, len(want))
	}

	ro := mustOpenPath(t, path, Options{ReadOnly: true})
	if _, err := ro.SearchFirst("renamed", "", nil, nil, 10); !errors.Is(err, ErrNoIndex) {
		t.Errorf("read-only search of layout 4: %v, want ErrNoIndex", err)
	}
	if incs, err := ro.Incidents(""); err != nil || len(incs) != 150 {
		t.Errorf("read-only Incidents: %d, %v", len(incs), err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	// In parts, each heard of: the daemon tells systemd it is still starting.
	defer func(n int) { searchChunk = n }(searchChunk)
	searchChunk = 64
	var progress []int
	s := mustOpenPath(t, path, Options{NoSync: true, Progress: func(n int) { progress = append(progress, n) }})
	incs, err := s.Incidents("")
	if err != nil {
		t.Fatal(err)
	}
	versions := 0
	for _, in := range incs {
		versions += in.Versions
	}
	if len(progress) < 3 || !slices.IsSorted(progress) || progress[len(progress)-1] != versions {
		t.Errorf("progress of the build: %v, want several parts up to the %d versions", progress, versions)
	}
	if got := searchAnswers(t, s); !reflect.DeepEqual(got, want) {
		for q, w := range want {
			if g := got[q]; !reflect.DeepEqual(g, w) {
				t.Errorf("search %q:\n got %q\nwant %q", q, g, w)
			}
		}
	}
	checkAndClose(t, s)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		idx := tx.Bucket([]byte("search"))
		if idx.Bucket([]byte("terms")) != nil || idx.Bucket([]byte("postings")) == nil {
			t.Error("the index was not built again in layout 5's form")
		}
		return nil
	})
}
