package archive

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// stalledWriter takes its first write, then blocks every later one until release is
// closed: a client that stopped reading a download.
type stalledWriter struct {
	buf     bytes.Buffer
	started chan struct{}
	release chan struct{}
}

func (w *stalledWriter) Write(p []byte) (int, error) {
	if w.buf.Len() == 0 {
		close(w.started)
	} else {
		<-w.release
	}
	return w.buf.Write(p)
}

// TestBackupDoesNotHoldTheArchive: while a backup's reader is stalled, the archive
// grows by many times its size (bbolt remaps the file) and every write goes through;
// the backup, once read, is the archive as it was when the backup began.
func TestBackupDoesNotHoldTheArchive(t *testing.T) {
	ts := MustOpen(t)
	ts.record(snap(at(1), inc("a1")), all, nil, body("incidents", []byte("first")))
	w := &stalledWriter{started: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := ts.Backup(w)
		done <- err
	}()
	<-w.started

	wrote := make(chan error, 1)
	go func() {
		r := rand.New(rand.NewPCG(3, 4))
		for i := 2; i <= 9; i++ {
			data := make([]byte, 2<<20) // incompressible: the file grows by as much
			for j := range data {
				data[j] = byte(r.Uint32())
			}
			if _, err := ts.Record("acme", snap(at(i), inc("a1", update(fmt.Sprint(i)))), nil,
				[]model.Body{body("incidents", data)}, all); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()
	// A guard against hanging, not a measurement: the writes take well under a second.
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatalf("Record during the backup: %v", err)
		}
	case <-time.After(30 * time.Second):
		close(w.release)
		t.Fatal("writes blocked while a backup's reader stalled")
	}
	close(w.release)
	if err := <-done; err != nil {
		t.Fatalf("Backup: %v", err)
	}

	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, w.buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b := mustOpenPath(t, path, Options{ReadOnly: true})
	if n, err := b.VersionCount("acme", "a1"); err != nil || n != 1 {
		t.Errorf("backup: got %d versions, %v; want the 1 of when it began", n, err)
	}
	if n, _ := ts.VersionCount("acme", "a1"); n != 9 {
		t.Errorf("archive: got %d versions, want 9", n)
	}
	// No temporary file is left beside the archive.
	if ents, _ := os.ReadDir(filepath.Dir(ts.Path())); len(ents) != 1 {
		t.Errorf("files beside the archive: got %d, want 1", len(ents))
	}
}
