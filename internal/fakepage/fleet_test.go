package fakepage

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/url"
	"strings"
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

// Under TLS every page has its own loopback address and a certificate for it from the
// fleet's CA, offers HTTP/2, and counts connections, handshakes and resumptions.
func TestFleetTLS(t *testing.T) {
	f, err := NewFleetWith(2, FleetOptions{TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u0, _ := url.Parse(f.URL(0))
	u1, _ := url.Parse(f.URL(1))
	if u0.Scheme != "https" || u0.Hostname() == u1.Hostname() || !strings.HasPrefix(u0.Hostname(), "127.1.") {
		t.Fatalf("URLs %s and %s; want https on two 127.1.x.y addresses", u0, u1)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(f.CAPEM()) {
		t.Fatal("CAPEM holds no certificate")
	}
	cache := tls.NewLRUClientSessionCache(4)
	get := func(i int) string {
		t.Helper()
		// A transport per request: a new connection every time, resumed from the cache.
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ClientSessionCache: cache}, ForceAttemptHTTP2: true}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(f.URL(i) + "/api/v2/summary.json")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.Proto
	}
	if p := get(0); p != "HTTP/2.0" {
		t.Errorf("protocol %s, want HTTP/2.0", p)
	}
	get(0)
	get(1)
	s := f.ConnStats()
	if s.Conns != 3 || s.Handshakes != 3 || s.Resumed != 1 || s.Protocols["HTTP/2.0"] != 3 {
		t.Errorf("counted %v; want 3 connections, 3 handshakes (1 resumed), 3 HTTP/2 requests", s)
	}
	if s := f.ConnStats(); s.Conns != 0 || len(s.Protocols) != 0 {
		t.Errorf("after a read the counts start again: %v", s)
	}
}

// Open adds an unresolved incident; FollowUp adds an update to it, and finds none on a
// page without one.
func TestFleetOpenAndFollowUp(t *testing.T) {
	f, err := NewFleet(2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.FollowUp(0, "nothing open") {
		t.Error("FollowUp on a page with no open incident: got true")
	}
	f.Open(0, "Login failures [tok1]", "Investigating [tok1]")
	if !f.FollowUp(0, "Fix deployed [tok2]") {
		t.Fatal("FollowUp on the open incident: got false")
	}
	resp, err := http.Get(f.URL(0) + "/api/v2/incidents.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"Login failures [tok1]", "Investigating [tok1]", "Fix deployed [tok2]", `"resolved_at":null`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("incidents.json lacks %q", want)
		}
	}
}

// TestPageKeepsOnlyBodies: a page keeps its history as the bodies alone and reads it back
// from them, so renaming it back, changing its components or asking for one incident
// serves exactly the bytes its structs would.
func TestPageKeepsOnlyBodies(t *testing.T) {
	incs := VendorIncidents(7, fleetEpoch)
	p := &Statuspage{Name: "Vendor"}
	p.Set(incs, FiftyIncidents(fleetEpoch)[:2])
	get := func(path string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://page"+path, nil)
		resp, err := p.Transport().RoundTrip(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", path, resp.StatusCode, err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("ETag") + string(b)
	}
	before := get("/api/v2/incidents.json") + get("/api/v2/scheduled-maintenances.json")
	one := get("/api/v2/incidents/" + incs[3].ID + ".json")
	if p.incidents != nil || p.maintenances != nil {
		t.Fatal("the page kept its structs beside its bodies")
	}
	p.SetName("Other")
	p.SetComponents(Components(3))
	p.SetName("Vendor")
	if after := get("/api/v2/incidents.json") + get("/api/v2/scheduled-maintenances.json"); after != before {
		t.Fatal("bodies read back and rendered again differ from the first render")
	}
	if again := get("/api/v2/incidents/" + incs[3].ID + ".json"); again != one || !strings.Contains(one, incs[3].Updates[0].Body) {
		t.Fatal("an incident's own body changed, or lacks its updates")
	}
	if got := p.served(); len(got) != len(incs) || got[0].Updates[0].Body != incs[0].Updates[0].Body || !got[0].CreatedAt.Equal(incs[0].CreatedAt) {
		t.Fatal("served does not give back the incidents set")
	}
}

// TestFleetResetRestoresOnlyChanged: Reset brings back every page changed or set since,
// by the fleet or directly, and leaves the others alone.
func TestFleetResetRestoresOnlyChanged(t *testing.T) {
	f, err := NewFleet(3)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	etags := func() [3]string {
		var e [3]string
		for i := range e {
			e[i] = f.Page(i).ETag("/api/v2/incidents.json")
		}
		return e
	}
	first := etags()
	sets := f.Page(2).setCount()
	f.Change(0)
	f.Page(1).Set(nil, nil)
	if now := etags(); now[0] == first[0] || now[1] == first[1] || now[2] != first[2] {
		t.Fatalf("after the changes: %v, want pages 0 and 1 changed from %v", now, first)
	}
	f.Reset()
	if now := etags(); now != first {
		t.Fatalf("after Reset: %v, want %v", now, first)
	}
	if f.Page(2).setCount() != sets {
		t.Fatal("Reset set a page that had not changed")
	}
}
