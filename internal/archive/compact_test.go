package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestCompactAndBackupRestore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "watcher.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 40 {
		in := inc("inc1", update(fmt.Sprintf("Update number %d of a long incident.", i)))
		data := bytes.Repeat([]byte(fmt.Sprintf("payload %d ", i)), 2000)
		if _, err := s.Record("acme", snap(base.Add(time.Duration(i)*time.Hour), in), nil, []model.Body{body("incidents", data)}, Policy{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.PruneSnapshots(base.Add(39 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	want, err := s.Versions("acme", "inc1")
	if err != nil || len(want) == 0 {
		t.Fatalf("versions before compaction: %d, %v", len(want), err)
	}

	t.Run("compact refuses while the archive is held", func(t *testing.T) {
		_, _, err := Compact(path, 100*time.Millisecond)
		if !errors.Is(err, ErrLocked) {
			t.Errorf("Compact on a held archive: got %v, want ErrLocked", err)
		}
	})

	var backup bytes.Buffer
	if _, err := s.WriteTo(&backup); err != nil {
		t.Fatal(err)
	}
	s.Close()

	t.Run("compact shrinks and keeps the history", func(t *testing.T) {
		before, after, err := Compact(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// 39 of 40 raw snapshots were pruned: their pages are free and compaction drops them.
		if after >= before {
			t.Errorf("compaction did not shrink the file: %d → %d bytes", before, after)
		}
		t.Logf("compacted %d → %d bytes", before, after)
		s := mustOpenPath(t, path, Options{NoSync: true})
		got, err := s.Versions("acme", "inc1")
		if err != nil || len(got) != len(want) {
			t.Fatalf("after compaction: %d versions (%v), want %d", len(got), err, len(want))
		}
	})

	t.Run("a backup restores the same history", func(t *testing.T) {
		restored := filepath.Join(dir, "restored.db")
		if err := os.WriteFile(restored, backup.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		s := mustOpenPath(t, restored, Options{NoSync: true})
		got, err := s.Versions("acme", "inc1")
		if err != nil || len(got) != len(want) {
			t.Fatalf("restored: %d versions (%v), want %d", len(got), err, len(want))
		}
		for i := range got {
			if got[i].Summary != want[i].Summary || !got[i].ObservedAt.Equal(want[i].ObservedAt) {
				t.Errorf("restored version %d: %q at %s, want %q at %s", i+1, got[i].Summary, got[i].ObservedAt, want[i].Summary, want[i].ObservedAt)
			}
		}
	})
}
