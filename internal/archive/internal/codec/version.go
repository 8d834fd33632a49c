// Package codec is the stored form of the archive's values: version records, incident
// metas, component set versions and metas, raw bodies and fetch states, bytes in and
// model types out, with no storage of its own (internal/archive keeps them in bbolt,
// under the keys of its layout). Every form written before still reads: a form is added
// beside the old, never instead.
package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/s2"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Versions are the bulk of the archive and of a cold poll's work, so they get their own
// codec: go-json-experiment, about twice as fast as encoding/json both ways, with the
// options that keep its output what encoding/json wrote before (nil slices as null), so
// archives of either age read the same.
var versionJSON = json.JoinOptions(
	json.FormatNilSliceAsNull(true),
	json.FormatNilMapAsNull(true),
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
)

// EncodeVersion is the stored form of v. Version 1's change set is left out: it is always
// diff.Changes(nil, incident) — every field "not present" before — so it repeats every
// text of the incident once or twice more, and DecodeVersion derives it instead. That
// halves what a new incident writes.
func EncodeVersion(v *model.Version) ([]byte, error) {
	if v.N == 1 {
		c := *v
		c.Changes, c.Summary = nil, ""
		v = &c
	}
	return json.Marshal(v, versionJSON)
}

// A stored version is a record: its form's byte, the uvarint length of a header, the
// header, then the version as one S2 block. The header is what a list of versions
// needs, read without decompressing or decoding the incident; the block holds the rest.
// Records are written in the binary form (recordBin, binary.go). Those written before
// are recordS2, whose header is Header as JSON and block the version as JSON
// (EncodeVersion), and before those the bare JSON, which starts with '{': both still
// read.
const recordS2 = 0x01

// Header is a stored version's header: its number, time, summary and snapshot, and the
// fields its change set touched. Version 1's summary and fields are left out, as its
// change set is (EncodeVersion).
type Header struct {
	N          int       `json:"n"`
	ObservedAt time.Time `json:"observed_at"`
	Summary    string    `json:"summary,omitempty"`
	Snapshot   string    `json:"snapshot,omitempty"`
	Fields     []string  `json:"fields,omitempty"`
}

// maxStoredOps bounds the text of the word ops a change set stores, all changes
// together. Ops restate the before and after texts run by run, so a big body edited
// would store its text three times over; past the bound a change keeps its before and
// after and loses its ops, and readers show the field as replaced whole.
const maxStoredOps = 256 << 10

// boundOps returns changes with the ops past maxStoredOps dropped, copying only when it
// drops something.
func boundOps(changes []model.Change) []model.Change {
	total, out := 0, changes
	for i, c := range changes {
		n := 0
		for _, o := range c.Ops {
			n += len(o.Text) + len(o.Op)
		}
		if total+n <= maxStoredOps {
			total += n
			continue
		}
		if &out[0] == &changes[0] {
			out = slices.Clone(changes)
		}
		out[i].Ops = nil
	}
	return out
}

// EncodeRecord is the stored form of v: a binary record (recordBin) of its header and
// compressed version, version 1 without its change set (EncodeVersion).
func EncodeRecord(v *model.Version) ([]byte, error) {
	h := headerOf(v)
	w := binWriter{b: make([]byte, 0, 256)}
	w.header(&h)
	hdr := w.b
	c := *v
	c.Changes = boundOps(v.Changes)
	if c.N == 1 {
		c.Changes = nil
	}
	w.b = make([]byte, 0, versionSizeHint(&c))
	w.version(&c)
	return record(recordBin, hdr, w.b), nil
}

// headerOf is the header of v's record.
func headerOf(v *model.Version) Header {
	h := Header{N: v.N, ObservedAt: v.ObservedAt, Snapshot: v.Snapshot}
	if v.N != 1 {
		h.Summary = v.Summary
		for _, ch := range v.Changes {
			h.Fields = append(h.Fields, ch.Field)
		}
	}
	return h
}

// versionSizeHint is about the size of v's binary form, its texts and a little for the
// rest, so that writing it seldom grows the buffer.
func versionSizeHint(v *model.Version) int {
	n := 64 + len(v.Incident.Title) + len(v.Incident.URL) + 16*len(v.Incident.Components)
	for _, u := range v.Incident.Updates {
		n += 32 + len(u.ID) + len(u.Body) + len(u.HTML)
	}
	if pm := v.Incident.Postmortem; pm != nil {
		n += 32 + len(pm.Body) + len(pm.HTML)
	}
	for _, c := range v.Changes {
		n += 16 + len(c.Field)
		if c.Before != nil {
			n += len(*c.Before)
		}
		if c.After != nil {
			n += len(*c.After)
		}
		for _, o := range c.Ops {
			n += 2 + len(o.Text)
		}
	}
	return n
}

// record is form (recordS2 or recordBin), the uvarint length of hdr, hdr, and data as
// one S2 block.
func record(form byte, hdr, data []byte) []byte {
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(hdr)+s2.MaxEncodedLen(len(data)))
	out = append(out, form)
	out = binary.AppendUvarint(out, uint64(len(hdr)))
	out = append(out, hdr...)
	out = append(out, s2.Encode(out[len(out):cap(out)], data)...)
	return slices.Clip(out)
}

// splitRecord returns a record's form (recordS2 or recordBin), header and compressed
// version; form 0 for the bare JSON of before.
func splitRecord(data []byte) (form byte, hdr, block []byte, err error) {
	if len(data) == 0 || (data[0] != recordS2 && data[0] != recordBin) {
		return 0, nil, nil, nil
	}
	n, w := binary.Uvarint(data[1:])
	if w <= 0 || n > uint64(len(data)-1-w) {
		return data[0], nil, nil, errors.New("damaged version record header")
	}
	hdr = data[1+w : 1+w+int(n)]
	return data[0], hdr, data[1+w+int(n):], nil
}

// decompress returns an S2 block's content: a stored version's, a component set's or a
// raw body's, none past maxBodySize.
func decompress(block []byte) ([]byte, error) {
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, err
	}
	if n > maxBodySize {
		return nil, fmt.Errorf("S2 block claims %d bytes, more than %d", n, maxBodySize)
	}
	return s2.Decode(make([]byte, n), block)
}

// DecodeVersion reads a stored version, a record or the bare JSON of before, deriving
// version 1's change set (EncodeVersion). A version 1 stored with its change set
// (archives written before) keeps it.
func DecodeVersion(data []byte) (*model.Version, error) {
	form, hdr, block, err := splitRecord(data)
	if err != nil {
		return nil, err
	}
	var v model.Version
	switch form {
	case recordBin:
		h, err := decodeBinHeader(hdr)
		if err != nil {
			return nil, err
		}
		if data, err = decompress(block); err != nil {
			return nil, err
		}
		r := binReader{s: string(data)}
		r.version(&v)
		if r.err != nil {
			return nil, r.err
		}
		v.N, v.ObservedAt, v.Summary, v.Snapshot = h.N, h.ObservedAt, h.Summary, h.Snapshot
	case recordS2:
		if data, err = decompress(block); err != nil {
			return nil, err
		}
		fallthrough
	default:
		if err := json.Unmarshal(data, &v, versionJSON); err != nil {
			return nil, err
		}
	}
	if v.N == 1 && v.Changes == nil {
		v.Changes = diff.Changes(nil, &v.Incident)
		v.Summary = diff.Summary(v.Changes)
	}
	return &v, nil
}

// decodeBinHeader reads a binary record's header.
func decodeBinHeader(hdr []byte) (Header, error) {
	var h Header
	r := binReader{s: string(hdr)}
	r.header(&h)
	if r.err == nil && r.s != "" {
		r.fail()
	}
	return h, r.err
}

// DecodeHeader reads what a list of versions shows of a stored version without decoding
// its incident: the record's header, or for the bare JSON of before a scan that skips
// every value but the few it needs. derive reports a version 1 whose summary is left
// to a full decode (EncodeVersion).
func DecodeHeader(data []byte) (h Header, derive bool, err error) {
	form, hdr, _, err := splitRecord(data)
	switch {
	case err != nil:
		return h, false, err
	case form == recordBin:
		h, err = decodeBinHeader(hdr)
		return h, err == nil && h.N == 1, err
	case form == recordS2:
		err = json.Unmarshal(hdr, &h, versionJSON)
		return h, err == nil && h.N == 1, err
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), versionJSON)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return h, false, fmt.Errorf("version record: not an object (%v)", err)
	}
	var changes bool // the record has a change set (version 1's is derived)
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return h, false, err
		}
		switch name.String() {
		case "version":
			err = json.UnmarshalDecode(dec, &h.N, versionJSON)
		case "observed_at":
			err = json.UnmarshalDecode(dec, &h.ObservedAt, versionJSON)
		case "summary":
			err = json.UnmarshalDecode(dec, &h.Summary, versionJSON)
		case "snapshot":
			err = json.UnmarshalDecode(dec, &h.Snapshot, versionJSON)
		case "changes":
			changes = dec.PeekKind() == '['
			h.Fields, err = scanFields(dec)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return h, false, err
		}
	}
	if h.N == 1 {
		h.Fields = nil // as a record's header has it
	}
	return h, h.N == 1 && !changes, nil
}

// scanFields reads a JSON change set's field names, skipping its texts and ops.
func scanFields(dec *jsontext.Decoder) ([]string, error) {
	if dec.PeekKind() != '[' {
		return nil, dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	var fields []string
	for dec.PeekKind() == '{' {
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			if name.String() != "field" {
				if err := dec.SkipValue(); err != nil {
					return nil, err
				}
				continue
			}
			var f string
			if err := json.UnmarshalDecode(dec, &f, versionJSON); err != nil {
				return nil, err
			}
			fields = append(fields, f)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != ']' {
		return nil, fmt.Errorf("change set: not a list of objects (%v)", err)
	}
	return fields, nil
}
