package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
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
	c.entries["c"].Value.(*sessionEntry).state = []byte("garbage")
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
	conn, err := tls.Dial("tcp", srv.Listener.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "example.com", ClientSessionCache: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"))
	conn.Read(make([]byte, 512)) // the TLS 1.3 session ticket comes after the handshake
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
	if cap(e.ticket) > 64 || cap(e.state) > len(e.state)+len(e.state)/8 {
		t.Errorf("ticket of %d bytes holds %d, state of %d holds %d; want them copied to their size",
			len(e.ticket), cap(e.ticket), len(e.state), cap(e.state))
	}
}
