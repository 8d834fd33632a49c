package archive

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/searchindex"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

func (ts *testStore) search(q, source string) []SearchHit {
	ts.tb.Helper()
	res, err := ts.Search(q, source, nil)
	if err != nil {
		ts.tb.Fatalf("Search(%q): %v", q, err)
	}
	if res.Partial {
		ts.tb.Errorf("Search(%q): partial", q)
	}
	if len(res.Hits) == 0 {
		return nil
	}
	slices.SortFunc(res.Hits, func(a, b SearchHit) int { return strings.Compare(a.Source+"/"+a.ID, b.Source+"/"+b.ID) })
	for _, h := range res.Hits {
		if h.Matched.Latest != (h.Matched.Version == 0) {
			ts.tb.Errorf("Search(%q): %s: %+v: want version 0 exactly when latest", q, h.ID, h.Matched)
		}
	}
	if _, err := ts.IncidentInfos(res.Hits); err != nil { // sets the latest versions
		ts.tb.Fatal(err)
	}
	return res.Hits
}

// edited is inc-1 whose only update says body.
func edited(body string, opts ...func(*model.Incident)) model.Incident {
	i := inc("inc-1", opts...)
	i.Updates[0].Body = body
	return i
}

// TestSearchRemovedWord: a word the vendor took out in version 2 is still found, in
// version 1, not in the latest.
func TestSearchRemovedWord(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(at(1), edited("We are investigating a bad DNS change.")), Policy{}, nil)
	ts.record(snap(at(2), edited("We are investigating a change.")), Policy{}, nil)
	ts.record(snap(at(3), edited("We are investigating a change.", status(model.StatusResolved))), Policy{}, nil)

	tests := []struct {
		q    string
		want []SearchHit
	}{
		{"dns", []SearchHit{{Source: "acme", ID: "inc-1", ListedAt: t0, Matched: Match{Version: 1, Field: "updates"}}}},
		{"DNS change", []SearchHit{{Source: "acme", ID: "inc-1", ListedAt: t0, Matched: Match{Version: 1, Field: "updates"}}}},
		{"change", []SearchHit{{Source: "acme", ID: "inc-1", ListedAt: t0, Matched: Match{Version: 3, Field: "updates", Latest: true}}}},
		{"elevated", []SearchHit{{Source: "acme", ID: "inc-1", ListedAt: t0, Matched: Match{Version: 3, Field: "title", Latest: true}}}},
		{"api", []SearchHit{{Source: "acme", ID: "inc-1", ListedAt: t0, Matched: Match{Version: 3, Field: "components", Latest: true}}}},
		{"dns nowhere", nil},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if got := ts.search(tt.q, ""); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Search(%q) = %+v, want %+v", tt.q, got, tt.want)
			}
		})
	}
	if got := ts.search("dns", "other"); len(got) != 0 {
		t.Errorf("Search in another source: %+v", got)
	}

	infos, err := ts.IncidentInfos(ts.search("dns", ""))
	if err != nil || len(infos) != 1 || infos[0].Versions != 3 || infos[0].Latest.Status != model.StatusResolved {
		t.Errorf("IncidentInfos: %+v, %v", infos, err)
	}
	// Pruning raw payloads keeps every version, so every posting.
	if _, _, err := ts.PruneSnapshots(at(10)); err != nil {
		t.Fatal(err)
	}
	if got := ts.search("dns", ""); len(got) != 1 || got[0].Matched.Version != 1 {
		t.Errorf("after pruning: %+v", got)
	}
}

// TestSearchOpenFlag: a search keeps the open incidents only, or the others.
func TestSearchOpenFlag(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(at(1), inc("a", update("Payments are failing.")), inc("b", update("Payments are slow."), status(model.StatusResolved))), Policy{}, nil)
	for _, open := range []bool{true, false} {
		res, err := ts.Search("payments", "", &open)
		if want := map[bool]string{true: "a", false: "b"}[open]; err != nil || len(res.Hits) != 1 || res.Hits[0].ID != want {
			t.Errorf("open %v: got %+v, %v; want %s", open, res.Hits, err, want)
		}
	}
	if hits := ts.search("payments", ""); len(hits) != 2 {
		t.Errorf("hits: %+v", hits)
	}
}

// TestSearchLayout1: the committed archive of an older build is indexed when it is
// migrated, and a Record after that maintains the index.
func TestSearchLayout1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "watcher.db")
	copyFile(t, layout1, path)
	c := &clock{t: at(10)}
	ts := &testStore{Store: mustOpenPath(t, path, Options{NoSync: true, Now: c.Now}), tb: t, clock: c}
	got := ts.search("cause found", "")
	want := []SearchHit{{Source: "acme", ID: "inc-1", ListedAt: t0, Matched: Match{Version: 3, Field: "updates", Latest: true}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Search = %+v, want %+v", got, want)
	}
	i1 := inc("inc-1", status(model.StatusPostmortem), update("Resolved."))
	ts.record(snap(at(11), i1), Policy{}, nil)
	if got := ts.search("found", ""); len(got) != 1 || got[0].Matched != (Match{Version: 3, Field: "updates"}) {
		t.Errorf("after the word went: %+v", got)
	}
}

// TestSearchMigrateTo4: an archive of layout 3 — this build's, its index taken away —
// has no index while opened read-only and the same index as before once opened
// read-write.
func TestSearchMigrateTo4(t *testing.T) {
	path := filepath.Join(t.TempDir(), "watcher.db")
	s := mustOpenPath(t, path, Options{NoSync: true})
	ts := &testStore{Store: s, tb: t, clock: &clock{t: t0}}
	ts.record(snap(at(1), edited("Cause: a bad DNS change."), inc("b", update("결제 서비스장애"))), Policy{}, nil)
	ts.record(snap(at(2), edited("Cause: a change."), inc("b", update("결제 서비스장애"), update("복구 완료"))), Policy{}, nil)
	before := [][]SearchHit{ts.search("dns", ""), ts.search("장애 복구", ""), ts.search("change", "")}
	checkAndClose(t, s)
	rewrite(t, path, func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(searchindex.Bucket); err != nil {
			return err
		}
		return tx.Bucket(layout.BucketMeta).Put(layout.KeyLayout, binary.BigEndian.AppendUint32(nil, 3))
	})

	ro := mustOpenPath(t, path, Options{ReadOnly: true})
	if _, err := ro.Search("dns", "", nil); !errors.Is(err, ErrNoIndex) {
		t.Errorf("read-only Search of layout 3: err %v, want ErrNoIndex", err)
	}
	checkAndClose(t, ro)

	// One version per transaction, so the build goes through several, resuming each time.
	defer func(n int) { searchChunk = n }(searchChunk)
	searchChunk = 1
	ts.Store = mustOpenPath(t, path, Options{NoSync: true})
	after := [][]SearchHit{ts.search("dns", ""), ts.search("장애 복구", ""), ts.search("change", "")}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("after migration: %+v, want %+v", after, before)
	}
	if len(before[0]) != 1 || before[0][0].Matched.Latest || len(before[1]) != 1 {
		t.Errorf("hits: %+v", before)
	}
}

// TestSearchAgreesWithScan records random edits of a few incidents and checks every
// search against a scan of every version.
func TestSearchAgreesWithScan(t *testing.T) {
	words := strings.Fields("dns outage api latency degraded payments region east west resolved café 장애 서비스 障害")
	rng := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var b []string
		for range 1 + rng.IntN(5) {
			b = append(b, words[rng.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	ts := MustOpen(t)
	for n := 1; n <= 30; n++ {
		var incs []model.Incident
		for i := range 4 {
			in := inc(fmt.Sprintf("inc-%d", i))
			in.Title = text()
			in.Updates[0].Body = text()
			if rng.IntN(2) == 0 {
				in.Updates = append(in.Updates, model.Update{ID: "u2", Body: text()})
			}
			if rng.IntN(3) == 0 {
				in.Postmortem = &model.Postmortem{Body: text()}
			}
			incs = append(incs, in)
		}
		ts.record(snap(at(n), incs...), Policy{}, nil)
	}
	for _, q := range []string{"dns", "dns outage", "api east", "cafe", "장애", "서비스 障害", "region west resolved", "lat"} {
		var want []string
		for i := range 4 {
			id := fmt.Sprintf("inc-%d", i)
			vs := ts.versions(id)
			if scanMatches(vs, q) {
				latest := scanMatches(vs[len(vs)-1:], q) && allIn(&vs[len(vs)-1].Incident, q)
				want = append(want, fmt.Sprintf("%s %v", id, latest))
			}
		}
		var got []string
		for _, h := range ts.search(q, "") {
			got = append(got, fmt.Sprintf("%s %v", h.ID, h.Matched.Latest))
			// The version named has the word that went, and the next does not.
			if !h.Matched.Latest {
				vs := ts.versions(h.ID)
				if v := h.Matched.Version; v < 1 || v >= len(vs) {
					t.Errorf("%q: %s: version %d of %d", q, h.ID, v, len(vs))
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %q, scan says %q", q, got, want)
		}
	}
}

// scanMatches reports whether every term of q is in some version of vs.
func scanMatches(vs []model.Version, q string) bool {
	for _, term := range searchindex.QueryTerms(q) {
		found := false
		for i := range vs {
			if slices.ContainsFunc(allTerms(&vs[i].Incident), func(t string) bool { return hasTerm(t, term) }) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func allIn(in *model.Incident, q string) bool {
	terms := allTerms(in)
	for _, term := range searchindex.QueryTerms(q) {
		if !slices.ContainsFunc(terms, func(t string) bool { return hasTerm(t, term) }) {
			return false
		}
	}
	return true
}

func hasTerm(t, term string) bool {
	if len([]rune(term)) < 3 && term[0] < 0x80 {
		return t == term
	}
	return strings.HasPrefix(t, term)
}

func allTerms(in *model.Incident) []string {
	texts := []string{in.Title}
	for _, u := range in.Updates {
		texts = append(texts, u.Body)
	}
	if in.Postmortem != nil {
		texts = append(texts, in.Postmortem.Body)
	}
	texts = append(texts, in.Components...)
	var terms []string
	for _, s := range texts {
		terms = searchindex.Tokens(s, terms)
	}
	return terms
}

// TestSearchFirstAsSortedSearch: the pages SearchFirst gives, walked with the last hit of
// each as the next one's after, with and without the open flag and a source, are Search's
// hits filtered, sorted in list order and cut, as query.Search made them before: the
// same hits, order, matches and totals, for a query that finds hundreds of incidents,
// many listed at the same time (so the URL id and the source order them), in an order
// unlike the index's.
func TestSearchFirstAsSortedSearch(t *testing.T) {
	ts := MustOpen(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for si, source := range []string{"acme", "beta", "zeta"} {
		var incs []model.Incident
		for i := range 120 {
			in := inc(fmt.Sprintf("inc-%03d", rng.IntN(1000)), started(t0.Add(-time.Duration(rng.IntN(20))*time.Hour)))
			in.Updates[0].Body = "Payments are failing in region " + []string{"east", "west"}[rng.IntN(2)]
			if i%3 == 0 {
				in.Status = model.StatusResolved
			}
			if i%7 == 0 {
				in.StartedAt, in.ScheduledFor = time.Time{}, time.Time{}
			}
			if !slices.ContainsFunc(incs, func(x model.Incident) bool { return x.ID == in.ID }) {
				incs = append(incs, in)
			}
		}
		sn := snap(at(1+si), incs...)
		sn.Source = source
		if _, err := ts.Record(source, sn, nil, nil, Policy{}); err != nil {
			t.Fatal(err)
		}
		// A second version of some: "west" taken out, so their matches are of version 1.
		for i := range incs {
			if i%4 == 0 {
				incs[i].Updates[0].Body = "Payments are failing"
			}
		}
		sn.FetchedAt = at(10 + si)
		if _, err := ts.Record(source, sn, nil, nil, Policy{}); err != nil {
			t.Fatal(err)
		}
	}
	order := func(a, b SearchHit) int {
		return cmp.Or(b.ListedAt.Compare(a.ListedAt), strings.Compare(b.ID, a.ID), strings.Compare(b.Source, a.Source))
	}
	yes, no := true, false
	for _, q := range []string{"payments", "payments west", "fail east"} {
		for _, source := range []string{"", "beta"} {
			for _, open := range []*bool{nil, &yes, &no} {
				all, err := ts.Search(q, source, open)
				if err != nil {
					t.Fatal(err)
				}
				want := all.Hits
				slices.SortFunc(want, order)
				if len(want) < 10 || q == "payments" && source == "" && open == nil && len(want) < 300 {
					t.Fatalf("%q %q %v: %d hits: too few to page", q, source, open, len(want))
				}
				for _, limit := range []int{1, 7, 100, 1000} {
					var got []SearchHit
					var after *SearchKey
					for pages := 0; ; pages++ {
						pg, err := ts.SearchFirst(q, source, open, after, limit)
						if err != nil {
							t.Fatal(err)
						}
						if pg.Total != len(want) || pg.Partial || len(pg.Hits) > limit || pg.More != (len(got)+len(pg.Hits) < len(want)) {
							t.Fatalf("%q %q %v limit %d: page %d: total %d, %d hits, more %v; want total %d", q, source, open, limit, pages, pg.Total, len(pg.Hits), pg.More, len(want))
						}
						got = append(got, pg.Hits...)
						if !pg.More {
							break
						}
						last := pg.Hits[len(pg.Hits)-1]
						after = &SearchKey{At: last.ListedAt, Source: last.Source, ID: last.ID}
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%q %q %v limit %d: pages differ from the sorted hits:\n%+v\nwant\n%+v", q, source, open, limit, got, want)
					}
				}
			}
		}
	}
}
