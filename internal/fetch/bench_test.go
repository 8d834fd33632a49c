package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	stdjson "encoding/json"
	"net/http"
	"syscall"
	"testing"
	"time"

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

	run := func(b *testing.B, c *Client, u string) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer cpuMeter(b)()
		for b.Loop() {
			r, err := c.Get(context.Background(), u, prev, nil)
			if err != nil || !r.Unchanged {
				b.Fatalf("got %v, unchanged %v", err, r != nil && r.Unchanged)
			}
		}
	}
	b.Run("memory", func(b *testing.B) {
		run(b, mustClient(b, ClientOptions{Transport: staticTransport{body: body}}), "http://status.example.com/api/v2/incidents.json")
	})
	b.Run("loopback", func(b *testing.B) {
		srv := newServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		}))
		run(b, mustClient(b, ClientOptions{}), srv.URL+"/api/v2/incidents.json")
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
		defer cpuMeter(b)()
		for b.Loop() {
			l, err := decodeStatuspageList("application/json", body, "incidents")
			if err != nil {
				b.Fatal(err)
			}
			if incs, _ := normaliseList(l.List, model.KindIncident, testBase); len(incs) != 50 {
				b.Fatalf("got %d incidents", len(incs))
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer cpuMeter(b)()
		for b.Loop() {
			var doc spDoc
			if err := stdjson.Unmarshal(body, &doc); err != nil {
				b.Fatal(err)
			}
			if incs, _ := normaliseList(*doc.Incidents, model.KindIncident, testBase); len(incs) != 50 {
				b.Fatalf("got %d incidents", len(incs))
			}
		}
	})
	b.Run("normalise-only", func(b *testing.B) {
		l, err := decodeStatuspageList("application/json", body, "incidents")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		defer cpuMeter(b)()
		for b.Loop() {
			normaliseList(l.List, model.KindIncident, testBase)
		}
	})
}

// BenchmarkPostmortemFromHTML extracts the postmortem of the synthetic incident page.
func BenchmarkPostmortemFromHTML(b *testing.B) {
	page := testdata(b, "synthetic-statuspage-incident-page.html")
	b.ReportAllocs()
	defer cpuMeter(b)()
	for b.Loop() {
		if postmortemFromHTML(page) == nil {
			b.Fatal("no postmortem")
		}
	}
}

// cpuMeter reports the process's CPU time per iteration as cpu-ns/op, next to ns/op: on a
// shared machine wall time per op swings with the neighbours' load, CPU time much less.
// It counts every thread of the process (GC included; for "loopback", the server too).
func cpuMeter(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
