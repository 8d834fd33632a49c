package statuspage

// Benchmarks of the component states' share of a poll, now that summary.json is read on
// every poll: a poll of a page whose answers did not change (304, or byte-identical for a
// page without ETags), and the decode of a big page's summary when one component changed.

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

// BenchmarkPollUnchangedSummary is a whole poll (incidents.json and summary.json) of a
// 300-component page that changed nothing, through an in-memory transport: "304" with
// the page's ETags, "identical" without (as incident.io serves), every body read and
// recognised by its hash. Neither parses anything, and neither yields components.
func BenchmarkPollUnchangedSummary(b *testing.B) {
	for _, tc := range []struct {
		name   string
		noETag bool
	}{{"304", false}, {"identical", true}} {
		b.Run(tc.name, func(b *testing.B) {
			page := fakepage.NewComponentPage("CDN", 300)
			page.NoETag = tc.noETag
			p, err := fetch.New(Kind, fetchtest.MustClient(b, fetch.ClientOptions{Transport: page.Transport()}))
			if err != nil {
				b.Fatal(err)
			}
			req := fetch.Request{Source: model.Source{Name: "cdn", URL: "http://status.example.com/"}, Now: fetchtest.PollNow}
			r1, err := p.Poll(context.Background(), req)
			if err != nil || r1.Snapshot == nil || r1.Snapshot.Components == nil || len(r1.Snapshot.Components.List) != 300 {
				b.Fatalf("first poll: %v, %+v", err, r1)
			}
			req.State = r1.State
			b.ReportAllocs()
			defer fetchtest.CPUMeter(b)()
			for b.Loop() {
				r, err := p.Poll(context.Background(), req)
				if err != nil || r.Snapshot != nil || r.Requests != 2 {
					b.Fatalf("got %v, snapshot %v, %d requests", err, r != nil && r.Snapshot != nil, r.Requests)
				}
			}
		})
	}
}

// BenchmarkDecodeSummary300 is the decode and normalisation of a 300-component
// summary.json (about 110 KB): what a poll adds when one component of a big page changed.
func BenchmarkDecodeSummary300(b *testing.B) {
	page := fakepage.NewComponentPage("CDN", 300)
	page.SetComponentStatus(fakepage.DataCentreID(42), "degraded_performance")
	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v2/summary.json", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	defer fetchtest.CPUMeter(b)()
	for b.Loop() {
		s, err := statuspagev2.DecodeSummary("application/json", body)
		if err != nil || len(s.Components.List) != 300 {
			b.Fatalf("got %v, %+v", err, s)
		}
	}
}
