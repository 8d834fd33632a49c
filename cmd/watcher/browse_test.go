package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web"
)

// TestAPIDiffCaptionsUpdates: through the daemon's API, the printed change set still
// says which update a change is (the updates come from the two versions).
func TestAPIDiffCaptionsUpdates(t *testing.T) {
	answers := map[string]string{
		"/api/v1/incidents/acme/i1/diff":       `{"from":1,"to":2,"summary":"1 update edited.","changes":[{"field":"updates[u1].body","before":"a","after":"b"}]}`,
		"/api/v1/incidents/acme/i1/versions/2": `{"updates":[{"id":"u1","status":"identified","posted_at":"2026-07-01T17:39:00Z"}]}`,
		"/api/v1/incidents/acme/i1/versions/1": `{"updates":[{"id":"u1","status":"identified","posted_at":"2026-07-01T17:39:00Z"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	a := &apiClient{base: srv.URL, hc: srv.Client()}
	cs, err := a.Diff(context.Background(), "acme", "i1", -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	got := diff.Terminal(cs.Changes, diff.Plain, cs.incs...)
	if want := "updates[u1].body (Identified · 2026-07-01 17:39 UTC):"; !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to contain %q", got, want)
	}
}

// TestAPIReaderMatchesArchive: what the browse commands read through the daemon's API
// (the web server's answers, decoded with the shared API types) is what they read from
// the archive file itself.
func TestAPIReaderMatchesArchive(t *testing.T) {
	st, err := archive.Open(filepath.Join(t.TempDir(), "a.db"), archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := func(h int) time.Time { return time.Date(2026, 7, 1, h, 0, 0, 0, time.UTC) }
	inc := func(id, title string, status model.Status, started time.Time, updates ...string) model.Incident {
		in := model.Incident{ID: id, Kind: model.KindIncident, Title: title, Status: status, Impact: model.ImpactMinor, StartedAt: started}
		for i, b := range updates {
			in.Updates = append(in.Updates, model.Update{ID: id + "-u" + string(rune('1'+i)), Status: status, Body: b, Format: model.FormatText, PostedAt: started.Add(time.Duration(i+1) * time.Minute)})
		}
		return in
	}
	record := func(h int, incs ...model.Incident) {
		snap := &model.Snapshot{Source: "acme", FetchedAt: at(h), Listings: []model.Listing{{Kind: model.KindIncident}}, Incidents: incs}
		if _, err := st.Record("acme", snap, nil, nil, archive.Policy{}); err != nil {
			t.Fatal(err)
		}
	}
	record(10, inc("i1", "API errors", model.StatusInvestigating, at(9), "Looking."), inc("i2", "Old", model.StatusResolved, at(5), "Done."))
	record(11, inc("i1", "API errors in EU", model.StatusIdentified, at(9), "Looking.", "Found it."), inc("i2", "Old", model.StatusResolved, at(5), "Done."))

	srv := httptest.NewServer(web.New(web.Options{Store: st}).Handler())
	defer srv.Close()
	remote, local := &apiClient{base: srv.URL, hc: srv.Client()}, localReader{st}
	ctx := context.Background()

	for _, open := range []bool{false, true} {
		got, err := remote.Incidents(ctx, "", open)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := local.Incidents(ctx, "", open)
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("incidents open=%v: got %+v, want %+v", open, got, want)
		}
	}
	for _, q := range []string{"looking", "api eu", "done"} {
		got, err := remote.Search(ctx, q, "", false)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := local.Search(ctx, q, "", false)
		if len(want) != 1 || want[0].Matched == nil || !reflect.DeepEqual(got, want) {
			t.Errorf("search %q: got %+v, want %+v", q, got, want)
		}
	}
	got, err := remote.Versions(ctx, "acme", "i1")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := local.Versions(ctx, "acme", "i1"); len(want) != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("versions: got %+v, want %+v", got, want)
	}
	for _, c := range []struct{ from, to int }{{-1, -1}, {0, 2}, {2, 1}} {
		got, err := remote.Diff(ctx, "acme", "i1", c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := local.Diff(ctx, "acme", "i1", c.from, c.to)
		// The API answers [] for no ops where the archive reader has nil: the same change.
		gotJSON, _ := json.Marshal(got.Changes)
		wantJSON, _ := json.Marshal(want.Changes)
		if got.From != want.From || got.To != want.To || got.Summary != want.Summary || string(gotJSON) != string(wantJSON) {
			t.Errorf("diff %d→%d: got %d→%d %q %s, want %d→%d %q %s", c.from, c.to, got.From, got.To, got.Summary, gotJSON, want.From, want.To, want.Summary, wantJSON)
		}
		gotText, wantText := diff.Terminal(got.Changes, diff.Plain, got.incs...), diff.Terminal(want.Changes, diff.Plain, want.incs...)
		if gotText != wantText {
			t.Errorf("diff %d→%d printed: got\n%s\nwant\n%s", c.from, c.to, gotText, wantText)
		}
	}
}
