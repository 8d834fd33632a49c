package testbin

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// Gunzip writes the decompressed contents of the gzip file from to the file to: a test's
// copy of an archive kept compressed in testdata.
func Gunzip(t testing.TB, from, to string) {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
