package betterstack

// The Better Stack adapter against testdata/betterstack/huggingface-index-2026-07-19.json,
// the real status.huggingface.co /index.json, copied byte for byte from
// the real captures of testdata/betterstack (provenance in testdata/SOURCES.md). The small documents
// built in these tests follow the shape of that payload and of Better Stack's documentation
// (https://betterstack.com/docs/uptime/status-pages/subscribing-to-status-updates/subscribing-to-api/).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

var hfBase, _ = url.Parse("https://status.huggingface.co/")

// hfCaptured is when the real payload was captured (its recorder's file name).
var hfCaptured = time.Date(2026, 7, 19, 10, 42, 50, 0, time.UTC)

func decodeBetterStackFixture(t *testing.T, body []byte, now time.Time) (*bsPage, []model.Incident, []model.Listing) {
	t.Helper()
	page, err := decodeBetterStack("application/json; charset=utf-8", body)
	if err != nil {
		t.Fatal(err)
	}
	incs, listings := page.normalise(hfBase, now)
	fetchtest.CheckIncidents(t, incs)
	return page, incs, listings
}

func TestBetterStackRealPayload(t *testing.T) {
	page, incs, listings := decodeBetterStackFixture(t, fetchtest.Testdata(t, "betterstack", "huggingface-index-2026-07-19.json"), hfCaptured)
	if page.title != "Hugging Face" {
		t.Errorf("got title %q, want Hugging Face", page.title)
	}
	since := fetchtest.MustTime("2026-06-10T07:00:00Z")
	if want := []model.Listing{{Kind: model.KindIncident, Since: since}, {Kind: model.KindMaintenance, Since: since}}; !reflect.DeepEqual(listings, want) {
		t.Errorf("got listings %+v, want %+v", listings, want)
	}
	type upd struct {
		id     string
		status model.Status
		posted string
	}
	want := []struct {
		id, title        string
		kind             model.Kind
		status           model.Status
		statusRaw        string
		impact           model.Impact
		impactRaw        string
		components       []string
		started          string
		resolved         string
		schedFor, schedU string
		updates          []upd
	}{
		{"919822", "Data serving slowness in Asia region", model.KindIncident, model.StatusResolved, "resolved", model.ImpactMinor, "degraded",
			[]string{"AWS CDN"}, "2026-06-10T07:00:00Z", "2026-06-10T10:50:00Z", "", "",
			[]upd{{"5218738", model.StatusInvestigating, "2026-06-10T07:00:00Z"}, {"5218754", model.StatusResolved, "2026-06-10T10:50:00Z"}}},
		{"939240", "Elevated error rate – AWS CDN (Singapore)", model.KindIncident, model.StatusResolved, "resolved", model.ImpactMinor, "degraded",
			[]string{"AWS CDN"}, "2026-06-30T07:58:00Z", "2026-06-30T08:05:00Z", "", "",
			[]upd{{"5311579", model.StatusInvestigating, "2026-06-30T07:58:00Z"}, {"5311580", model.StatusResolved, "2026-06-30T08:05:00Z"}}},
		{"946090", "Scheduled maintenance: Jobs", model.KindMaintenance, model.StatusCompleted, "resolved", model.ImpactMaintenance, "",
			[]string{"Jobs"}, "2026-07-08T07:00:36Z", "2026-07-08T08:00:36Z", "2026-07-08T07:00:36Z", "2026-07-08T08:00:36Z",
			[]upd{{"5344796", "", "2026-07-08T07:00:36Z"}, {"5349303", "", "2026-07-08T08:00:36Z"}}},
		// Its updates are listed last first on the page; they come out oldest first.
		{"965809", "Hub unavailable", model.KindIncident, model.StatusResolved, "resolved", model.ImpactMajor, "downtime",
			[]string{"Git Hosting and Serving", "Huggingface Hub", "Inference Endpoints UI"}, "2026-07-16T08:30:00Z", "2026-07-16T10:07:00Z", "", "",
			[]upd{{"5410504", model.StatusInvestigating, "2026-07-16T08:30:00Z"}, {"5410587", model.StatusInvestigating, "2026-07-16T08:43:00Z"}, {"5410962", model.StatusResolved, "2026-07-16T10:07:00Z"}}},
		// Announced on the 19th for the 22nd: scheduled at capture time.
		{"961899", "Scheduled maintenance: Inference Endpoints", model.KindMaintenance, model.StatusScheduled, "maintenance", model.ImpactMaintenance, "",
			[]string{"Inference Endpoints API", "Inference Endpoints UI"}, "2026-07-22T07:00:00Z", "", "2026-07-22T07:00:00Z", "2026-07-22T08:00:00Z",
			[]upd{{"5394127", "", "2026-07-22T07:00:00Z"}}},
	}
	if len(incs) != len(want) {
		t.Fatalf("got %d incidents, want %d", len(incs), len(want))
	}
	opt := func(s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		return fetchtest.MustTime(s)
	}
	for i, w := range want {
		got := incs[i]
		t.Run(w.id, func(t *testing.T) {
			if got.ID != w.id || got.Title != w.title || got.Kind != w.kind {
				t.Errorf("got %s %q %s, want %s %q %s", got.ID, got.Title, got.Kind, w.id, w.title, w.kind)
			}
			if got.Status != w.status || got.StatusRaw != w.statusRaw || got.Impact != w.impact || got.ImpactRaw != w.impactRaw {
				t.Errorf("got status %s (%s) impact %s (%s), want %s (%s) %s (%s)", got.Status, got.StatusRaw, got.Impact, got.ImpactRaw, w.status, w.statusRaw, w.impact, w.impactRaw)
			}
			if !reflect.DeepEqual(got.Components, w.components) {
				t.Errorf("got components %q, want %q", got.Components, w.components)
			}
			if !got.StartedAt.Equal(opt(w.started)) || !got.ResolvedAt.Equal(opt(w.resolved)) ||
				!got.ScheduledFor.Equal(opt(w.schedFor)) || !got.ScheduledUntil.Equal(opt(w.schedU)) {
				t.Errorf("got started %v resolved %v scheduled %v–%v, want %s %s %s–%s", got.StartedAt, got.ResolvedAt, got.ScheduledFor, got.ScheduledUntil, w.started, w.resolved, w.schedFor, w.schedU)
			}
			if got.URL != "https://status.huggingface.co/incident/"+w.id {
				t.Errorf("got URL %q", got.URL)
			}
			var gotU []upd
			for _, u := range got.Updates {
				gotU = append(gotU, upd{u.ID, u.Status, u.PostedAt.Format(time.RFC3339)})
				if u.Format != model.FormatText || u.HTML != "" || u.Body == "" {
					t.Errorf("update %s: got format %s html %q body %q", u.ID, u.Format, u.HTML, u.Body)
				}
			}
			if !reflect.DeepEqual(gotU, w.updates) {
				t.Errorf("got updates %v, want %v", gotU, w.updates)
			}
		})
	}
	if got := fetchtest.ByID(t, incs, "965809").Updates[2].Body; got != "Services are back to nominal operations.\n\nRoot cause confirmed to global Amazon Web Services outage." {
		t.Errorf("got body %q", got)
	}
	// The page says "downtime" (Spaces Proxy is down) without a report: no incident is
	// made up from a monitor's state.
	for _, inc := range incs {
		if slices.Contains(inc.Components, "Spaces Proxy") {
			t.Errorf("got an incident for the monitor-only downtime: %+v", inc)
		}
	}
}

// bsDocument builds a minimal index.json around reports, updates and resources.
func bsDocument(t *testing.T, included ...map[string]any) []byte {
	t.Helper()
	var refs []map[string]any
	for _, r := range included {
		if r["type"] == "status_report" {
			refs = append(refs, map[string]any{"id": r["id"], "type": "status_report"})
		}
	}
	b, err := json.Marshal(map[string]any{
		"data": map[string]any{
			"id": "1", "type": "status_page",
			"attributes":    map[string]any{"company_name": "Acme", "aggregate_state": "operational"},
			"relationships": map[string]any{"status_reports": map[string]any{"data": refs}},
		},
		"included": append([]map[string]any{
			{"id": "r1", "type": "status_page_resource", "attributes": map[string]any{"public_name": "API"}},
			{"id": "r2", "type": "status_page_resource", "attributes": map[string]any{"public_name": "Web"}},
		}, included...),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bsReport(id, typ, state, starts, ends string, affected []map[string]any, updates ...string) map[string]any {
	var ups []map[string]any
	for _, u := range updates {
		ups = append(ups, map[string]any{"id": u, "type": "status_update"})
	}
	attrs := map[string]any{"title": "Report " + id, "report_type": typ, "starts_at": starts, "aggregate_state": state, "affected_resources": affected}
	if ends != "" {
		attrs["ends_at"] = ends
	}
	return map[string]any{"id": id, "type": "status_report", "attributes": attrs,
		"relationships": map[string]any{"status_updates": map[string]any{"data": ups}}}
}

func bsUpdate(id, msg, at string, affected []map[string]any) map[string]any {
	return map[string]any{"id": id, "type": "status_update", "attributes": map[string]any{"message": msg, "published_at": at, "affected_resources": affected}}
}

func bsAff(pairs ...string) []map[string]any {
	out := []map[string]any{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"status_page_resource_id": pairs[i], "status": pairs[i+1]})
	}
	return out
}

func TestBetterStackMapping(t *testing.T) {
	now := fetchtest.MustTime("2026-05-01T12:00:00Z")
	for _, tc := range []struct {
		name      string
		report    map[string]any
		updates   []map[string]any
		kind      model.Kind
		status    model.Status
		impact    model.Impact
		impactRaw string
	}{
		{"degraded open", bsReport("a", "manual", "degraded", "2026-05-01T10:00:00Z", "", bsAff("r1", "degraded")),
			nil, model.KindIncident, model.StatusInvestigating, model.ImpactMinor, "degraded"},
		{"downtime open", bsReport("a", "manual", "downtime", "2026-05-01T10:00:00Z", "", bsAff("r1", "downtime", "r2", "degraded")),
			nil, model.KindIncident, model.StatusInvestigating, model.ImpactMajor, "downtime"},
		{"automatic", bsReport("a", "automatic", "downtime", "2026-05-01T10:00:00Z", "", nil),
			nil, model.KindIncident, model.StatusInvestigating, model.ImpactMajor, "downtime"},
		{"resolved keeps the worst impact of its updates", bsReport("a", "manual", "resolved", "2026-05-01T10:00:00Z", "", bsAff("r1", "resolved"), "u1", "u2"),
			[]map[string]any{bsUpdate("u1", "Down.", "2026-05-01T10:00:00Z", bsAff("r1", "downtime")), bsUpdate("u2", "Fixed.", "2026-05-01T11:00:00Z", bsAff("r1", "resolved"))},
			model.KindIncident, model.StatusResolved, model.ImpactMajor, "downtime"},
		{"operational means over", bsReport("a", "manual", "operational", "2026-05-01T10:00:00Z", "", nil),
			nil, model.KindIncident, model.StatusResolved, model.ImpactUnknown, ""},
		{"maintenance ahead", bsReport("m", "maintenance", "maintenance", "2026-05-02T00:00:00Z", "2026-05-02T01:00:00Z", bsAff("r1", "maintenance")),
			nil, model.KindMaintenance, model.StatusScheduled, model.ImpactMaintenance, ""},
		{"maintenance under way", bsReport("m", "maintenance", "maintenance", "2026-05-01T11:00:00Z", "2026-05-01T13:00:00Z", bsAff("r1", "maintenance")),
			nil, model.KindMaintenance, model.StatusInProgress, model.ImpactMaintenance, ""},
		{"maintenance over", bsReport("m", "Maintenance", "resolved", "2026-05-01T08:00:00Z", "2026-05-01T09:00:00Z", bsAff("r1", "resolved")),
			nil, model.KindMaintenance, model.StatusCompleted, model.ImpactMaintenance, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, incs, _ := decodeBetterStackFixture(t, bsDocument(t, append([]map[string]any{tc.report}, tc.updates...)...), now)
			if len(incs) != 1 {
				t.Fatalf("got %d incidents", len(incs))
			}
			got := incs[0]
			if got.Kind != tc.kind || got.Status != tc.status || got.Impact != tc.impact || got.ImpactRaw != tc.impactRaw {
				t.Errorf("got %s %s %s (%s), want %s %s %s (%s)", got.Kind, got.Status, got.Impact, got.ImpactRaw, tc.kind, tc.status, tc.impact, tc.impactRaw)
			}
		})
	}
}

func TestBetterStackUpdates(t *testing.T) {
	doc := bsDocument(t,
		bsReport("a", "manual", "degraded", "2026-05-01T10:00:00Z", "", bsAff("r1", "degraded", "r9", "degraded"), "u2", "u1", "u3", "missing"),
		bsUpdate("u1", "<p>We are <b>investigating</b>.</p><script>alert(1)</script>", "2026-05-01T10:00:00Z", bsAff("r1", "degraded")),
		bsUpdate("u2", "Same second.", "2026-05-01T10:00:00Z", bsAff("r2", "maintenance")),
		bsUpdate("u3", "  Mitigated.\r\n\r\nWatching.  ", "2026-05-01T10:30:00Z", nil),
	)
	_, incs, _ := decodeBetterStackFixture(t, doc, fetchtest.MustTime("2026-05-01T12:00:00Z"))
	inc := incs[0]
	// r9 is not on the page: no name to give it.
	if !reflect.DeepEqual(inc.Components, []string{"API", "Web"}) {
		t.Errorf("got components %q", inc.Components)
	}
	var ids []string
	for _, u := range inc.Updates {
		ids = append(ids, u.ID)
	}
	if !slices.Equal(ids, []string{"u1", "u2", "u3"}) {
		t.Fatalf("got updates %v, want u1 u2 u3 (time, then id; the missing one skipped)", ids)
	}
	u1 := inc.Updates[0]
	if u1.Format != model.FormatHTML || u1.Body != "We are investigating." || strings.Contains(u1.HTML, "script") || !strings.Contains(u1.HTML, "<b>investigating</b>") {
		t.Errorf("HTML update: got %+v", u1)
	}
	if u3 := inc.Updates[2]; u3.Format != model.FormatText || u3.Body != "Mitigated.\n\nWatching." || u3.Status != "" {
		t.Errorf("text update: got %+v", u3)
	}

	// A vendor rewording an update: same id, new body.
	edited := bytes.Replace(doc, []byte("Same second."), []byte("Same second, reworded."), 1)
	_, incs2, _ := decodeBetterStackFixture(t, edited, fetchtest.MustTime("2026-05-01T12:00:00Z"))
	if u := incs2[0].Updates[1]; u.ID != "u2" || u.Body != "Same second, reworded." {
		t.Errorf("edited: got %+v", u)
	}
}

func TestBetterStackMalformed(t *testing.T) {
	real := fetchtest.Testdata(t, "betterstack", "huggingface-index-2026-07-19.json")
	for _, tc := range []struct {
		name, ct string
		body     []byte
	}{
		// Better Stack pages answer any path with their app's HTML and a 200.
		{"html app shell", "text/html; charset=utf-8", []byte("<!DOCTYPE html><html><head><title>Hugging Face status</title></head><body><div id=app></div></body></html>")},
		{"empty", "application/json", []byte("  \n")},
		{"truncated", "application/json", real[:len(real)-100]},
		{"list", "application/json", []byte(`[]`)},
		{"no data", "application/json", []byte(`{"included":[]}`)},
		{"data null", "application/json", []byte(`{"data":null,"included":[]}`)},
		{"not a status page", "application/json", []byte(`{"data":{"id":"1","type":"monitor"}}`)},
		{"report without id", "application/json", []byte(`{"data":{"type":"status_page"},"included":[{"type":"status_report","attributes":{}}]}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeBetterStack(tc.ct, tc.body); !errors.Is(err, payload.ErrMalformed) {
				t.Errorf("got %v, want ErrMalformed", err)
			}
		})
	}
	// A page without reports is well-formed and lists nothing.
	page, err := decodeBetterStack("application/json", []byte(`{"data":{"id":"1","type":"status_page","attributes":{"company_name":"Quiet"}},"included":[]}`))
	if err != nil || len(page.reports) != 0 || page.title != "Quiet" {
		t.Errorf("no reports: got %+v, %v", page, err)
	}
}

func TestBetterStackPoll(t *testing.T) {
	page := fetchtest.NewFakePage()
	const lm = "Sun, 19 Jul 2026 10:42:50 GMT"
	page.Set("/hf/index.json", fetchtest.Route{Body: fetchtest.Testdata(t, "betterstack", "huggingface-index-2026-07-19.json"), ETag: `W/"bs1"`, LastModified: lm})
	srv := fetchtest.NewServer(t, page)
	p, err := fetch.New(Kind, fetchtest.MustClient(t, fetch.ClientOptions{UserAgent: "statuswatch/test"}))
	if err != nil {
		t.Fatal(err)
	}
	src := model.Source{Name: "huggingface", URL: srv.URL + "/hf", Kind: Kind}

	r1, err := p.Poll(context.Background(), fetch.Request{Source: src, Now: hfCaptured})
	if err != nil {
		t.Fatal(err)
	}
	reqs := page.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/hf/index.json" || reqs[0].IfNoneMatch != "" || reqs[0].UserAgent != "statuswatch/test" {
		t.Fatalf("first poll: got requests %+v", reqs)
	}
	s := r1.Snapshot
	if s == nil || s.PageTitle != "Hugging Face" || len(s.Incidents) != 5 || s.OpenOnly || len(s.Listings) != 2 || !s.FetchedAt.Equal(hfCaptured) {
		t.Fatalf("first poll: got %+v", s)
	}
	if r1.Requests != 1 || len(r1.Bodies) != 1 || r1.Bodies[0].Endpoint != EndpointIndex || r1.Bodies[0].Data == nil {
		t.Errorf("first poll: got %d requests, bodies %+v", r1.Requests, r1.Bodies)
	}
	if st := r1.State[EndpointIndex]; st.ETag != `W/"bs1"` || st.LastModified != lm || st.Hash == "" {
		t.Errorf("first poll: got state %+v", st)
	}

	// Second poll: conditional, 304, nothing parsed, nothing to write.
	r2, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: hfCaptured})
	if err != nil {
		t.Fatal(err)
	}
	reqs = page.Requests()
	if len(reqs) != 1 || reqs[0].IfNoneMatch != `W/"bs1"` || reqs[0].IfModifiedSince != lm {
		t.Errorf("second poll: got requests %+v", reqs)
	}
	if r2.Snapshot != nil || r2.Requests != 1 || r2.StateChanged(r1.State) || r2.Bodies[0].Data != nil {
		t.Errorf("second poll: got %+v", r2)
	}

	// Third poll: no validators any more, the same bytes: recognised by hash.
	page.Set("/hf/index.json", fetchtest.Route{Body: fetchtest.Testdata(t, "betterstack", "huggingface-index-2026-07-19.json")})
	r3, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: hfCaptured})
	if err != nil {
		t.Fatal(err)
	}
	page.Requests()
	if r3.Snapshot != nil || r3.Requests != 1 || r3.Bodies[0].Data != nil || r3.Bodies[0].Hash != r1.State[EndpointIndex].Hash {
		t.Errorf("identical bytes: got %+v", r3)
	}

	// A malformed answer fails the poll; it is never an empty page.
	page.Set("/hf/index.json", fetchtest.Route{Body: []byte("<html><body>app</body></html>"), ContentType: "text/html"})
	r4, err := p.Poll(context.Background(), fetch.Request{Source: src, State: r1.State, Now: hfCaptured})
	if !errors.Is(err, payload.ErrMalformed) || r4.Snapshot != nil || r4.Requests != 1 {
		t.Errorf("html: got %+v, %v", r4, err)
	}
}

// FuzzBetterStack feeds arbitrary bytes to the index.json decoder, seeded with the real
// payload and a small document. It must reject what it cannot read and never panic.
func FuzzBetterStack(f *testing.F) {
	fetchtest.AddSeeds(f, "betterstack")
	f.Add([]byte(`{"data":{"type":"status_page","relationships":{"status_reports":{"data":[{"id":1}]}}},"included":[{"id":1,"type":"status_report","attributes":{"report_type":"maintenance","aggregate_state":"maintenance"},"relationships":{"status_updates":{"data":[{"id":2},{"id":2}]}}},{"id":2,"type":"status_update","attributes":{"message":"<p>x","affected_resources":[{"status_page_resource_id":3,"status":"downtime"}]}}]}`))
	f.Add([]byte(`{"data":{"type":"status_page","attributes":{"aggregate_state":"degraded"}},"included":[{"id":1,"type":"status_page_section","attributes":{"name":"S"}},{"id":2,"type":"status_page_resource","attributes":{"public_name":"R","status":"rerouted","status_page_section_id":"1"}},{"id":2,"type":"status_page_resource","attributes":{"public_name":"R"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		page, err := decodeBetterStack("application/json", data)
		if err != nil {
			return
		}
		incs, _ := page.normalise(hfBase, hfCaptured)
		fetchtest.CheckIncidents(t, incs)
		fetchtest.CheckComponents(t, page.components)
	})
}

// TestBetterStackContract: the contract every platform keeps.
func TestBetterStackContract(t *testing.T) {
	fetchtest.Contract{
		Kind:   Kind,
		Source: func(base string) model.Source { return model.Source{Name: "huggingface", URL: base + "/hf"} },
		Routes: map[string]fetchtest.Route{"/hf/index.json": {Body: fetchtest.Testdata(t, "betterstack", "huggingface-index-2026-07-19.json")}},
		Main:   "/hf/index.json",
		Now:    hfCaptured,
	}.Run(t)
}

// TestBetterStackComponents: the real page's resources, each under its section, the one
// that was down a major outage, the resource group one component; the page status its
// aggregate_state.
func TestBetterStackComponents(t *testing.T) {
	page, err := decodeBetterStack("application/json", fetchtest.Testdata(t, "betterstack", "huggingface-index-2026-07-19.json"))
	if err != nil {
		t.Fatal(err)
	}
	cs := page.components
	want := []model.Component{
		{ID: "8810148", Name: "AWS CDN", Group: "CDN", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "8810143", Name: "Google cloud CDN", Group: "CDN", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "84642", Name: "Git Hosting and Serving", Group: "Current status by service", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "84641", Name: "Huggingface Hub", Group: "Current status by service", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "8379105", Name: "Inference Endpoints API", Group: "Inference Endpoints", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "8379104", Name: "Inference Endpoints UI", Group: "Inference Endpoints", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "8951453", Name: "Jobs", Group: "Jobs", Status: model.ComponentOperational, StatusRaw: "operational"},
		{ID: "306621", Name: "Spaces Proxy", Group: "Spaces", Status: model.ComponentMajorOutage, StatusRaw: "downtime"},
	}
	if cs.PageStatus != "downtime" || !slices.Equal(cs.List, want) {
		t.Errorf("got %q and\n%+v\nwant downtime and\n%+v", cs.PageStatus, cs.List, want)
	}
}

// TestBetterStackComponentWords: every resource status Better Stack documents, and an
// unknown word.
func TestBetterStackComponentWords(t *testing.T) {
	for raw, want := range map[string]model.ComponentStatus{
		"operational":   model.ComponentOperational,
		"not_monitored": model.ComponentOperational,
		"maintenance":   model.ComponentMaintenance,
		"degraded":      model.ComponentDegraded,
		"downtime":      model.ComponentMajorOutage,
		"rerouted":      fetch.UnknownComponentStatus,
	} {
		if got := bsComponentWords.Status(raw); got != want {
			t.Errorf("%q: got %s, want %s", raw, got, want)
		}
	}
}

// TestBetterStackOddResources: a resource's status, section or a section's name of an odd
// type never fails the reports read beside them.
func TestBetterStackOddResources(t *testing.T) {
	page, err := decodeBetterStack("application/json", []byte(`{"data":{"type":"status_page","attributes":{"aggregate_state":"operational"}},
		"included":[{"id":1,"type":"status_page_section","attributes":{"name":{"en":"S"}}},{"id":2,"type":"status_page_resource","attributes":{"public_name":"R","status":7,"status_page_section_id":[1]}},
		{"id":3,"type":"status_report","attributes":{"title":"T","aggregate_state":"resolved"}}]}`))
	if err != nil || len(page.reports) != 1 || len(page.components.List) != 1 || page.components.List[0].Group != "" || page.components.List[0].Status != fetch.UnknownComponentStatus {
		t.Fatalf("got %+v, %v", page, err)
	}
}
