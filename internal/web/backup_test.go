package web

import (
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/archive"
)

func TestBackup(t *testing.T) {
	e := newEnv(t).seed()
	r := e.get("/api/v1/backup", http.StatusOK)
	if got := r.header.Get("Content-Type"); got != "application/octet-stream" {
		t.Errorf("Content-Type: got %q", got)
	}
	if got := r.header.Get("Content-Disposition"); !strings.HasPrefix(got, "attachment;") || !strings.Contains(got, `filename="watcher-20260701T140000Z.db"`) {
		t.Errorf("Content-Disposition: got %q", got)
	}

	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, r.body, 0o600); err != nil {
		t.Fatal(err)
	}
	copyStore, err := archive.Open(path, archive.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open the backup: %v", err)
	}
	defer copyStore.Close()
	want, err := e.store.Incidents("")
	if err != nil {
		t.Fatal(err)
	}
	got, err := copyStore.Incidents("")
	if err != nil {
		t.Fatalf("read the backup: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("incidents of the backup: got %+v, want %+v", got, want)
	}
	if len(got) != 4 {
		t.Errorf("got %d incidents, want 4", len(got))
	}
	vs, err := copyStore.Versions("acme", "inc-a")
	if err != nil || len(vs) != 3 {
		t.Errorf("versions of inc-a in the backup: got %d, %v; want 3", len(vs), err)
	}
}

func TestBackupOfAClosedArchive(t *testing.T) {
	e := newEnv(t).seed()
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.get("/api/v1/backup", http.StatusInternalServerError)
	if r.header.Get("Content-Disposition") != "" {
		t.Errorf("an error answer is offered as a download")
	}
	if got := errorOf(t, r); strings.Contains(got, e.store.Path()) {
		t.Errorf("error %q shows the archive's path", got)
	}
	if logs := e.logs.String(); !strings.Contains(logs, "archive read failed") {
		t.Errorf("the failure was not logged: %s", logs)
	}
}
