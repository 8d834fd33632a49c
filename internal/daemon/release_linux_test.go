package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// rssFile is this process's resident file-backed memory, in KiB.
func rssFile(t *testing.T) int {
	t.Helper()
	return int(testbin.ProcStatus(t, os.Getpid(), "RssFile") >> 10)
}

// TestPollerStateReadsReleasePages: every releaseStateReadsEvery-th poll that reads its
// state from the archive lets go of the archive pages mapped since the last release (each
// source's first poll maps its own, ~60 KB at 10,000 sources), and the polls in between
// leave them mapped.
func TestPollerStateReadsReleasePages(t *testing.T) {
	testbin.RequireMappedRssFile(t, t.TempDir())
	e := newBenchEnv(t, true, false)
	ctx := context.Background()
	poll := func() {
		t.Helper()
		e.poller.states.take(e.src.Name) // as a source's first poll: its state read from the archive
		if _, err := e.poller.Poll(ctx, e.src); err != nil {
			t.Fatal(err)
		}
	}
	for e.poller.stateReads.Load()%releaseStateReadsEvery != 0 {
		poll()
	}

	// Other sources' raw bodies, which do not compress: pages to map and let go of.
	rnd := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for i := range 32 {
		raw := make([]byte, 64<<10)
		for j := range raw {
			raw[j] = byte(rnd.Uint32())
		}
		sum := sha256.Sum256(raw)
		name := fmt.Sprintf("filler%02d", i)
		body := model.Body{Endpoint: "incidents", Hash: hex.EncodeToString(sum[:]), Data: raw}
		if _, err := e.store.Record(name, &model.Snapshot{Source: name, FetchedAt: at, Listings: []model.Listing{{Kind: model.KindIncident}},
			Incidents: []model.Incident{{ID: "i1", Kind: model.KindIncident, Status: model.StatusInvestigating, Title: "Errors", StartedAt: at,
				Updates: []model.Update{{ID: "u1", Status: model.StatusInvestigating, Body: "Investigating.", Format: model.FormatText, PostedAt: at}}}}}, nil, []model.Body{body}, archive.Policy{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.ReleasePages(); err != nil {
		t.Fatal(err)
	}
	before := rssFile(t)
	for i := range 32 { // maps the bodies' pages
		if _, _, err := e.store.SnapshotAt(fmt.Sprintf("filler%02d", i), at); err != nil {
			t.Fatal(err)
		}
	}
	mapped := rssFile(t) - before
	if mapped < 1<<10 {
		t.Fatalf("reading the archive mapped only %d KiB: the release before it left the pages mapped?", mapped)
	}
	for range releaseStateReadsEvery - 1 {
		poll()
	}
	if left := rssFile(t) - before; left < mapped/2 {
		t.Fatalf("%d polls that read their state released the pages (%d of %d KiB left); want a release every %d", releaseStateReadsEvery-1, left, mapped, releaseStateReadsEvery)
	}
	poll()
	if left := rssFile(t) - before; left > mapped/2 {
		t.Errorf("after %d polls that read their state %d of the %d KiB mapped are still resident", releaseStateReadsEvery, left, mapped)
	}
}
