package aws

// AWS adapter tests over HTTP: polling the fake page, endpoint overrides, malformed
// payloads, the fuzzer and the platform contract. Builders and payload helpers are in
// aws_test.go.

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

func awsPage(t *testing.T) (*fetchtest.FakePage, string) {
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	page.Set("/rss/all.rss", fetchtest.Route{Body: fetchtest.Testdata(t, "aws", awsRSSFile), ETag: `"r1"`, ContentType: "application/rss+xml"})
	page.Set("/public/currentevents", fetchtest.Route{Body: fetchtest.Testdata(t, "aws", awsCEFile), ETag: `"c1"`})
	return page, srv.URL
}

func TestAWSPoll(t *testing.T) {
	page, u := awsPage(t)
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	src := model.Source{Name: "aws", URL: u, Kind: Kind}
	poll := func(st model.FetchState) *fetch.Result {
		t.Helper()
		r, err := p.Poll(context.Background(), fetch.Request{Source: src, State: st, Now: fetchtest.PollNow})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	r1 := poll(nil)
	got := page.Requests()
	if len(got) != 2 || got[0].Path != "/rss/all.rss" || got[1].Path != "/public/currentevents" || got[0].IfNoneMatch != "" {
		t.Fatalf("poll 1 requests %+v", got)
	}
	if r1.Snapshot == nil || len(r1.Snapshot.Incidents) != 3 || r1.Snapshot.OpenOnly || r1.Snapshot.PageTitle != "Amazon Web Services Service Status" {
		t.Fatalf("poll 1 snapshot %+v", r1.Snapshot)
	}
	if r1.Requests != 2 || len(r1.Bodies) != 2 || r1.Bodies[0].Data == nil || r1.Bodies[1].Data == nil {
		t.Errorf("poll 1: %d requests, bodies %d", r1.Requests, len(r1.Bodies))
	}
	if len(r1.State["episodes/directconnect-eu-central-1"].Episodes) == 0 || r1.State[EndpointRSS].ETag != `"r1"` {
		t.Errorf("poll 1 state %v", r1.State)
	}

	// Both 304: two conditional requests, nothing parsed, nothing to write.
	r2 := poll(r1.State)
	got = page.Requests()
	if len(got) != 2 || got[0].IfNoneMatch != `"r1"` || got[1].IfNoneMatch != `"c1"` {
		t.Fatalf("poll 2 requests %+v", got)
	}
	if r2.Snapshot != nil || r2.Requests != 2 || r2.StateChanged(r1.State) {
		t.Errorf("poll 2: snapshot %v, %d requests, state changed %v", r2.Snapshot, r2.Requests, r2.StateChanged(r1.State))
	}

	// The feed changes, currentevents does not: it is read again without validators,
	// so the snapshot is built from both.
	rss := awsRSSBody(awsItem{"ec2-us-east-1", 1787200000, "Service disruption: Launch errors", "Investigating."})
	page.Set("/rss/all.rss", fetchtest.Route{Body: rss, ETag: `"r2"`})
	r3 := poll(r2.State)
	got = page.Requests()
	if len(got) != 3 || got[0].Path != "/rss/all.rss" || got[1].Path != "/public/currentevents" || got[1].IfNoneMatch != `"c1"` ||
		got[2].Path != "/public/currentevents" || got[2].IfNoneMatch != "" || got[2].IfModifiedSince != "" {
		t.Fatalf("poll 3 requests %+v", got)
	}
	if r3.Snapshot == nil || r3.Requests != 3 {
		t.Fatalf("poll 3: %+v", r3)
	}
	ids := awsByID(r3.Snapshot.Incidents)
	if _, ok := ids["ec2-us-east-1_1787200000"]; !ok || len(ids) != 3 {
		t.Errorf("poll 3 incidents %v: want the EC2 one and the two open events", ids)
	}
	if len(r3.Bodies) != 2 {
		t.Fatalf("poll 3 bodies %+v", r3.Bodies)
	}
	// Both bodies are evidence of the snapshot; currentevents' is the one already archived
	// (same hash: the archive keeps it once).
	for _, b := range r3.Bodies {
		if b.Data == nil || b.Hash != r3.State[b.Endpoint].Hash ||
			(b.Endpoint == EndpointCurrentEvents) != (b.Hash == r1.State[EndpointCurrentEvents].Hash) {
			t.Errorf("poll 3 body %s: %d bytes, hash %s", b.Endpoint, len(b.Data), b.Hash)
		}
	}
	if _, ok := r3.State["episodes/directconnect-eu-central-1"]; ok {
		t.Errorf("poll 3 still remembers a service gone from both endpoints")
	}

	// Same bytes again without validators: recognised by hash, not parsed.
	page.Set("/rss/all.rss", fetchtest.Route{Body: rss})
	page.Set("/public/currentevents", fetchtest.Route{Body: fetchtest.Testdata(t, "aws", awsCEFile)})
	r4 := poll(r3.State)
	if r4.Snapshot != nil || r4.Requests != 2 || len(page.Requests()) != 2 {
		t.Errorf("poll 4: snapshot %v, %d requests", r4.Snapshot, r4.Requests)
	}
}

func TestAWSEndpoints(t *testing.T) {
	for _, tc := range []struct {
		src     model.Source
		rss, ce string
	}{
		{model.Source{URL: "https://health.aws.amazon.com/health/status"},
			"https://status.aws.amazon.com/rss/all.rss", "https://health.aws.amazon.com/public/currentevents"},
		{model.Source{URL: "https://status.aws.amazon.com"},
			"https://status.aws.amazon.com/rss/all.rss", "https://health.aws.amazon.com/public/currentevents"},
		{model.Source{URL: "http://mirror.example/aws"},
			"http://mirror.example/aws/rss/all.rss", "http://mirror.example/aws/public/currentevents"},
		{model.Source{URL: "https://health.aws.amazon.com/health/status", Endpoints: map[string]string{
			EndpointCurrentEvents: "http://proxy.example/ce", EndpointRSS: "http://proxy.example/rss"}},
			"http://proxy.example/rss", "http://proxy.example/ce"},
	} {
		rss, ce, err := awsEndpoints(tc.src)
		if err != nil || rss != tc.rss || ce != tc.ce {
			t.Errorf("%s %v: got %q %q %v", tc.src.URL, tc.src.Endpoints, rss, ce, err)
		}
	}

	// currentevents on another host, through Source.Endpoints.
	page, u := awsPage(t)
	other := fetchtest.NewFakePage()
	osrv := fetchtest.NewServer(t, other)
	other.Set("/public/currentevents", fetchtest.Route{Body: awsCEBody(t)})
	p, _ := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	src := model.Source{Name: "aws", URL: u, Endpoints: map[string]string{EndpointCurrentEvents: osrv.URL + "/public/currentevents"}}
	r, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: fetchtest.PollNow})
	if err != nil || r.Snapshot == nil || len(r.Snapshot.Incidents) != 3 {
		t.Fatalf("override: %v %+v", err, r)
	}
	if a, b := page.Paths(), other.Paths(); !slices.Equal(a, []string{"/rss/all.rss"}) || !slices.Equal(b, []string{"/public/currentevents"}) {
		t.Errorf("override: page got %v, other host got %v", a, b)
	}
}

func TestAWSMalformed(t *testing.T) {
	rss := fetchtest.Testdata(t, "aws", awsRSSFile)
	ce := fetchtest.Testdata(t, "aws", awsCEFile)
	html := []byte("<!DOCTYPE html><html><head><title>AWS Health Dashboard</title></head><body></body></html>")
	for _, tc := range []struct {
		name    string
		rss, ce []byte
	}{
		{"rss html", html, ce},
		{"rss empty", []byte{}, ce},
		{"rss truncated", rss[:len(rss)/2], ce},
		{"rss truncated end", rss[:len(rss)-20], ce},
		{"rss json", []byte(`{"version":"https://jsonfeed.org/version/1","items":[]}`), ce},
		{"rss item without guid", []byte(`<rss version="2.0"><channel><title>x</title><item><title>Service impact: x</title></item></channel></rss>`), ce},
		{"ce html", rss, html},
		{"ce html utf-16", rss, utf16BOM(string(html), true)},
		{"ce empty", rss, []byte{}},
		{"ce truncated", rss, ce[:len(ce)/2]},
		{"ce object", rss, utf16BOM(`{"current":[]}`, true)},
		{"ce event without service", rss, utf16BOM(`[{"date":"1"}]`, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := fetchtest.NewFakePage()
			srv := fetchtest.NewServer(t, page)
			page.Set("/rss/all.rss", fetchtest.Route{Body: tc.rss})
			page.Set("/public/currentevents", fetchtest.Route{Body: tc.ce})
			p, _ := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
			r, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{Name: "aws", URL: srv.URL}, Now: fetchtest.PollNow})
			if !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
			if r == nil || r.Snapshot != nil || r.Requests != 2 {
				t.Errorf("got result %+v, want no snapshot after 2 requests", r)
			}
		})
	}
	// A failing endpoint fails the poll.
	page := fetchtest.NewFakePage()
	srv := fetchtest.NewServer(t, page)
	page.Set("/rss/all.rss", fetchtest.Route{Body: rss})
	page.Set("/public/currentevents", fetchtest.Route{Status: http.StatusForbidden, Body: []byte("no")})
	p, _ := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{}))
	if _, err := p.Poll(context.Background(), fetch.Request{Source: model.Source{Name: "aws", URL: srv.URL}, Now: fetchtest.PollNow}); err == nil {
		t.Error("403 on currentevents: no error")
	}
	// An empty feed and no open event are well-formed; the listing then covers nothing
	// already archived.
	empty := awsRSSBody()
	incs, listing, _ := awsBuildFrom(t, empty, awsCEBody(t), nil, nil)
	if len(incs) != 0 || !listing.Since.Equal(fetchtest.PollNow) {
		t.Errorf("empty: %d incidents, listing %+v", len(incs), listing)
	}
}

// ---- The absence rule (open-only lists): an event that leaves currentevents
// without a resolution post ----

// fuzzEpisodes is the memo FuzzAWS combines with: one episode of each kind, and one
// that awsMemoFrom skips.
var fuzzEpisodes = []model.Episode{{Start: 1, Last: 9, Open: true}, {Start: 3, Last: 2}, {Start: 4, Last: 6, Open: true, Listed: true},
	{Start: 7, Last: 8, Open: true, Missed: 9}, {Start: 10, Last: 11, Inferred: 12}}

func FuzzAWS(f *testing.F) {
	rss := fetchtest.Testdata(f, "aws", awsRSSFile)
	ce := fetchtest.Testdata(f, "aws", awsCEFile)
	f.Add(rss, ce)
	f.Add(awsRSSBody(awsItem{"x", 5, "Service disruption: a", "b\n\nc"}), utf16BOM(`[{"date":"1","service":"x","event_log":[{"timestamp":"5","status":"0"}],"impacted_services":{"y":1}}]`, false))
	f.Add([]byte(`<rss version="2.0"><channel><title>t</title></channel></rss>`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, rssData, ceData []byte) {
		feed, err1 := decodeAWSRSS(rssData)
		events, err2 := decodeAWSCurrentEvents("application/json", ceData)
		for _, err := range []error{err1, err2} {
			if err != nil && !errors.Is(err, payload.ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
		}
		if err1 != nil || err2 != nil {
			return
		}
		b := awsBuild{feed: feed, events: events, memo: awsMemoFrom(model.FetchState{"episodes/x": {Episodes: fuzzEpisodes}}), pageURL: "https://p", now: fetchtest.PollNow}
		incs, _, memo := b.run()
		for _, inc := range incs {
			fetchtest.CheckIncident(t, inc)
		}
		// What is remembered reads back the same.
		st := memo.state()
		if again := awsMemoFrom(st).state(); !st.Equal(again) {
			t.Fatalf("memo %v read back as %v", st, again)
		}
	})
}

// TestAWSContract: the contract every platform keeps.
func TestAWSContract(t *testing.T) {
	fetchtest.Contract{
		Kind: Kind,
		Source: func(base string) model.Source {
			return model.Source{Name: "aws", URL: base, Endpoints: map[string]string{
				EndpointRSS: base + "/rss/all.rss", EndpointCurrentEvents: base + "/public/currentevents"}}
		},
		Routes: map[string]fetchtest.Route{
			"/rss/all.rss":          {Body: fetchtest.Testdata(t, "aws", awsRSSFile), ContentType: "application/rss+xml"},
			"/public/currentevents": {Body: awsCEBody(t)},
		},
		Main: "/public/currentevents",
	}.Run(t)
}
