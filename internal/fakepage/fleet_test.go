package fakepage

import (
	"io"
	"net/http"
	"testing"
)

func TestFleet(t *testing.T) {
	f, err := NewFleet(2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.URL(0) == f.URL(1) {
		t.Fatalf("pages share %s; want a listener each", f.URL(0))
	}
	get := func(i int, etag string) (int, string, int) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, f.URL(i)+"/api/v2/incidents.json", nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("ETag"), len(b)
	}
	status, etag, n := get(0, "")
	if status != 200 || etag == "" || n < 150_000 || n > 300_000 {
		t.Fatalf("first GET: %d, ETag %q, %d bytes; want 200, an ETag, ~200 KB", status, etag, n)
	}
	if _, other, _ := get(1, ""); other == etag {
		t.Errorf("pages 0 and 1 serve the same bytes")
	}
	if status, _, _ := get(0, etag); status != 304 {
		t.Errorf("conditional GET: %d, want 304", status)
	}
	f.Change(0)
	status, changed, _ := get(0, etag)
	if status != 200 || changed == etag {
		t.Errorf("after Change: %d with ETag %q (was %q), want 200 and a new ETag", status, changed, etag)
	}
	if got := len(f.Requests()); got != 4 {
		t.Errorf("Requests: %d, want 4", got)
	}
	f.Reset()
	if status, again, _ := get(0, etag); status != 304 || again != etag {
		t.Errorf("after Reset: %d with ETag %q, want 304 and the first ETag back", status, again)
	}
}
