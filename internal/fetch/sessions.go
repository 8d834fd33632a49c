package fetch

import (
	"bytes"
	"container/list"
	"crypto/tls"
	"sync"
)

// sessionCache is the client's TLS session cache, one entry per host, least recently
// used first out. It keeps each session encoded (SessionState.Bytes: the ticket, the
// secret and the peer's certificates in DER) rather than as crypto/tls's own LRU
// does, with the parsed certificate chain: a parsed x509 certificate is several times its
// DER, and the fleet's 10,000 hosts' sessions held ~3.5 KB each that way (~1.3 KB
// encoded). A session is parsed back only when a new connection to its host is made,
// which costs a few tens of µs against the handshake's milliseconds.
type sessionCache struct {
	mu      sync.Mutex
	size    int
	entries map[string]*list.Element
	order   list.List // of *sessionEntry, the most recently used first
}

type sessionEntry struct {
	key           string
	ticket, state []byte
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
	state, err := tls.ParseSessionState(e.state)
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
			// Copies of their own size: the encoding is built by doubling (up to twice
			// its length in capacity), and the ticket is a slice of the message it came
			// in, which would be kept whole.
			e = &sessionEntry{key: key, ticket: bytes.Clone(ticket), state: bytes.Clone(b)}
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
