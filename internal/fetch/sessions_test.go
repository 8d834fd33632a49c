package fetch

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The session cache keeps one session per host, the least recently used out first; a
// nil Put forgets a host; a session that does not parse back is dropped, not resumed.
// (TestWarmHTTPSPollsReuseOrResume resumes through it.)
func TestSessionCacheBounds(t *testing.T) {
	c := newSessionCache(2)
	state := func() *tls.ClientSessionState {
		ss, err := tls.ParseSessionState(validClientSession(t))
		if err != nil {
			t.Fatal(err)
		}
		cs, err := tls.NewResumptionState([]byte("ticket"), ss)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	c.Put("a", state())
	c.Put("b", state())
	if _, ok := c.Get("a"); !ok { // a is now the most recent
		t.Fatal("a not kept")
	}
	c.Put("c", state())
	if _, ok := c.Get("b"); ok {
		t.Error("b kept beyond the size, want it out first (least recently used)")
	}
	if cs, ok := c.Get("a"); !ok {
		t.Error("a lost")
	} else if ticket, _, _ := cs.ResumptionState(); string(ticket) != "ticket" {
		t.Errorf("ticket %q, want the one put", ticket)
	}
	c.Put("a", nil)
	if _, ok := c.Get("a"); ok {
		t.Error("a kept after a nil Put")
	}
	c.mu.Lock()
	c.entries["c"].Value.(*sessionEntry).state = packedSession{rest: []byte("garbage")}
	c.mu.Unlock()
	if _, ok := c.Get("c"); ok {
		t.Error("a session that does not parse was returned")
	}
	if len(c.entries) != 0 || c.order.Len() != 0 {
		t.Errorf("%d entries left, want none", len(c.entries))
	}
}

// validClientSession is a client session's encoding, taken from a real handshake.
func validClientSession(t *testing.T) []byte {
	t.Helper()
	srv, _ := etagServer(t, true, false)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	rec := &recordingCache{}
	handshake(t, srv.Listener.Addr().String(), "example.com", pool, rec)
	if rec.put == nil {
		t.Fatal("no session ticket")
	}
	_, state, err := rec.put.ResumptionState()
	if err != nil {
		t.Fatal(err)
	}
	b, err := state.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recordingCache keeps the last session put.
type recordingCache struct{ put *tls.ClientSessionState }

func (r *recordingCache) Get(string) (*tls.ClientSessionState, bool) { return nil, false }
func (r *recordingCache) Put(_ string, cs *tls.ClientSessionState) {
	if cs != nil {
		r.put = cs
	}
}

// An entry holds copies of its own size: not the message buffer its ticket is a slice
// of, nor the spare capacity of the encoding.
func TestSessionCacheEntriesHoldTheirBytesOnly(t *testing.T) {
	ss, err := tls.ParseSessionState(validClientSession(t))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	copy(buf, "ticket")
	cs, err := tls.NewResumptionState(buf[:6], ss)
	if err != nil {
		t.Fatal(err)
	}
	c := newSessionCache(1)
	c.Put("a", cs)
	e := c.entries["a"].Value.(*sessionEntry)
	if cap(e.ticket) > 64 || cap(e.state.rest) > len(e.state.rest)+len(e.state.rest)/8 {
		t.Errorf("ticket of %d bytes holds %d, state of %d holds %d; want them copied to their size",
			len(e.ticket), cap(e.ticket), len(e.state.rest), cap(e.state.rest))
	}
}

// A vendor's session is kept with the certificates its CA signs every vendor's with —
// the intermediate, twice, and the root — shared with the other hosts' sessions, and
// still resumes: the encoding given back is the one put, byte for byte.
func TestSessionCacheSharesChainCertificates(t *testing.T) {
	root, inter := newTestChain(t)
	pool := x509.NewCertPool()
	pool.AddCert(root.cert)
	c := newSessionCache(8)
	put := map[string][]byte{} // each host's encoding as crypto/tls gave it
	cache := &spyCache{sessionCache: c, put: put}
	names := []string{"host0.example", "host1.example"}
	addrs := map[string]string{}
	for _, name := range names {
		addrs[name] = chainServer(t, inter, name)
		if state := handshake(t, addrs[name], name, pool, cache); state.DidResume {
			t.Fatalf("%s: resumed at its first handshake", name)
		}
	}
	var first packedSession
	for i, name := range names {
		e := c.entries[name].Value.(*sessionEntry)
		enc := put[name]
		if got := e.state.bytes(); !bytes.Equal(got, enc) {
			t.Fatalf("%s: the encoding given back differs from the one put (%d bytes, want %d)", name, len(got), len(enc))
		}
		if len(e.state.certs) != 3 {
			t.Fatalf("%s: %d certificates shared, want 3 (the intermediate twice, the root)", name, len(e.state.certs))
		}
		shared := 0
		for _, sc := range e.state.certs {
			shared += len(sc.der.Value())
		}
		if len(e.state.rest)+shared != len(enc) || len(e.state.rest) > len(enc)-2*len(inter.cert.Raw)-len(root.cert.Raw) {
			t.Errorf("%s: %d bytes kept of %d; want the encoding less the chain's %d", name, len(e.state.rest), len(enc), 2*len(inter.cert.Raw)+len(root.cert.Raw))
		}
		if i == 0 {
			first = e.state
		} else {
			for k, sc := range e.state.certs {
				if sc.der != first.certs[k].der {
					t.Errorf("%s: certificate %d is a copy of its own, want the one shared with host0", name, k)
				}
			}
		}
		if state := handshake(t, addrs[name], name, pool, cache); !state.DidResume {
			t.Errorf("%s: not resumed from the cache", name)
		} else if len(state.PeerCertificates) != 2 || state.PeerCertificates[0].Subject.CommonName != name {
			t.Errorf("%s: resumed with %d certificates, leaf %q", name, len(state.PeerCertificates), state.PeerCertificates[0].Subject.CommonName)
		}
	}
}

// Packing gives back any bytes exactly, certificates or not, and never panics.
func FuzzPackSession(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 8, 0x30, 0x82, 0, 4, 1, 2, 3, 4})
	f.Add([]byte{0, 0, 8, 0x30, 0x82, 0, 4, 1, 2, 3, 4, 0, 0, 8, 0x30, 0x82, 0, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, enc []byte) {
		if got := packSession(enc).bytes(); !bytes.Equal(got, enc) {
			t.Fatalf("packSession(%x).bytes() = %x", enc, got)
		}
	})
}

// spyCache is a sessionCache that also keeps each encoding put, as crypto/tls made it.
type spyCache struct {
	*sessionCache
	put map[string][]byte
}

func (s *spyCache) Put(key string, cs *tls.ClientSessionState) {
	if _, state, err := cs.ResumptionState(); err == nil && state != nil {
		if b, err := state.Bytes(); err == nil {
			s.put[key] = b
		}
	}
	s.sessionCache.Put(key, cs)
}

type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// newTestChain makes a root CA and an intermediate it signs, as a public CA has.
func newTestChain(t testing.TB) (root, inter testCA) {
	t.Helper()
	root = issue(t, nil, &x509.Certificate{Subject: pkix.Name{CommonName: "test root"}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign})
	inter = issue(t, &root, &x509.Certificate{Subject: pkix.Name{CommonName: "test intermediate"}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign})
	return root, inter
}

// issue signs tmpl with parent's key, or with its own when parent is nil.
func issue(t testing.TB, parent *testCA, tmpl *x509.Certificate) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{cert: cert, key: key}
}

// chainServer serves TLS on loopback as name, sending its leaf and inter, and returns
// its address.
func chainServer(t testing.TB, inter testCA, name string) string {
	t.Helper()
	leaf := issue(t, &inter, &x509.Certificate{Subject: pkix.Name{CommonName: name}, DNSNames: []string{name}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leaf.cert.Raw, inter.cert.Raw}, PrivateKey: leaf.key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// handshake connects to addr as name with cache, makes one request (the TLS 1.3 session
// ticket comes after the handshake) and returns the connection's state.
func handshake(t testing.TB, addr, name string, pool *x509.CertPool, cache tls.ClientSessionCache) tls.ConnectionState {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: name, ClientSessionCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", name)
	if _, err := conn.Read(make([]byte, 512)); err != nil {
		t.Fatal(err)
	}
	return conn.ConnectionState()
}

// BenchmarkSessionCache: a Put and a Get of a session with a chain (the intermediate
// twice, the root), as every new connection of a daemon's makes.
func BenchmarkSessionCache(b *testing.B) {
	root, inter := newTestChain(b)
	pool := x509.NewCertPool()
	pool.AddCert(root.cert)
	rec := &recordingCache{}
	handshake(b, chainServer(b, inter, "host.example"), "host.example", pool, rec)
	if rec.put == nil {
		b.Fatal("no session ticket")
	}
	b.Run("put-get", func(b *testing.B) {
		c := newSessionCache(1)
		b.ReportAllocs()
		for b.Loop() {
			c.Put("host.example", rec.put)
			if _, ok := c.Get("host.example"); !ok {
				b.Fatal("lost")
			}
		}
	})
	// What sharing the chain adds to them.
	b.Run("pack", func(b *testing.B) {
		_, state, _ := rec.put.ResumptionState()
		enc, _ := state.Bytes()
		b.ReportAllocs()
		for b.Loop() {
			if len(packSession(enc).bytes()) != len(enc) {
				b.Fatal("not the same")
			}
		}
	})
}
