package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// TestRounds runs the floor's three rounds against three local pages: cold, cold with
// the archive in each form, warm; the archive holds each body once, each incident once
// and each page's state.
func TestRounds(t *testing.T) {
	fleet, err := fakepage.NewFleet(3)
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	dir := t.TempDir()
	var cfg strings.Builder
	cfg.WriteString("sources:\n")
	for i := range fleet.Len() {
		fmt.Fprintf(&cfg, "  - name: p%d\n    url: %s\n", i, fleet.URL(i))
	}
	o := options{config: filepath.Join(dir, "watcher.yaml"), mode: "cold", etagFile: filepath.Join(dir, "etags"), concurrency: 2, batch: 2}
	if err := os.WriteFile(o.config, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(o); err != nil {
		t.Fatalf("cold: %v", err)
	}
	for _, form := range []string{"binary", "json"} {
		a := o
		a.archive, a.form = filepath.Join(dir, form+".db"), form
		if err := run(a); err != nil {
			t.Fatalf("cold, archiving %s: %v", form, err)
		}
		counts := map[string]int{}
		db, err := bolt.Open(a.archive, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		err = db.View(func(tx *bolt.Tx) error {
			return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
				return b.ForEach(func(k, v []byte) error {
					counts[string(name)]++
					if string(name) == "incidents" && !bytes.Contains(v, []byte("Vendor")) && !bytes.Contains(v, []byte("resolved")) {
						t.Errorf("%s: incident %q holds neither a name nor a status: %q", form, k, v)
					}
					return nil
				})
			})
		})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		// Every page serves 50 incidents of its own.
		if want := map[string]int{"bodies": 3, "incidents": 150, "states": 3}; fmt.Sprint(counts) != fmt.Sprint(want) {
			t.Errorf("%s archive: %v, want %v", form, counts, want)
		}
	}
	if err := run(options{config: o.config, mode: "warm", etagFile: o.etagFile, concurrency: 2, archive: filepath.Join(dir, "warm.db")}); err == nil {
		t.Error("-archive with a warm round: no error")
	}
	o.mode = "warm"
	if err := run(o); err != nil {
		t.Fatalf("warm: %v", err)
	}
}
