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

// TestBlocksAsSpans drives the index with random versions of many incidents, in random
// order and batches, so that old incidents gain and lose terms after newer ones were
// indexed and common terms outgrow many blocks, and compares every posting with the
// spans worked out from the versions themselves. It also checks each block's bounds and
// that its entries lie between its key and the next block's.
func TestBlocksAsSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"dns", "api", "latency", "errors", "region", "us-east-1", "database", "queue"}
	// Long update bodies make a few entries reach the blocks' byte bound too.
	text := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		return b.String()
	}
	const incidents = 700
	history := make([][]*model.Incident, incidents)
	db := openDB(t)
	for round := range 12 {
		err := db.Update(func(tx *bolt.Tx) error {
			var b Batch
			for _, i := range rng.Perm(incidents)[:incidents/2+round*20] {
				var prev *model.Incident
				if h := history[i]; len(h) > 0 {
					prev = h[len(h)-1]
				}
				cur := incident(text(), text(), text())
				if prev != nil && rng.IntN(3) == 0 {
					cur.Title = prev.Title // only the updates changed
				}
				history[i] = append(history[i], cur)
				if err := b.Index(tx, "acme", fmt.Sprint(i), uint32(len(history[i])), t0.Add(time.Duration(round)*time.Hour), prev, cur); err != nil {
					return err
				}
				if rng.IntN(100) == 0 {
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

	want := map[string][]Span{}
	err := db.View(func(tx *bolt.Tx) error {
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string][]Span
	blocks, split := 0, 0
	db.View(func(tx *bolt.Tx) error {
		got = postingsOf(tx)
		var lastPrefix []byte
		var lastDoc uint32
		c := tx.Bucket(Bucket).Bucket(bucketPostings).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			blocks++
			prefix := k[:len(k)-4]
			if bytes.Equal(prefix, lastPrefix) && blockDoc(k) <= lastDoc {
				t.Errorf("block %q begins at or before doc %d of the block before", k, lastDoc)
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
			if bytes.Equal(prefix, lastPrefix) {
				split++
			}
			lastPrefix = bytes.Clone(prefix)
			if n == 0 || n > maxBlockDocs || len(v) > maxBlockBytes && n > 1 {
				t.Errorf("block %q: %d entries, %d bytes", k, n, len(v))
			}
		}
		return nil
	})
	if split == 0 {
		t.Errorf("no term outgrew its first block (%d blocks)", blocks)
	}
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
	t.Logf("%d postings in %d blocks", len(got), blocks)
}
