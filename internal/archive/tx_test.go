package archive

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// TestHealth: Health reports a write that failed as storage until one commits, and a
// write stuck longer than the bound; a write its own function refused says nothing of
// the storage, and Health itself never writes.
func TestHealth(t *testing.T) {
	ts := MustOpen(t)
	if err := ts.Health(time.Minute); err != nil {
		t.Errorf("fresh archive: got %v, want healthy", err)
	}
	ts.record(snap(at(1), inc("a1")), all, nil)

	// A full disk, as bbolt sees one: the file may not grow.
	ts.db.MaxSize = 1
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	_, err := ts.Record("acme", snap(at(2), inc("a1", update("x"))), nil, []model.Body{body("incidents", data)}, all)
	if !errors.Is(err, ErrStorage) {
		t.Fatalf("Record on a full disk: got %v, want ErrStorage", err)
	}
	if err := ts.Health(time.Minute); err == nil || !strings.Contains(err.Error(), "last archive access failed") {
		t.Errorf("after a failed write: got %v, want unhealthy", err)
	}
	ts.db.MaxSize = 0

	refused := errors.New("refused")
	if err := ts.update(func(*bolt.Tx) error { return refused }); !errors.Is(err, refused) || errors.Is(err, ErrStorage) {
		t.Errorf("refused write: got %v, want the function's own error", err)
	}
	if err := ts.Health(time.Minute); err == nil {
		t.Error("a refused write cleared the failure")
	}
	ts.record(snap(at(3), inc("a1", update("y"))), all, nil)
	if err := ts.Health(time.Minute); err != nil {
		t.Errorf("after a write committed: got %v, want healthy", err)
	}

	// A write that does not finish.
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- ts.update(func(*bolt.Tx) error { close(started); <-release; return nil })
	}()
	<-started
	time.Sleep(2 * time.Millisecond) // so that its age exceeds the bound below
	if err := ts.Health(time.Millisecond); err == nil || !strings.Contains(err.Error(), "has not finished") {
		t.Errorf("stuck write: got %v, want unhealthy", err)
	}
	if err := ts.Health(time.Hour); err != nil {
		t.Errorf("stuck write within the bound: got %v, want healthy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	before := ts.fileState()
	for range 3 {
		if err := ts.Health(time.Millisecond); err != nil {
			t.Errorf("after the write: got %v, want healthy", err)
		}
	}
	ts.assertNoWrite(before)
}
