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

// A stored version is a record: recordS2, the uvarint length of a header, the header
// (Header as JSON), then the version (EncodeVersion) as one S2 block. The header
// is what a list of versions needs, read without decompressing or decoding the
// incident; the block holds the rest. Records written before were the bare JSON, which
// starts with '{' and still reads.
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

// EncodeRecord is the stored form of v: header and compressed version (recordS2).
func EncodeRecord(v *model.Version) ([]byte, error) {
	c := *v
	c.Changes = boundOps(v.Changes)
	data, err := EncodeVersion(&c)
	if err != nil {
		return nil, err
	}
	h := Header{N: v.N, ObservedAt: v.ObservedAt, Snapshot: v.Snapshot}
	if v.N != 1 {
		h.Summary = v.Summary
		for _, ch := range v.Changes {
			h.Fields = append(h.Fields, ch.Field)
		}
	}
	hdr, err := json.Marshal(&h, versionJSON)
	if err != nil {
		return nil, err
	}
	return record(hdr, data), nil
}

// record is recordS2, the uvarint length of hdr, hdr, and data as one S2 block.
func record(hdr, data []byte) []byte {
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(hdr)+s2.MaxEncodedLen(len(data)))
	out = append(out, recordS2)
	out = binary.AppendUvarint(out, uint64(len(hdr)))
	out = append(out, hdr...)
	out = append(out, s2.Encode(out[len(out):cap(out)], data)...)
	return slices.Clip(out)
}

// splitRecord returns a record's header and compressed version, ok false for a record
// in the bare JSON of before.
func splitRecord(data []byte) (hdr, block []byte, ok bool, err error) {
	if len(data) == 0 || data[0] != recordS2 {
		return nil, nil, false, nil
	}
	n, w := binary.Uvarint(data[1:])
	if w <= 0 || n > uint64(len(data)-1-w) {
		return nil, nil, true, errors.New("damaged version record header")
	}
	hdr = data[1+w : 1+w+int(n)]
	return hdr, data[1+w+int(n):], true, nil
}

// DecodeVersion reads a stored version, a record or the bare JSON of before, deriving
// version 1's change set (EncodeVersion). A version 1 stored with its change set
// (archives written before) keeps it.
func DecodeVersion(data []byte) (*model.Version, error) {
	_, block, ok, err := splitRecord(data)
	if err != nil {
		return nil, err
	}
	if ok {
		n, err := s2.DecodedLen(block)
		if err != nil {
			return nil, err
		}
		if n > maxBodySize {
			return nil, fmt.Errorf("version claims %d bytes, more than %d", n, maxBodySize)
		}
		if data, err = s2.Decode(make([]byte, n), block); err != nil {
			return nil, err
		}
	}
	var v model.Version
	if err := json.Unmarshal(data, &v, versionJSON); err != nil {
		return nil, err
	}
	if v.N == 1 && v.Changes == nil {
		v.Changes = diff.Changes(nil, &v.Incident)
		v.Summary = diff.Summary(v.Changes)
	}
	return &v, nil
}

// DecodeHeader reads what a list of versions shows of a stored version without decoding
// its incident: the record's header, or for the bare JSON of before a scan that skips
// every value but the few it needs. derive reports a version 1 whose summary is left
// to a full decode (EncodeVersion).
func DecodeHeader(data []byte) (h Header, derive bool, err error) {
	hdr, _, ok, err := splitRecord(data)
	switch {
	case err != nil:
		return h, false, err
	case ok:
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
