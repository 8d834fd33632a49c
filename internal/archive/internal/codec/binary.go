package codec

// The binary form of a version record (recordBin): header and version written field by
// field with append-style helpers, no names, no quoting. Every version written since is
// of this form; the JSON forms of before (recordS2, bare JSON) still read.
//
// Why by hand: it is the archive's bulk and every read path's first step, and its
// fields change rarely (TestBinaryCoversEveryField fails when model.Version gains one
// this file does not write). Against the JSON record it replaced, with the same S2
// block, a version encodes 2–3× and decodes ~2.6× faster and its header reads ~3×
// faster, in about 20% less room (BenchmarkVersionRecord; BENCHMARKS.md "Binary version
// records"). A well-kept library was measured first: fxamacker/cbor keys every field by
// its name as JSON does, so it encodes no faster than this (before S2) and decodes 2.5–3×
// slower, a string allocated per field, into 20% more bytes. S2 stays: it is most of
// what encoding costs now (about 1.4% of a cold round), but it halves the bytes each
// version adds to the file and to the pages its commit writes (2.9 KB to 1.4 KB for a
// typical version).
//
// Layout, in order (u: uvarint; s: u length then the bytes; t: time, below; l: list, u
// count+1 then the items, 0 for nil, so nil and empty survive as the JSON kept them;
// p: optional string, u 0 for nil, else length+1 then the bytes; b: one byte 0 or 1):
//
//	header:   u n, t observed_at, s summary, s snapshot, l fields (s)
//	version:  incident, l changes; n, observed_at, summary and snapshot are the header's
//	incident: s id, kind, status, status_raw, impact, impact_raw, title;
//	          t started_at, resolved_at, scheduled_for, scheduled_until;
//	          l components (s); l updates; b postmortem present, then its fields; s url;
//	          b resolved_inferred
//	update:   s id, status, body, format; t posted_at; s html
//	postmortem: s body, format; t published_at; s html
//	change:   s field, p before, p after, l ops
//	op:       one byte, 0 equal, 1 insert, 2 delete, 3 another word then s; s text
//
// A time is one byte, 0 for the zero time, 1 for UTC, 2 for another offset, then for 1
// and 2 the zigzag varint of its Unix seconds and the uvarint of its nanoseconds, and
// for 2 the zigzag varint of its offset in seconds: a version decodes to the times
// the JSON gave, the offset kept (a fixed zone, as RFC 3339 reads).

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// recordBin is the leading byte of a binary record: then the uvarint length of the
// header, the header, and the version as one S2 block.
const recordBin = 0x02

// binWriter appends the binary form to b.
type binWriter struct{ b []byte }

func (w *binWriter) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *binWriter) int(n int64)   { w.b = binary.AppendVarint(w.b, n) }
func (w *binWriter) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }

// list writes a list's count, nil apart from empty.
func (w *binWriter) list(n int, isNil bool) {
	if isNil {
		w.uint(0)
		return
	}
	w.uint(uint64(n) + 1)
}

func (w *binWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *binWriter) optStr(s *string) {
	if s == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(*s)) + 1)
	w.b = append(w.b, *s...)
}

func (w *binWriter) time(t time.Time) {
	if t.IsZero() {
		w.b = append(w.b, 0)
		return
	}
	_, off := t.Zone()
	if off == 0 {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 2)
	}
	w.b = binary.AppendVarint(w.b, t.Unix())
	w.uint(uint64(t.Nanosecond()))
	if off != 0 {
		w.b = binary.AppendVarint(w.b, int64(off))
	}
}

func (w *binWriter) strs(ss []string) {
	w.list(len(ss), ss == nil)
	for _, s := range ss {
		w.str(s)
	}
}

func (w *binWriter) header(h *Header) {
	w.uint(uint64(h.N))
	w.time(h.ObservedAt)
	w.str(h.Summary)
	w.str(h.Snapshot)
	w.strs(h.Fields)
}

// opOther is the code of an op that is none of opWords, its word written after it.
const opOther = 3

func (w *binWriter) version(v *model.Version) {
	in := &v.Incident
	for _, s := range [...]string{in.ID, string(in.Kind), string(in.Status), in.StatusRaw, string(in.Impact), in.ImpactRaw, in.Title} {
		w.str(s)
	}
	for _, t := range [...]time.Time{in.StartedAt, in.ResolvedAt, in.ScheduledFor, in.ScheduledUntil} {
		w.time(t)
	}
	w.strs(in.Components)
	w.list(len(in.Updates), in.Updates == nil)
	for i := range in.Updates {
		u := &in.Updates[i]
		w.str(u.ID)
		w.str(string(u.Status))
		w.str(u.Body)
		w.str(string(u.Format))
		w.time(u.PostedAt)
		w.str(u.HTML)
	}
	w.bool(in.Postmortem != nil)
	if pm := in.Postmortem; pm != nil {
		w.str(pm.Body)
		w.str(string(pm.Format))
		w.time(pm.PublishedAt)
		w.str(pm.HTML)
	}
	w.str(in.URL)
	w.bool(in.ResolvedInferred)
	w.list(len(v.Changes), v.Changes == nil)
	for i := range v.Changes {
		c := &v.Changes[i]
		w.str(c.Field)
		w.optStr(c.Before)
		w.optStr(c.After)
		w.list(len(c.Ops), c.Ops == nil)
		for _, o := range c.Ops {
			switch o.Op {
			case model.OpEqual:
				w.b = append(w.b, 0)
			case model.OpInsert:
				w.b = append(w.b, 1)
			case model.OpDelete:
				w.b = append(w.b, 2)
			default:
				w.b = append(w.b, opOther)
				w.str(o.Op)
			}
			w.str(o.Text)
		}
	}
}

var errBadRecord = errors.New("damaged version record")

// binReader reads the binary form out of s, every string it returns a part of s (one
// copy of the input, none per field). The first error sticks: every read after it
// returns zero values.
type binReader struct {
	s   string
	err error
}

func (r *binReader) fail() { r.err, r.s = errBadRecord, "" }

func (r *binReader) uint() uint64 {
	var n uint64
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			r.s = r.s[i+1:]
			return n | uint64(c)<<(7*i)
		}
		n |= uint64(c&0x7f) << (7 * i)
	}
	r.fail()
	return 0
}

func (r *binReader) int() int64 {
	u := r.uint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *binReader) byte() byte {
	if len(r.s) == 0 {
		r.fail()
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

func (r *binReader) bytes(n uint64) string {
	if n > uint64(len(r.s)) {
		r.fail()
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *binReader) str() string { return r.bytes(r.uint()) }

func (r *binReader) optStr() *string {
	n := r.uint()
	if n == 0 || r.err != nil {
		return nil
	}
	s := r.bytes(n - 1)
	return &s
}

func (r *binReader) bool() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail()
	return false
}

// list reads a list's count: -1 for nil. An item takes at least min bytes, so a count
// the rest of the input cannot hold is damage, found before anything is allocated.
func (r *binReader) list(min int) int {
	n := r.uint()
	switch {
	case n == 0 || r.err != nil:
		return -1
	case n-1 > uint64(len(r.s)/min):
		r.fail()
		return -1
	}
	return int(n - 1)
}

func (r *binReader) time() time.Time {
	tag := r.byte()
	if tag == 0 || r.err != nil {
		return time.Time{}
	}
	sec, nsec := r.int(), r.uint()
	if nsec >= 1e9 || tag > 2 {
		r.fail()
		return time.Time{}
	}
	t := time.Unix(sec, int64(nsec))
	if t.IsZero() { // written as tag 0
		r.fail()
		return time.Time{}
	}
	if tag == 1 {
		return t.UTC()
	}
	off := r.int()
	if off == 0 || off < math.MinInt32 || off > math.MaxInt32 {
		r.fail()
		return time.Time{}
	}
	return t.In(time.FixedZone("", int(off)))
}

func (r *binReader) strs() []string {
	n := r.list(1)
	if n < 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *binReader) header(h *Header) {
	n := r.uint()
	if n > math.MaxInt32 {
		r.fail()
	}
	h.N = int(n)
	h.ObservedAt = r.time()
	h.Summary = r.str()
	h.Snapshot = r.str()
	h.Fields = r.strs()
}

// The fewest bytes an item of each list takes.
const (
	minUpdate = 6 // four empty strings, a zero time, an empty html
	minChange = 4 // an empty field, two nils, no ops
	minOp     = 2 // a code, an empty text
)

func (r *binReader) version(v *model.Version) {
	in := &v.Incident
	in.ID = r.str()
	in.Kind = model.Kind(r.str())
	in.Status = model.Status(r.str())
	in.StatusRaw = r.str()
	in.Impact = model.Impact(r.str())
	in.ImpactRaw = r.str()
	in.Title = r.str()
	in.StartedAt = r.time()
	in.ResolvedAt = r.time()
	in.ScheduledFor = r.time()
	in.ScheduledUntil = r.time()
	in.Components = r.strs()
	if n := r.list(minUpdate); n >= 0 {
		in.Updates = make([]model.Update, n)
		for i := range in.Updates {
			u := &in.Updates[i]
			u.ID = r.str()
			u.Status = model.Status(r.str())
			u.Body = r.str()
			u.Format = model.Format(r.str())
			u.PostedAt = r.time()
			u.HTML = r.str()
		}
	}
	if r.bool() {
		in.Postmortem = &model.Postmortem{Body: r.str(), Format: model.Format(r.str()), PublishedAt: r.time(), HTML: r.str()}
	}
	in.URL = r.str()
	in.ResolvedInferred = r.bool()
	if n := r.list(minChange); n >= 0 {
		v.Changes = make([]model.Change, n)
		for i := range v.Changes {
			c := &v.Changes[i]
			c.Field = r.str()
			c.Before = r.optStr()
			c.After = r.optStr()
			if n := r.list(minOp); n >= 0 {
				c.Ops = make([]model.Op, n)
				for j := range c.Ops {
					c.Ops[j].Op = r.op()
					c.Ops[j].Text = r.str()
				}
			}
		}
	}
	if r.err == nil && r.s != "" {
		r.fail() // bytes past the version
	}
}

// opWords are the ops by their code.
var opWords = [...]string{model.OpEqual, model.OpInsert, model.OpDelete}

func (r *binReader) op() string {
	switch c := r.byte(); {
	case int(c) < len(opWords):
		return opWords[c]
	case c == opOther:
		return r.str()
	}
	r.fail()
	return ""
}
