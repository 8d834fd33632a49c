package codec

import (
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/statuswatch/statuswatch/internal/cputime"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
)

// benchVersions are versions as a cold round writes them (fakepage's incidents of
// prose, eight updates each) and as a changed round does: a version 2 with one update
// more and its change set.
func benchVersions() (first, second []model.Version) {
	for _, in := range fakepage.ModelIncidents(7, t0) {
		first = append(first, model.Version{N: 1, ObservedAt: t0, Incident: in, Snapshot: "20260701T120000Z"})
		next := in
		next.Updates = append(in.Updates[:len(in.Updates):len(in.Updates)], model.Update{ID: "new", Status: model.StatusMonitoring,
			Body: "We are monitoring the fix and will post an update within the hour.", Format: model.FormatText, PostedAt: t0})
		changes := diff.Changes(&in, &next)
		second = append(second, model.Version{N: 2, ObservedAt: t0, Incident: next, Changes: changes, Summary: diff.Summary(changes)})
	}
	return first, second
}

// jsonRecord is v's record in the form of before (recordS2): header and version as JSON.
func jsonRecord(v *model.Version) []byte {
	c := *v
	c.Changes = boundOps(v.Changes)
	data, err := EncodeVersion(&c)
	if err != nil {
		panic(err)
	}
	h := headerOf(v)
	hdr, err := json.Marshal(&h, versionJSON)
	if err != nil {
		panic(err)
	}
	return record(recordS2, hdr, data)
}

// each runs fn(i) for i = 0, 1, … as b.Loop asks, and reports the process's CPU time
// per call (cpu-ns/op), which the machine's load does not inflate as it does ns/op.
func each(b *testing.B, fn func(i int)) {
	b.ReportAllocs()
	c, i := cputime.Process(), 0
	for b.Loop() {
		fn(i)
		i++
	}
	b.ReportMetric(float64(cputime.Process()-c)/float64(b.N), "cpu-ns/op")
}

// BenchmarkVersionRecord: encoding and decoding a version, as the JSON record of before
// and as the binary record, and the binary form without its S2 block; and a list of
// versions' header read. v1 are the cold round's version 1s (decoding derives their
// change set, the same work in every form), v2 the changed round's version 2s with
// their change set. B/version is the stored size.
func BenchmarkVersionRecord(b *testing.B) {
	first, second := benchVersions()
	forms := []struct {
		name   string
		encode func(*model.Version) []byte
	}{
		{"json", jsonRecord},
		{"binary", func(v *model.Version) []byte { rec, _ := EncodeRecord(v); return rec }},
	}
	for _, set := range []struct {
		name string
		vs   []model.Version
	}{{"v1", first}, {"v2", second}} {
		vs := set.vs
		for _, f := range forms {
			recs := make([][]byte, len(vs))
			size := 0
			for i := range vs {
				recs[i] = f.encode(&vs[i])
				size += len(recs[i])
			}
			b.Run(set.name+"/encode/"+f.name, func(b *testing.B) {
				each(b, func(i int) {
					f.encode(&vs[i%len(vs)])
				})
				b.ReportMetric(float64(size)/float64(len(vs)), "B/version")
			})
			b.Run(set.name+"/decode/"+f.name, func(b *testing.B) {
				each(b, func(i int) {
					if _, err := DecodeVersion(recs[i%len(recs)]); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(set.name+"/header/"+f.name, func(b *testing.B) {
				each(b, func(i int) {
					if _, _, err := DecodeHeader(recs[i%len(recs)]); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
		// Without S2: the binary version alone, written and read.
		raw := make([][]byte, len(vs))
		size := 0
		for i := range vs {
			c := vs[i]
			if c.N == 1 {
				c.Changes = nil
			}
			w := binWriter{}
			w.version(&c)
			raw[i] = w.b
			size += len(w.b)
		}
		b.Run(set.name+"/encode/binary-no-s2", func(b *testing.B) {
			each(b, func(i int) {
				c := vs[i%len(vs)]
				if c.N == 1 {
					c.Changes = nil
				}
				w := binWriter{b: make([]byte, 0, versionSizeHint(&c))}
				w.version(&c)
			})
			b.ReportMetric(float64(size)/float64(len(vs)), "B/version")
		})
		b.Run(set.name+"/decode/binary-no-s2", func(b *testing.B) {
			each(b, func(i int) {
				v := model.Version{N: vs[i%len(vs)].N} // the header's, as DecodeVersion has it
				r := binReader{s: string(raw[i%len(raw)])}
				r.version(&v)
				if r.err != nil {
					b.Fatal(r.err)
				}
				if v.N == 1 && v.Changes == nil { // as DecodeVersion does
					v.Changes = diff.Changes(nil, &v.Incident)
					v.Summary = diff.Summary(v.Changes)
				}
			})
		})
	}
}
