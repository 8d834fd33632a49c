package web

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// TestHealthzReportsTheArchive: /healthz turns 503 once an archive write fails as
// storage (here: the archive is closed, so no transaction starts), naming the archive.
func TestHealthzReportsTheArchive(t *testing.T) {
	e := newEnv(t).seed()
	e.get("/healthz", http.StatusOK)
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	snap := &model.Snapshot{Source: "acme", FetchedAt: t0.Add(time.Hour), Incidents: []model.Incident{incB}}
	if _, err := e.store.Record("acme", snap, nil, nil, archive.Policy{}); !errors.Is(err, archive.ErrStorage) {
		t.Fatalf("Record on a closed archive: got %v, want ErrStorage", err)
	}
	r := e.get("/healthz", http.StatusServiceUnavailable)
	if got := string(r.body); !strings.HasPrefix(got, "unhealthy: last archive access failed") {
		t.Errorf("body: got %q", got)
	}
}
