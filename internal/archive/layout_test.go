package archive

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// The archive of layout 1 committed as testdata/layout-1.db is what every later build
// must keep reading, migrations or not. Regenerate it only with layout 1 code:
//
//	go test ./internal/archive -run TestGenerateLayout1 -generate
var generate = flag.Bool("generate", false, "regenerate testdata/layout-1.db")

const layout1 = "testdata/layout-1.db"

// feedID is a provider id that is not URL-safe, so the fixture holds a hashed URL id.
const feedID = "tag:status.example.com,2005:Incident/7"

func TestGenerateLayout1(t *testing.T) {
	if !*generate {
		t.Skip("run with -generate to rewrite " + layout1)
	}
	tmp := filepath.Join(t.TempDir(), "layout-1.db")
	c := &clock{t: t0}
	s := mustOpenPath(t, tmp, Options{NoSync: true, Now: c.Now})
	ts := &testStore{Store: s, tb: t, clock: c}
	st := model.FetchState{"incidents": {ETag: `W/"abc"`, Hash: "h3"}}
	page := func(n int) model.Body { return body("incidents", []byte(`{"page":`+string(rune('0'+n))+`}`)) }
	both := func(n int, incs ...model.Incident) *model.Snapshot {
		s := snap(at(n), incs...)
		s.Listings = append(s.Listings, model.Listing{Kind: model.KindMaintenance})
		return s
	}

	i1 := inc("inc-1")
	m1 := inc("maint-1", maintenance, started(t0.Add(24*time.Hour)))
	g1 := inc("gone-1", started(t0.Add(-time.Hour)), status(model.StatusResolved))
	ts.record(both(1, i1, m1, g1), Policy{}, st, page(1))
	i1 = inc("inc-1", status(model.StatusIdentified), update("Cause found."))
	ts.record(both(2, i1, m1), Policy{}, st, page(2))
	i1 = inc("inc-1", status(model.StatusResolved), update("Cause found."), update("Resolved."))
	m1 = inc("maint-1", maintenance, started(t0.Add(24*time.Hour)), status(model.StatusCompleted))
	ts.record(both(3, i1, m1), Policy{}, st, page(3))
	if err := ts.SetThread("acme", "inc-1", "C024BE91L", "1751371200.000100"); err != nil {
		t.Fatal(err)
	}

	f := snap(at(1), inc(feedID))
	f.Source = ""
	if _, err := s.Record("feed", f, nil, nil, Policy{FirstPoll: FirstPollNone}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.RecordFailure("broken", "HTTP 503", 3); err != nil {
			t.Fatal(err)
		}
	}
	ms := ts.messages()
	for _, m := range ms[:2] {
		s.MarkSent(m.ID)
	}
	s.MarkAttempt(ms[2].ID, "channel_not_found", true)
	checkAndClose(t, s)

	// Compacted, so the committed file holds no pages freed by the transactions above.
	if err := os.Remove(layout1); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	compactFile(t, tmp, layout1)
}

// compactFile writes a compacted copy of the bbolt file from to the new file to, for the
// archives committed as testdata: no pages freed by the transactions that wrote them.
func compactFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := bolt.Open(from, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := bolt.Open(to, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bolt.Compact(dst, src, 0); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLayout1 opens a copy of the committed layout-1 archive and reads it back.
func TestLayout1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "watcher.db")
	copyFile(t, layout1, path)
	c := &clock{t: at(10)}
	ts := &testStore{Store: mustOpenPath(t, path, Options{NoSync: true, Now: c.Now}), tb: t, clock: c}

	srcs, err := ts.Sources()
	if err != nil {
		t.Fatal(err)
	}
	wantSrcs := []SourceInfo{
		{Name: "acme", Incidents: 3, FirstPoll: at(0)},
		{Name: "broken", Failures: 3, LastError: "HTTP 503", Down: true},
		{Name: "feed", Incidents: 1, FirstPoll: at(0)},
	}
	if !reflect.DeepEqual(srcs, wantSrcs) {
		t.Errorf("Sources: got %+v, want %+v", srcs, wantSrcs)
	}

	incs, err := ts.Incidents("")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		source, id string
		status     model.Status
		versions   int
		removed    bool
		announced  bool
	}
	var got []row
	for _, in := range incs {
		got = append(got, row{in.Source, in.ID, in.Latest.Status, in.Versions, in.Removed, in.Announced})
	}
	want := []row{
		{"acme", "inc-1", model.StatusResolved, 3, false, true},
		{"acme", "maint-1", model.StatusCompleted, 2, false, true},
		{"acme", "gone-1", model.StatusResolved, 1, true, false},
		{"feed", model.URLID(feedID), model.StatusInvestigating, 1, false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Incidents: got %+v, want %+v", got, want)
	}

	vs, err := ts.Versions("acme", "inc-1")
	if err != nil {
		t.Fatal(err)
	}
	var statuses []model.Status
	for i, v := range vs {
		statuses = append(statuses, v.Incident.Status)
		if v.N != i+1 || !v.ObservedAt.Equal(at(i+1)) || len(v.Changes) == 0 || v.Summary == "" || v.Snapshot != layout.SnapshotName(at(i+1)) {
			t.Errorf("version %d: got N=%d at %v, %d changes, summary %q, snapshot %q", i+1, v.N, v.ObservedAt, len(v.Changes), v.Summary, v.Snapshot)
		}
	}
	if want := []model.Status{model.StatusInvestigating, model.StatusIdentified, model.StatusResolved}; !slices.Equal(statuses, want) {
		t.Errorf("inc-1 statuses: got %v, want %v", statuses, want)
	}
	if v, err := ts.Version("acme", "inc-1", 3); err != nil || len(v.Incident.Updates) != 3 || v.Incident.Updates[2].Body != "Resolved." {
		t.Errorf("Version 3: got %+v, %v", v, err)
	}
	if fetched, bodies, err := ts.SnapshotAt("acme", at(2).Add(time.Second)); err != nil || !fetched.Equal(at(2)) ||
		len(bodies) != 1 || string(bodies[0].Data) != `{"page":2}` {
		t.Errorf("SnapshotAt: got %v, %+v, %v", fetched, bodies, err)
	}
	if ch, thr, err := ts.Thread("acme", "inc-1"); ch != "C024BE91L" || thr != "1751371200.000100" || err != nil {
		t.Errorf("Thread: got %q, %q, %v", ch, thr, err)
	}
	if st, _ := ts.FetchState("acme"); st["incidents"].ETag != `W/"abc"` {
		t.Errorf("FetchState: got %v", st)
	}
	var states []model.MessageState
	for _, m := range ts.messages() {
		states = append(states, m.State)
	}
	// new inc-1, new maint-1, changed inc-1, resolved inc-1, resolved maint-1, source_down.
	if want := []model.MessageState{model.MessageSent, model.MessageSent, model.MessageParked,
		model.MessagePending, model.MessagePending, model.MessagePending}; !slices.Equal(states, want) {
		t.Errorf("message states: got %v, want %v", states, want)
	}

	// And it takes new versions.
	i1 := inc("inc-1", status(model.StatusPostmortem), update("Cause found."), update("Resolved."))
	s := snap(at(11), i1)
	if res, err := ts.Record("acme", s, nil, nil, Policy{}); err != nil || res.Changed != 1 {
		t.Errorf("Record on layout 1: got %+v, %v", res, err)
	}
	// The outbox sequence survived (compaction keeps it): ids are never reused.
	if ms := ts.messages(); ms[len(ms)-1].ID != 7 {
		t.Errorf("next message id: got %d, want 7", ms[len(ms)-1].ID)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
