package feed

// Kind feed polled: conditional GET, the byte-identical skip, and entries that hold only
// their latest message. The reader itself, and its fixtures, are internal/fetch/historyfeed's.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// feedFixture reads a fixture of the history-feed reader, testdata/<dir>/<name> beside it.
func feedFixture(tb testing.TB, dir, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "historyfeed", "testdata", dir, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestFeedPoll(t *testing.T) {
	const path = "/status/history.atom"
	page := fetchtest.NewFakePage()
	body := feedFixture(t, "feed", "synthetic-statuspage-history.atom")
	page.Set(path, fetchtest.Route{Body: body, ContentType: "application/atom+xml", ETag: `"f1"`, LastModified: "Wed, 25 Mar 2026 17:19:41 GMT"})
	srv := fetchtest.NewServer(t, page)
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{UserAgent: "statuswatch/test"}))
	if err != nil {
		t.Fatal(err)
	}
	// The URL is the feed itself: no trailing slash is added, nothing is resolved against it.
	src := model.Source{Name: "example", URL: srv.URL + path, Kind: Kind, Maintenance: true}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	got := page.Requests()
	if len(got) != 1 || got[0].Path != path || got[0].IfNoneMatch != "" || got[0].UserAgent != "statuswatch/test" {
		t.Fatalf("first poll: got requests %+v, want one GET of the feed", got)
	}
	s := r1.Snapshot
	if s == nil || s.OpenOnly || s.PageTitle != "Example Cloud Status" || len(s.Incidents) != 4 || len(s.Listings) != 2 || !s.FetchedAt.Equal(fetchtest.PollNow) {
		t.Fatalf("first poll: got %+v", s)
	}
	if r1.Requests != 1 || len(r1.Bodies) != 1 || r1.Bodies[0].Endpoint != fetch.EndpointFeed || r1.Bodies[0].Data == nil {
		t.Errorf("first poll: got %d requests, bodies %+v", r1.Requests, r1.Bodies)
	}
	if st := r1.State[fetch.EndpointFeed]; st.ETag != `"f1"` || st.LastModified == "" || st.Hash == "" {
		t.Errorf("first poll: got state %+v", st)
	}

	// Second poll: conditional, 304, nothing parsed.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	got = page.Requests()
	if len(got) != 1 || got[0].IfNoneMatch != `"f1"` || got[0].IfModifiedSince != "Wed, 25 Mar 2026 17:19:41 GMT" {
		t.Errorf("second poll: got requests %+v, want a conditional GET", got)
	}
	if r2.Snapshot != nil || r2.StateChanged(r1.State) || r2.Requests != 1 {
		t.Errorf("second poll: got snapshot %v, state changed %v, %d requests", r2.Snapshot, r2.StateChanged(r1.State), r2.Requests)
	}

	// A server without validators: the identical body is recognised by its hash.
	page.Set(path, fetchtest.Route{Body: body})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	// The validators are gone, but the body is the same: recognised by its hash, unparsed.
	if r3.Snapshot != nil || len(r3.Bodies) != 1 || r3.Bodies[0].Data != nil || r3.State[fetch.EndpointFeed].Hash != r1.State[fetch.EndpointFeed].Hash {
		t.Errorf("identical body: got snapshot %v, bodies %+v, want nothing parsed", r3.Snapshot, r3.Bodies)
	}

	// A changed body is parsed.
	page.Set(path, fetchtest.Route{Body: []byte(strings.Replace(string(body), "Elevated API error rates", "Elevated API errors", 1))})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r3.State, Now: fetchtest.PollNow})
	if err != nil || r4.Snapshot == nil || r4.Snapshot.Incidents[0].Title != "Elevated API errors" {
		t.Fatalf("changed body: got %v, %+v", err, r4)
	}
	page.Requests()

	// An endpoint override replaces the URL.
	page.Set("/mirror.rss", fetchtest.Route{Body: feedFixture(t, "feed", "synthetic-yandex-cloud.rss"), ContentType: "application/rss+xml"})
	src.Endpoints = map[string]string{fetch.EndpointFeed: srv.URL + "/mirror.rss"}
	r5, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil || r5.Snapshot == nil || len(r5.Snapshot.Incidents) != 2 {
		t.Fatalf("override: got %v, %+v", err, r5)
	}
	if got := page.Paths(); !slices.Equal(got, []string{"/mirror.rss"}) {
		t.Errorf("override: got requests %v", got)
	}

	// An HTML page where the feed should be is a failed poll, never an empty feed.
	page.Set(path, fetchtest.Route{Body: []byte("<!DOCTYPE html><html><body>Sign in</body></html>"), ContentType: "text/html"})
	src.Endpoints = nil
	r6, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r4.State, Now: fetchtest.PollNow})
	if !errors.Is(err, payload.ErrMalformed) || r6 == nil || r6.Requests != 1 || r6.Snapshot != nil {
		t.Errorf("html: got %v, %+v", err, r6)
	}
	for _, bad := range []string{"", "ftp://x/feed", "not a url"} {
		if _, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{Name: "x", URL: bad}, Now: fetchtest.PollNow}); err == nil {
			t.Errorf("url %q: got no error", bad)
		}
	}
}

func TestFeedOneMessageEntries(t *testing.T) {
	feed := func(updated, status, msg string) []byte {
		return []byte(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>X</title>` +
			`<entry><id>https://status.example.com/incidents/01ABC</id><link href="https://status.example.com/incidents/01ABC"/>` +
			`<title>API errors</title><published>2026-03-25T10:00:00Z</published><updated>` + updated + `</updated>` +
			`<content type="html"><![CDATA[<b>Status: ` + status + `</b><br/><br/>` + msg + `]]></content></entry></feed>`)
	}
	page := fetchtest.NewFakePage()
	page.Set("/feed.atom", fetchtest.Route{Body: feed("2026-03-25T10:05:00Z", "Investigating", "We are looking into it.")})
	srv := fetchtest.NewServer(t, page)
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	src := model.Source{Name: "x", URL: srv.URL + "/feed.atom"}
	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	first := r1.Snapshot.Incidents[0]
	if len(first.Updates) != 1 || first.Status != model.StatusInvestigating || !first.StartedAt.Equal(fetchtest.MustTime("2026-03-25T10:00:00Z")) ||
		first.Updates[0].ID != fetch.UpdateKey(first.ID, "2026-03-25T10:05:00Z", 0) {
		t.Fatalf("first: got %+v, want one update keyed by the entry's time, started when published", first)
	}

	page.Set("/feed.atom", fetchtest.Route{Body: feed("2026-03-25T11:00:00Z", "Resolved", "Fixed.")})
	archived := func(id string) *model.Incident {
		if id == first.ID {
			return &first
		}
		return nil
	}
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Archived: archived, Now: fetchtest.PollNow})
	if err != nil {
		t.Fatal(err)
	}
	second := r2.Snapshot.Incidents[0]
	want := []string{"investigating: We are looking into it.", "resolved: Fixed."}
	if got := updateBodies(second); !reflect.DeepEqual(got, want) || second.Status != model.StatusResolved ||
		!second.ResolvedAt.Equal(fetchtest.MustTime("2026-03-25T11:00:00Z")) || second.Updates[0].ID != first.Updates[0].ID {
		t.Errorf("second: got %q (%s, resolved %v), want %q", got, second.Status, second.ResolvedAt, want)
	}
}

// TestFeedContract: the contract every platform keeps.
func TestFeedContract(t *testing.T) {
	const path = "/status/history.atom"
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "x", URL: base + path} },
		Routes: map[string]fetchtest.Route{
			path: {Body: feedFixture(t, "feed", "synthetic-statuspage-history.atom"), ContentType: "application/atom+xml"},
		},
		Main: path,
	}.Run(t)
}

func updateBodies(inc model.Incident) []string {
	var out []string
	for _, u := range inc.Updates {
		out = append(out, string(u.Status)+": "+u.Body)
	}
	return out
}
