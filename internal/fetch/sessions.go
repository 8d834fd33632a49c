package fetch

import (
	"bytes"
	"container/list"
	"crypto/tls"
	"sync"
	"unique"
)

// sessionCache is the client's TLS session cache, one entry per host, least recently
// used first out. It keeps each session encoded (SessionState.Bytes: the ticket, the
// secret and the peer's certificates in DER) rather than as crypto/tls's own LRU
// does, with the parsed certificate chain: a parsed x509 certificate is several times its
// DER, and the fleet's 10,000 hosts' sessions held ~3.5 KB each that way (~1.3 KB
// encoded). A session is parsed back only when a new connection to its host is made,
// which costs a few tens of µs against the handshake's milliseconds.
//
// The certificates after the leaf are kept once for all hosts (packSession): a vendor's
// session carries its CA's intermediate twice (as the server sent it, and in the chain
// it was verified with) and the root once, ~1–1.5 KB each, and a few CAs sign nearly
// every vendor's certificate.
type sessionCache struct {
	mu      sync.Mutex
	size    int
	entries map[string]*list.Element
	order   list.List // of *sessionEntry, the most recently used first
}

type sessionEntry struct {
	key    string
	ticket []byte
	state  packedSession
}

func newSessionCache(size int) *sessionCache {
	return &sessionCache{size: max(size, 1), entries: map[string]*list.Element{}}
}

// Get returns the session kept for key, parsed, or nil.
func (c *sessionCache) Get(key string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	el, ok := c.entries[key]
	var e *sessionEntry
	if ok {
		c.order.MoveToFront(el)
		e = el.Value.(*sessionEntry)
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	state, err := tls.ParseSessionState(e.state.bytes())
	if err != nil {
		c.drop(key, e)
		return nil, false
	}
	cs, err := tls.NewResumptionState(e.ticket, state)
	if err != nil {
		c.drop(key, e)
		return nil, false
	}
	return cs, true
}

// Put keeps cs for key, encoded; a nil cs forgets the key's session.
func (c *sessionCache) Put(key string, cs *tls.ClientSessionState) {
	var e *sessionEntry
	if ticket, state, err := cs.ResumptionState(); err == nil && state != nil {
		if b, err := state.Bytes(); err == nil {
			// Copies of their own size: the ticket is a slice of the message it came
			// in, which would be kept whole (packSession copies the encoding).
			e = &sessionEntry{key: key, ticket: bytes.Clone(ticket), state: packSession(b)}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	switch {
	case e == nil && ok:
		c.order.Remove(el)
		delete(c.entries, key)
	case e == nil:
	case ok:
		el.Value = e
		c.order.MoveToFront(el)
	default:
		c.entries[key] = c.order.PushFront(e)
		for c.order.Len() > c.size {
			old := c.order.Back()
			c.order.Remove(old)
			delete(c.entries, old.Value.(*sessionEntry).key)
		}
	}
}

// drop forgets key's session if it is still e (it would not parse).
func (c *sessionCache) drop(key string, e *sessionEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok && el.Value.(*sessionEntry) == e {
		c.order.Remove(el)
		delete(c.entries, key)
	}
}

// packedSession is a session's encoding with every certificate after the first cut out
// and kept as a handle to the one copy of its DER that all sessions share.
type packedSession struct {
	rest  []byte // the encoding without the shared certificates, copied to its size
	certs []sharedCert
}

// sharedCert is a certificate cut out of a packedSession: its DER goes back in at
// offset at of rest.
type sharedCert struct {
	at  int
	der unique.Handle[string]
}

// packSession packs enc, a SessionState.Bytes. Each certificate in it is DER (a
// SEQUENCE with a two-byte length: 0x30 0x82) behind the three-byte length the
// encoding gives every certificate, which is what is looked for; the first is the leaf,
// the host's own, and stays in rest. Any other bytes that happened to look so would
// only be shared for nothing: bytes() gives back enc exactly, whatever was cut.
func packSession(enc []byte) packedSession {
	var p packedSession
	var cut []int // start and end of each certificate cut out
	leaf := true
	for i := 3; i+4 <= len(enc); i++ {
		if enc[i] != 0x30 || enc[i+1] != 0x82 {
			continue
		}
		n := 4 + (int(enc[i+2])<<8 | int(enc[i+3]))
		if i+n > len(enc) || int(enc[i-3])<<16|int(enc[i-2])<<8|int(enc[i-1]) != n {
			continue
		}
		if !leaf {
			cut = append(cut, i, i+n)
		}
		leaf = false
		i += n - 1
	}
	size := len(enc)
	for k := 0; k < len(cut); k += 2 {
		size -= cut[k+1] - cut[k]
	}
	p.rest = make([]byte, 0, size)
	if len(cut) > 0 {
		p.certs = make([]sharedCert, 0, len(cut)/2)
	}
	from := 0
	for k := 0; k < len(cut); k += 2 {
		p.rest = append(p.rest, enc[from:cut[k]]...)
		p.certs = append(p.certs, sharedCert{at: len(p.rest), der: unique.Make(string(enc[cut[k]:cut[k+1]]))})
		from = cut[k+1]
	}
	p.rest = append(p.rest, enc[from:]...)
	return p
}

// bytes gives back the encoding p was packed from.
func (p packedSession) bytes() []byte {
	if len(p.certs) == 0 {
		return p.rest
	}
	size := len(p.rest)
	for _, c := range p.certs {
		size += len(c.der.Value())
	}
	b := make([]byte, 0, size)
	from := 0
	for _, c := range p.certs {
		b = append(b, p.rest[from:c.at]...)
		b = append(b, c.der.Value()...)
		from = c.at
	}
	return append(b, p.rest[from:]...)
}
