package codec

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// maxBodySize bounds what a stored body or version may claim to decompress to. Bodies
// are capped at http.max_body when fetched; this only stops a damaged record or zstd
// frame from claiming unbounded memory.
const maxBodySize = 1 << 30

// Bodies compresses raw bodies for storage and reads them back.
type Bodies struct {
	// The decoder of the bodies archived as zstd frames, kept for the life of the
	// archive: building one allocates several MB of tables, and DecodeAll is safe for
	// concurrent use.
	dec *zstd.Decoder
	// buf is where a body is compressed before its exact-size copy is returned, so that
	// compressing allocates only what is kept.
	buf []byte
}

// NewBodies returns a Bodies; Close releases its decoder.
func NewBodies() (*Bodies, error) {
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(2),
		zstd.WithDecoderMaxMemory(maxBodySize))
	if err != nil {
		return nil, err
	}
	return &Bodies{dec: dec}, nil
}

// Close releases the decoder.
func (b *Bodies) Close() { b.dec.Close() }

// zstdMagic starts every zstd frame (RFC 8878 §3.1.1).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Compress is the stored form of a raw body: an S2 block. S2 (Snappy's successor)
// compresses a 200 KB status page about four times faster than zstd's fastest level,
// for a third more bytes (28 KB instead of 21 for the fleet benchmark's page): raw
// bodies are evidence that retention.raw_snapshots prunes, and compressing them was the
// largest single cost of archiving a new page. It runs inside the write transaction.
//
// Bodies archived before are zstd frames, and stay readable: Decompress tells them
// apart by zstd's magic number, which no S2 block starts with (a block starts with its
// decoded length as a uvarint, and the one length encoded as 0x28 is followed by a
// literal tag, never 0xb5).
//
// Compress is not safe for concurrent use (the archive calls it inside write
// transactions, which bbolt serialises); Decompress is.
func (b *Bodies) Compress(data []byte) []byte {
	if n := s2.MaxEncodedLen(len(data)); cap(b.buf) < n {
		b.buf = make([]byte, n)
	}
	return bytes.Clone(s2.Encode(b.buf[:cap(b.buf)], data))
}

// Decompress reads a stored body; see Compress.
func (b *Bodies) Decompress(data []byte) ([]byte, error) {
	if bytes.HasPrefix(data, zstdMagic) {
		return b.dec.DecodeAll(data, nil)
	}
	out, err := decompress(data)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	return out, nil
}
