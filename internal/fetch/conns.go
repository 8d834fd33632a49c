package fetch

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"time"
)

// bigBody is the body size past which a TLS connection is closed once it has been idle
// for bigLinger rather than kept: reading it grew the connection's TLS record buffer and
// its HTTP/2 frame buffer to tens of KB, which a kept connection holds for the rest of
// its life. The linger lets the rest of the poll (its other endpoints, read one after
// another, with the decode of the big body between) use it still; the next poll of the
// source resumes its TLS session on a new connection, which costs far less than the
// decode of the body that changed. Short, since every such connection open at once holds
// those buffers: in a cold round nearly every poll's does, and at 10,000 sources a linger
// of 2 s kept hundreds of them open, ~20 MB of the heap.
const (
	bigBody   = 64 << 10
	bigLinger = 500 * time.Millisecond
)

// visitLinger is how long a connection the pool does not keep stays open once idle: long
// enough for the rest of its poll (a source's endpoints are read one after another, with
// only the decode of the last between them; a big body has its own linger), and short,
// since every such connection open at once costs tens of KB.
const visitLinger = 50 * time.Millisecond

// connPool bounds the connections kept between polls. The transport's MaxIdleConns
// counts only HTTP/1 connections: an HTTP/2 connection stays open, with its buffers and
// its reading goroutine, until its idle timeout, however many hosts there are. The pool
// sees every connection the client dials (trackDial) and which exchanges use it
// (httptrace's GotConn).
//
// It keeps at most max connections, the first ones released while it had room, for as
// long as they live; any other is closed once idle for visitLinger. Evicting the least
// recently used instead would keep nothing useful where a fleet has more hosts than max:
// a daemon visits its hosts in turn, once an interval each, so the least recently used
// connection is always the next one needed, and each would be closed just before its
// host's next poll. Kept this way, max hosts reuse their connection at every poll and the
// others resume their TLS session, as all of them would under eviction.
//
// The transport learns of a close only when its read loop sees it: a request it hands
// the connection before then fails with net.ErrClosed, and Client.do sends it once more.
type connPool struct {
	max    int
	linger time.Duration // how long a connection that carried a big body stays idle before it is closed
	visit  time.Duration // how long one the pool does not keep stays idle before it is closed

	mu    sync.Mutex
	kept  int                      // connections with kept set, idle or in use
	conns map[net.Conn]*pooledConn // by the dialled connection
	// closers are the addresses whose kept connection was closed while idle by
	// someone else than the pool, the server most often: their connections do not
	// last, and are not offered HTTP/2 (tlsDial). Bounded by maxClosers.
	closers map[string]struct{}
}

// maxClosers bounds connPool.closers; past it the set starts again.
const maxClosers = 1 << 16

type pooledConn struct {
	conn  *trackedConn
	addr  string // dialled
	inUse int
	kept  bool // one of the pool's max: stays open while idle, until its idle timeout
	big   bool // it carried a big body over TLS: closed once idle for linger
	uses  int  // exchanges released so far, to tell a later use from the one a timer is for
	// closing: the pool closes it (an idle visit, a big body), so its close says
	// nothing of the server.
	closing bool
}

func newConnPool(max int) *connPool {
	return &connPool{max: max, linger: bigLinger, visit: visitLinger, conns: map[net.Conn]*pooledConn{}, closers: map[string]struct{}{}}
}

// trackedConn is a dialled connection that leaves the pool when closed, by whoever
// closes it (the transport's idle timeout, the server, the pool).
type trackedConn struct {
	net.Conn
	pool *connPool
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { c.pool.forget(c) })
	return c.Conn.Close()
}

// trackDial wraps a dialer so that every connection it makes joins the pool. One that no
// exchange ever gets (a cancelled request's) is closed by the transport's idle timeout.
func (p *connPool) trackDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: conn, pool: p}
		p.mu.Lock()
		p.conns[tc] = &pooledConn{conn: tc, addr: addr}
		p.mu.Unlock()
		return tc, nil
	}
}

// tlsDial dials as dial does and runs the TLS handshake itself (the transport's own
// would offer HTTP/2 to every connection), with cfg and a handshake timeout, naming the
// host it dialled. It offers HTTP/2 only to a connection likely to last (offerH2): the
// pool has room to keep it, and the server did not close the last one kept while it was
// idle. Any other carries one poll and is closed, and an HTTP/2 connection's set-up (the
// preface, SETTINGS and window updates both ways, the client connection with its buffers
// and reading goroutine) pays only on a connection that lasts: over HTTP/1.1 instead, the
// daemon polling 10,000 HTTPS hosts spent 12% less CPU. Wrong guesses do no harm: a
// connection offered HTTP/2 and not kept after all is closed as any other, and one kept
// over HTTP/1.1 is as good as one over HTTP/2 for a poller.
func (p *connPool) tlsDial(dial func(ctx context.Context, network, addr string) (net.Conn, error), cfg *tls.Config, timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		lasts := p.offerH2(addr)
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c := cfg.Clone()
		if c.ServerName == "" {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				host = addr
			}
			c.ServerName = host
		}
		c.NextProtos = alpnVisit
		if lasts {
			c.NextProtos = alpnKept
		}
		hctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		tc := tls.Client(conn, c)
		if err := tc.HandshakeContext(hctx); err != nil {
			conn.Close()
			return nil, err
		}
		return tc, nil
	}
}

// The protocols offered (ALPN) to a connection likely to last (offerH2), and to one for
// a visit.
var (
	alpnKept  = []string{"h2", "http/1.1"}
	alpnVisit = []string{"http/1.1"}
)

// offerH2 reports whether a new connection to addr is likely to last: the pool has room
// to keep it, and addr's last kept connection was not closed by someone else while idle.
func (p *connPool) offerH2(addr string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, closes := p.closers[addr]
	return (p.max <= 0 || p.kept < p.max) && !closes
}

// key is the dialled connection under what an exchange reports: the transport runs TLS
// over the dialled connection.
func key(c net.Conn) net.Conn {
	if tc, ok := c.(*tls.Conn); ok {
		return tc.NetConn()
	}
	return c
}

// acquire marks the connection an exchange got as in use.
func (p *connPool) acquire(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc := p.conns[key(c)]
	if pc == nil {
		return // not ours (a test's transport)
	}
	pc.inUse++
}

// release ends an exchange over conns (one per hop of its redirects). A connection the
// pool keeps, or now has room to keep, stays open; one that ever carried
// a big body over TLS is closed once it has stayed idle for linger, and one the pool does
// not keep once it has stayed idle for visit.
func (p *connPool) release(conns []net.Conn, big bool) {
	var closing []*trackedConn
	p.mu.Lock()
	for _, c := range conns {
		pc := p.conns[key(c)]
		if pc == nil {
			continue
		}
		if pc.inUse > 0 {
			pc.inUse--
		}
		pc.uses++
		if _, isTLS := c.(*tls.Conn); big && isTLS {
			pc.big = true
		}
		if pc.inUse > 0 {
			continue
		}
		if pc.big && p.linger <= 0 {
			pc.closing = true
			closing = append(closing, pc.conn)
			continue
		}
		if !pc.kept && (p.max <= 0 || p.kept < p.max) {
			pc.kept = true
			p.kept++
		}
		uses := pc.uses
		switch {
		case pc.big:
			time.AfterFunc(p.linger, func() { p.closeIfIdle(pc, uses) })
		case !pc.kept:
			time.AfterFunc(p.visit, func() { p.closeIfIdle(pc, uses) })
		}
	}
	p.mu.Unlock()
	for _, c := range closing {
		c.Close()
	}
}

// closeIfIdle closes pc if nothing used it since its release number uses.
func (p *connPool) closeIfIdle(pc *pooledConn, uses int) {
	p.mu.Lock()
	idle := pc.inUse == 0 && pc.uses == uses && p.conns[pc.conn] == pc
	if idle {
		pc.closing = true
	}
	p.mu.Unlock()
	if idle {
		pc.conn.Close()
	}
}

// forget drops a closed connection.
func (p *connPool) forget(c *trackedConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc := p.conns[c]; pc != nil {
		if pc.kept {
			p.kept--
			if pc.inUse == 0 && !pc.closing {
				if len(p.closers) >= maxClosers {
					clear(p.closers)
				}
				p.closers[pc.addr] = struct{}{}
			}
		}
		delete(p.conns, c)
	}
}

// open is the number of connections open, and of them kept, for tests.
func (p *connPool) open() (open, kept int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns), p.kept
}
