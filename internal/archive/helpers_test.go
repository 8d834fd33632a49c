package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// t0 is the start of every test's timeline.
var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// clock is the injected clock of the tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// testStore is a Store under test with its clock and path.
type testStore struct {
	*Store
	tb    testing.TB
	clock *clock
}

// MustOpen opens a new archive in a temp dir, without fsync, and at cleanup checks the
// file's consistency with tx.Check before closing it.
func MustOpen(tb testing.TB) *testStore {
	tb.Helper()
	c := &clock{t: t0.Add(time.Hour)}
	path := filepath.Join(tb.TempDir(), "watcher.db")
	return &testStore{Store: mustOpenPath(tb, path, Options{NoSync: true, Now: c.Now}), tb: tb, clock: c}
}

// mustOpenPath opens path with o, failing the test on error, and registers the check and
// close at cleanup.
func mustOpenPath(tb testing.TB, path string, o Options) *Store {
	tb.Helper()
	s, err := Open(path, o)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() {
		checkAndClose(tb, s)
	})
	return s
}

// checkAndClose runs bbolt's consistency check, then closes. A store the test closed
// already was checked when it was (see reopen).
func checkAndClose(tb testing.TB, s *Store) {
	tb.Helper()
	err := s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			tb.Errorf("tx.Check(%s): %v", s.path, err)
		}
		return nil
	})
	if err != nil && !errors.Is(err, berrors.ErrDatabaseNotOpen) {
		tb.Errorf("check %s: %v", s.path, err)
	}
	if err := s.Close(); err != nil {
		tb.Errorf("Close(%s): %v", s.path, err)
	}
}

// reopen checks and closes the store, then opens the same file again.
func (ts *testStore) reopen() {
	ts.tb.Helper()
	checkAndClose(ts.tb, ts.Store)
	ts.Store = mustOpenPath(ts.tb, ts.path, Options{NoSync: true, Now: ts.clock.Now})
}

// record calls Record and fails the test on error.
func (ts *testStore) record(snap *model.Snapshot, p Policy, state model.FetchState, bodies ...model.Body) Result {
	ts.tb.Helper()
	res, err := ts.Record("acme", snap, state, bodies, p)
	if err != nil {
		ts.tb.Fatalf("Record: %v", err)
	}
	return res
}

// fileState is everything an unchanged Record must leave alone.
type fileState struct {
	size  int64
	data  []byte
	txid  int
	write [7]int64 // bbolt's write-side transaction counters
}

func (ts *testStore) fileState() fileState {
	ts.tb.Helper()
	var fs fileState
	data, err := os.ReadFile(ts.path)
	if err != nil {
		ts.tb.Fatal(err)
	}
	fs.data, fs.size = data, int64(len(data))
	if err := ts.db.View(func(tx *bolt.Tx) error { fs.txid = tx.ID(); return nil }); err != nil {
		ts.tb.Fatal(err)
	}
	// Read transactions count cursors and node dereferences too, so only the counters
	// that a write moves are compared.
	st := ts.db.Stats().TxStats
	fs.write = [7]int64{st.GetPageCount(), st.GetPageAlloc(), st.GetNodeCount(), st.GetSplit(),
		st.GetSpill(), st.GetRebalance(), st.GetWrite()}
	return fs
}

// assertNoWrite fails unless the file and bbolt's counters are as in before: no write
// transaction was even started.
func (ts *testStore) assertNoWrite(before fileState) {
	ts.tb.Helper()
	after := ts.assertFileUnchanged(before)
	if after.write != before.write {
		ts.tb.Errorf("write stats: got %v, want %v", after.write, before.write)
	}
}

// assertFileUnchanged fails unless the file's bytes and transaction id are as in before:
// nothing was committed (a rolled-back write transaction still counts in bbolt's stats).
func (ts *testStore) assertFileUnchanged(before fileState) fileState {
	ts.tb.Helper()
	after := ts.fileState()
	if after.size != before.size {
		ts.tb.Errorf("file size: got %d, want %d", after.size, before.size)
	}
	if !bytes.Equal(after.data, before.data) {
		ts.tb.Errorf("file bytes changed")
	}
	if after.txid != before.txid {
		ts.tb.Errorf("txid: got %d, want %d", after.txid, before.txid)
	}
	return after
}

// assertWrites fails unless exactly n write transactions committed since before.
func (ts *testStore) assertWrites(before fileState, n int) {
	ts.tb.Helper()
	if got := ts.fileState().txid - before.txid; got != n {
		ts.tb.Errorf("write transactions: got %d, want %d", got, n)
	}
}

// messages returns every message, failing the test on error.
func (ts *testStore) messages(states ...model.MessageState) []model.Message {
	ts.tb.Helper()
	ms, err := ts.Messages(states...)
	if err != nil {
		ts.tb.Fatalf("Messages: %v", err)
	}
	return ms
}

func (ts *testStore) versions(id string) []model.Version {
	ts.tb.Helper()
	vs, err := ts.Versions("acme", id)
	if err != nil {
		ts.tb.Fatalf("Versions(%s): %v", id, err)
	}
	return vs
}

func (ts *testStore) incident(id string) IncidentInfo {
	ts.tb.Helper()
	all, err := ts.Incidents("acme")
	if err != nil {
		ts.tb.Fatalf("Incidents: %v", err)
	}
	for _, in := range all {
		if in.ID == id {
			return in
		}
	}
	ts.tb.Fatalf("incident %s not listed", id)
	return IncidentInfo{}
}

// inc builds an open incident started at t0, changed by the options.
func inc(id string, opts ...func(*model.Incident)) model.Incident {
	i := model.Incident{
		ID: id, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
		Title: "Elevated errors " + id, StartedAt: t0, Components: []string{"API"},
		Updates: []model.Update{{ID: id + "-1", Status: model.StatusInvestigating, Body: "We are investigating.",
			Format: model.FormatText, PostedAt: t0}},
	}
	for _, o := range opts {
		o(&i)
	}
	return i
}

func status(s model.Status) func(*model.Incident) {
	return func(i *model.Incident) { i.Status = s }
}

func impact(im model.Impact) func(*model.Incident) {
	return func(i *model.Incident) { i.Impact = im }
}

func started(t time.Time) func(*model.Incident) {
	return func(i *model.Incident) { i.StartedAt = t }
}

func maintenance(i *model.Incident) {
	i.Kind, i.Status, i.Impact = model.KindMaintenance, model.StatusScheduled, model.ImpactMaintenance
}

// update appends an update with the incident's status.
func update(body string) func(*model.Incident) {
	return func(i *model.Incident) {
		i.Updates = append(i.Updates, model.Update{ID: i.ID + "-" + body, Status: i.Status, Body: body,
			Format: model.FormatText, PostedAt: t0.Add(time.Duration(len(i.Updates)) * time.Minute)})
	}
}

// snap is a history snapshot fetched at t with a complete incident listing.
func snap(t time.Time, incs ...model.Incident) *model.Snapshot {
	return &model.Snapshot{Source: "acme", FetchedAt: t, Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
}

// at is the n-th poll time.
func at(n int) time.Time { return t0.Add(time.Duration(n) * 2 * time.Minute) }

// body is a fetched body with its hash.
func body(endpoint string, data []byte) model.Body {
	sum := sha256.Sum256(data)
	return model.Body{Endpoint: endpoint, Hash: hex.EncodeToString(sum[:]), Data: data}
}

// minImpact is a Policy.Pass for a min_impact filter.
func minImpact(min model.Impact) func(*model.Incident) bool {
	return func(i *model.Incident) bool { return i.Impact.AtLeast(min) }
}

func events(ms []model.Message) []string {
	var out []string
	for _, m := range ms {
		s := string(m.Event) + " " + m.IncidentID
		if m.CatchUp {
			s += " catch-up"
		}
		out = append(out, s)
	}
	return out
}
