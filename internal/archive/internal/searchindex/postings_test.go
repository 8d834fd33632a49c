package searchindex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// indexHistory indexes, in one transaction, the next version of each incident picked
// (by number, in the order given), adding it to history; flushEvery > 0 flushes the batch
// after that many versions too.
func indexHistory(t *testing.T, db *bolt.DB, history [][]*model.Incident, picked []int, next func(i int, prev *model.Incident) *model.Incident, flushEvery int) {
	t.Helper()
	err := db.Update(func(tx *bolt.Tx) error {
		var b Batch
		for k, i := range picked {
			var prev *model.Incident
			if h := history[i]; len(h) > 0 {
				prev = h[len(h)-1]
			}
			cur := next(i, prev)
			history[i] = append(history[i], cur)
			if err := b.Index(tx, "acme", fmt.Sprint(i), uint32(len(history[i])), t0.Add(time.Duration(len(history[i]))*time.Hour), prev, cur); err != nil {
				return err
			}
			if flushEvery > 0 && (k+1)%flushEvery == 0 {
				if err := b.Flush(tx); err != nil {
					return err
				}
			}
		}
		return b.Flush(tx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// blockStats is what checkBlocks saw of the blocks.
type blockStats struct {
	blocks, terms, entries int
	bytesBound             bool // some block was cut at maxBlockBytes before maxBlockDocs
}

// checkBlocks compares every posting of db's index with the spans worked out from the
// versions themselves (each field's terms, termsOf, coming and going), and checks each
// block's bounds and that its entries lie between its key and the next block's.
func checkBlocks(t *testing.T, db *bolt.DB, history [][]*model.Incident) blockStats {
	t.Helper()
	want := map[string][]Span{}
	var got map[string][]Span
	var st blockStats
	db.View(func(tx *bolt.Tx) error {
		for i, vs := range history {
			if len(vs) == 0 {
				continue
			}
			doc := tx.Bucket(Bucket).Bucket(bucketIDs).Get(docName("acme", fmt.Sprint(i)))
			var prev *model.Incident
			for n, cur := range vs {
				for f := Field(1); f <= numFields; f++ {
					had := map[string]bool{}
					for _, term := range termsOf(prev, f) {
						had[term] = true
					}
					for _, term := range termsOf(cur, f) {
						if !had[term] {
							k := string(termKey(term, doc))
							want[k] = append(want[k], Span{Field: f, From: uint32(n + 1)})
						}
						delete(had, term)
					}
					for term := range had {
						spans := want[string(termKey(term, doc))]
						for j := range spans {
							if spans[j].Field == f && spans[j].To == 0 {
								spans[j].To = uint32(n + 1)
							}
						}
					}
				}
				prev = cur
			}
		}
		got = postingsOf(tx)
		var lastPrefix []byte
		var lastDoc uint32
		c := tx.Bucket(Bucket).Bucket(bucketPostings).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			st.blocks++
			prefix := k[:len(k)-4]
			if bytes.Equal(prefix, lastPrefix) && blockDoc(k) <= lastDoc {
				t.Errorf("block %q begins at or before doc %d of the block before", k, lastDoc)
			}
			if !bytes.Equal(prefix, lastPrefix) {
				st.terms++
			}
			n, before := 0, int64(blockDoc(k))-1
			eachEntry(blockDoc(k), v, func(doc uint32, _ []byte) bool {
				if int64(doc) <= before {
					t.Errorf("block %q: doc %d out of its place", k, doc)
				}
				before, lastDoc = int64(doc), doc
				n++
				return true
			})
			st.entries += n
			st.bytesBound = st.bytesBound || n < maxBlockDocs/2 && len(v) > maxBlockBytes/2
			lastPrefix = bytes.Clone(prefix)
			if n == 0 || n > maxBlockDocs || len(v) > maxBlockBytes && n > 1 {
				t.Errorf("block %q: %d entries, %d bytes", k, n, len(v))
			}
		}
		return nil
	})
	if !reflect.DeepEqual(got, want) {
		n := 0
		for k, w := range want {
			if g := got[k]; !reflect.DeepEqual(g, w) && n < 10 {
				n++
				t.Errorf("%q: got %v, want %v", k, g, w)
			}
		}
		t.Errorf("postings differ: %d keys, want %d", len(got), len(want))
	}
	return st
}

// TestBlocksAsSpans drives the index with random versions of many incidents, in random
// order and batches, so that old incidents gain and lose terms after newer ones were
// indexed and common terms outgrow many blocks; one incident has more distinct terms in
// a field than a field keeps, then others.
func TestBlocksAsSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"dns", "api", "latency", "errors", "region", "us-east-1", "database", "queue"}
	text := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		return b.String()
	}
	// many is more distinct terms than a field keeps, from seed on: a new incident's
	// field is cut, and its next version ends terms that never had a span.
	many := func(seed int) string {
		var b strings.Builder
		for i := range maxFieldTerms + 500 {
			fmt.Fprintf(&b, "w%05d ", (i*7+seed)%(maxFieldTerms+900))
		}
		return b.String() + "dns"
	}
	const incidents = 700
	history := make([][]*model.Incident, incidents)
	db := openDB(t)
	for round := range 12 {
		indexHistory(t, db, history, rng.Perm(incidents)[:incidents/2+round*20], func(i int, prev *model.Incident) *model.Incident {
			cur := incident(text(), text(), text())
			if i == 7 {
				cur = incident("Outage dns", many(round*131), text())
			}
			if prev != nil && rng.IntN(3) == 0 {
				cur.Title = prev.Title // only the updates changed
			}
			return cur
		}, 1+rng.IntN(200))
	}
	st := checkBlocks(t, db, history)
	if st.blocks == st.terms {
		t.Errorf("no term outgrew its first block (%d blocks)", st.blocks)
	}
	t.Logf("%+v", st)
}

// TestBlocksStayFull adds a term to old incidents one by one, oldest first and then
// newest first, into full blocks: the blocks must stay at least half full, not break
// into blocks of an incident or two. Incidents whose term comes and goes in many
// versions make entries large enough for the blocks' byte bound.
func TestBlocksStayFull(t *testing.T) {
	const incidents = 1000
	history := make([][]*model.Incident, incidents)
	db := openDB(t)
	var all []int
	for i := range incidents {
		all = append(all, i)
	}
	indexHistory(t, db, history, all, func(i int, _ *model.Incident) *model.Incident {
		if i%2 == 0 {
			return incident("Outage", "resolved")
		}
		return incident("Outage", "investigating")
	}, 0)
	var odd, oldest []int
	for i := 1; i < incidents; i += 2 {
		odd = append(odd, i)
	}
	for i := incidents - 2; i >= 0; i -= 2 {
		oldest = append(oldest, i)
	}
	// The odd ones gain "resolved", each in its own transaction, oldest first.
	for _, i := range odd {
		indexHistory(t, db, history, []int{i}, func(int, *model.Incident) *model.Incident {
			return incident("Outage", "investigating resolved")
		}, 0)
	}
	// The even ones gain "monitoring", newest first: each before the term's first block.
	for _, i := range oldest {
		indexHistory(t, db, history, []int{i}, func(int, *model.Incident) *model.Incident {
			return incident("Outage", "resolved monitoring")
		}, 0)
	}
	// Twenty incidents flap: "degraded" comes and goes in 200 versions each.
	for v := range 200 {
		indexHistory(t, db, history, []int{3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41}, func(i int, _ *model.Incident) *model.Incident {
			if v%2 == 0 {
				return incident("Outage degraded", "investigating resolved")
			}
			return incident("Outage", "investigating resolved")
		}, 0)
	}
	st := checkBlocks(t, db, history)
	// At least half full: a term's entries over maxBlockDocs/2, and one more block for
	// each term's last (and the byte bound's few).
	if bound := st.entries/(maxBlockDocs/2) + 2*st.terms; st.blocks > bound || !st.bytesBound {
		t.Errorf("%d blocks for %d entries of %d terms (at most %d), cut at the byte bound: %v", st.blocks, st.entries, st.terms, bound, st.bytesBound)
	}
	t.Logf("%+v", st)
}

// TestAppendAfterDamagedTail: a block whose value ends in bytes that do not decode is
// rewritten, not appended to, so that a new incident's entry after it is found.
func TestAppendAfterDamagedTail(t *testing.T) {
	db := openDB(t)
	versions(t, db, "acme", "old", incident("Outage", "dns"))
	err := db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(Bucket).Bucket(bucketPostings)
		k, v := b.Cursor().Seek([]byte("dns\x00"))
		return b.Put(bytes.Clone(k), append(bytes.Clone(v), 0x05, 0xff))
	})
	if err != nil {
		t.Fatal(err)
	}
	versions(t, db, "acme", "new", incident("Outage", "dns"))
	if got := search(t, db, "dns", "").Hits; len(got) != 2 {
		t.Errorf("hits after a damaged block: %+v, want both incidents", got)
	}
}
