package archive

import (
	"bytes"
	"fmt"

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

// encodeVersion is the stored form of v. Version 1's change set is left out: it is always
// diff.Changes(nil, incident) — every field "not present" before — so it repeats every
// text of the incident once or twice more, and decodeVersion derives it instead. That
// halves what a new incident writes.
func encodeVersion(v *model.Version) ([]byte, error) {
	if v.N == 1 {
		c := *v
		c.Changes, c.Summary = nil, ""
		v = &c
	}
	return json.Marshal(v, versionJSON)
}

// decodeVersion reads a stored version, deriving version 1's change set (encodeVersion).
// A version 1 stored with its change set (archives written before) keeps it.
func decodeVersion(data []byte) (*model.Version, error) {
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

// maxBodySize bounds what a stored body may claim to decompress to. Bodies are capped
// at http.max_body when fetched; this only stops a damaged record from claiming
// unbounded memory.
const maxBodySize = 1 << 30

// zstdMagic starts every zstd frame (RFC 8878 §3.1.1).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// compressBody is the stored form of a raw body: an S2 block. S2 (Snappy's successor)
// compresses a 200 KB status page about four times faster than zstd's fastest level,
// for a third more bytes (28 KB instead of 21 for the fleet benchmark's page): raw
// bodies are evidence that retention.raw_snapshots prunes, and compressing them was the
// largest single cost of archiving a new page. It runs inside the write transaction.
//
// Bodies archived before are zstd frames, and stay readable: decompressBody tells them
// apart by zstd's magic number, which no S2 block starts with (a block starts with its
// decoded length as a uvarint, and the one length encoded as 0x28 is followed by a
// literal tag, never 0xb5).
func (s *Store) compressBody(data []byte) []byte {
	if n := s2.MaxEncodedLen(len(data)); cap(s.zbuf) < n {
		s.zbuf = make([]byte, n)
	}
	return bytes.Clone(s2.Encode(s.zbuf[:cap(s.zbuf)], data))
}

// decompressBody reads a stored body; see compressBody.
func (s *Store) decompressBody(data []byte) ([]byte, error) {
	if bytes.HasPrefix(data, zstdMagic) {
		return s.dec.DecodeAll(data, nil)
	}
	n, err := s2.DecodedLen(data)
	if err != nil {
		return nil, err
	}
	if n > maxBodySize {
		return nil, fmt.Errorf("body claims %d bytes, more than %d", n, maxBodySize)
	}
	return s2.Decode(make([]byte, n), data)
}
