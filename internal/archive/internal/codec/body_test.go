package codec

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestBodyCodec checks that bodies are stored as S2, zstd frames written before still
// read, and a damaged record is an error.
func TestBodyCodec(t *testing.T) {
	ts, err := NewBodies()
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	data := bytes.Repeat([]byte(`{"incidents":[{"id":"x","name":"API down"}]}`), 500)
	stored := ts.Compress(data)
	if bytes.HasPrefix(stored, zstdMagic) || len(stored) >= len(data)/4 {
		t.Fatalf("stored body: %d bytes, zstd %v", len(stored), bytes.HasPrefix(stored, zstdMagic))
	}
	for name, in := range map[string][]byte{"s2": stored, "zstd": zstdFrame(t, data)} {
		got, err := ts.Decompress(in)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: got %d bytes, %v; want the %d bytes back", name, len(got), err, len(data))
		}
	}
	for name, in := range map[string][]byte{
		"truncated":  stored[:len(stored)/2],
		"huge claim": {0xff, 0xff, 0xff, 0xff, 0x7f, 0x00},
		"empty":      {},
	} {
		if _, err := ts.Decompress(in); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func zstdFrame(t *testing.T, data []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}
