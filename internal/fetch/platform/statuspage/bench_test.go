package statuspage

// Benchmarks of a Statuspage poll's steps on a realistic 50-incident incidents.json built
// from the real payloads: the unchanged body the client recognises, the decode and
// normalisation, and the postmortem of an HTML incident page.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	stdjson "encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

// BenchmarkUnchangedBody is a poll whose body is byte-identical to the last one (under
// 0.3 ms CPU): Client.Get reads the ~200 KB body, hashes it and reports Unchanged.
// "memory" measures our side alone through an in-memory transport; "loopback" goes
// through a real socket to an httptest server in the same process, so it also counts the
// server's work.
func BenchmarkUnchangedBody(b *testing.B) {
	body := generated50(b)
	sum := sha256.Sum256(body)
	prev := model.EndpointState{Hash: hex.EncodeToString(sum[:])}

	run := func(b *testing.B, c *fetch.Client, u string) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer fetchtest.CPUMeter(b)()
		for b.Loop() {
			r, err := c.Get(context.Background(), u, prev, nil)
			if err != nil || !r.Unchanged {
				b.Fatalf("got %v, unchanged %v", err, r != nil && r.Unchanged)
			}
		}
	}
	b.Run("memory", func(b *testing.B) {
		run(b, fetchtest.MustClient(b, fetch.ClientOptions{Transport: staticTransport{body: body}}), "http://status.example.com/api/v2/incidents.json")
	})
	b.Run("loopback", func(b *testing.B) {
		srv := fetchtest.NewServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		}))
		run(b, fetchtest.MustClient(b, fetch.ClientOptions{}), srv.URL+"/api/v2/incidents.json")
	})
}

// BenchmarkStatuspageParse50 is the parse and normalisation of a realistic 50-incident
// incidents.json (under 2 ms), with the decoder we ship (go-json-experiment, json
// v2) against the standard library's encoding/json on the same small structs.
func BenchmarkStatuspageParse50(b *testing.B) {
	body := generated50(b)
	b.Run("jsonv2", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer fetchtest.CPUMeter(b)()
		for b.Loop() {
			l, err := options.DecodeList("application/json", body, "incidents")
			if err != nil {
				b.Fatal(err)
			}
			if incs, _ := options.NormaliseList(l.List, model.KindIncident, testBase); len(incs) != 50 {
				b.Fatalf("got %d incidents", len(incs))
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer fetchtest.CPUMeter(b)()
		for b.Loop() {
			var doc struct {
				Incidents *[]statuspagev2.Incident `json:"incidents"`
			}
			if err := stdjson.Unmarshal(body, &doc); err != nil {
				b.Fatal(err)
			}
			if incs, _ := options.NormaliseList(*doc.Incidents, model.KindIncident, testBase); len(incs) != 50 {
				b.Fatalf("got %d incidents", len(incs))
			}
		}
	})
	b.Run("normalise-only", func(b *testing.B) {
		l, err := options.DecodeList("application/json", body, "incidents")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		defer fetchtest.CPUMeter(b)()
		for b.Loop() {
			options.NormaliseList(l.List, model.KindIncident, testBase)
		}
	})
}

// BenchmarkPostmortemFromHTML extracts the postmortem of the synthetic incident page.
func BenchmarkPostmortemFromHTML(b *testing.B) {
	page := fetchtest.Testdata(b, "statuspage", "synthetic-statuspage-incident-page.html")
	b.ReportAllocs()
	defer fetchtest.CPUMeter(b)()
	for b.Loop() {
		if postmortemFromHTML(page) == nil {
			b.Fatal("no postmortem")
		}
	}
}

// staticTransport answers every request in memory with one body, for benchmarks that
// measure our side of a fetch without a socket.
type staticTransport struct {
	body []byte
	etag string
}

func (t staticTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"application/json"}}
	if t.etag != "" {
		h.Set("ETag", t.etag)
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: int64(len(t.body)),
		Request:       r,
	}, nil
}

// generated50 is a realistic 50-incident incidents.json (~200 KB, compact, as Statuspage
// serves it) built from the real incidents in testdata: the 36-update GitHub incident once,
// then the other real incidents in turn, each copy with a new id.
func generated50(tb testing.TB) []byte {
	tb.Helper()
	var top struct {
		Page      map[string]any   `json:"page"`
		Incidents []map[string]any `json:"incidents"`
	}
	if err := stdjson.Unmarshal(fetchtest.Testdata(tb, "statuspage", "github-incidents-2026-08-top5.json"), &top); err != nil {
		tb.Fatal(err)
	}
	var big map[string]any
	var pool []map[string]any
	for _, inc := range top.Incidents {
		if inc["id"] == "zkxwbgr0cnmx" {
			big = inc
		} else {
			pool = append(pool, inc)
		}
	}
	for _, f := range []string{"github-incident-yck8ctxhxtwq.json", "github-incident-lc8s9rtyjmgq.json", "github-incident-c85syxc7gnbx.json"} {
		var d struct {
			Incident map[string]any `json:"incident"`
		}
		if err := stdjson.Unmarshal(fetchtest.Testdata(tb, "statuspage", f), &d); err != nil {
			tb.Fatal(err)
		}
		pool = append(pool, d.Incident)
	}
	var sum struct {
		Incidents []map[string]any `json:"incidents"`
	}
	if err := stdjson.Unmarshal(fetchtest.Testdata(tb, "statuspage", "github-summary-2022-11-25.json"), &sum); err != nil {
		tb.Fatal(err)
	}
	pool = append(pool, sum.Incidents...)

	out := []map[string]any{renumber(big, 0)}
	for i := 1; len(out) < 50; i++ {
		out = append(out, renumber(pool[(i-1)%len(pool)], i))
	}
	b, err := stdjson.Marshal(map[string]any{"page": top.Page, "incidents": out})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// renumber returns a deep copy of a raw incident with a new id, in it and its updates.
func renumber(inc map[string]any, n int) map[string]any {
	b, _ := stdjson.Marshal(inc)
	var c map[string]any
	stdjson.Unmarshal(b, &c)
	id := fmt.Sprintf("%s%02d", c["id"], n)
	c["id"] = id
	if ups, ok := c["incident_updates"].([]any); ok {
		for _, u := range ups {
			if m, ok := u.(map[string]any); ok {
				m["incident_id"] = id
				m["id"] = fmt.Sprintf("%s%02d", m["id"], n)
			}
		}
	}
	return c
}
