// Package connlimit bounds the connections an http.Server holds: a listener that, at its
// limit, closes the longest idle connection to make room for a new one.
package connlimit

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
)

// DefaultMax bounds the connections the web server holds open at once. Without a bound, idle
// keep-alive connections, which are held before any authentication, used up the file
// descriptors ("accept4: too many open files") and the API, /healthz included, went dark.
// 512 leaves room, under a limit of 1,024 descriptors, for the archive and the polls.
const DefaultMax = 512

// Listener is a listener that holds at most max connections. A connection accepted at
// the limit makes room by closing the connection that has waited longest without a request
// in progress (idle between keep-alive requests, or opened and silent): a client that is
// only holding a connection loses it to one that wants an answer now, such as a /healthz
// probe, and a flood of idle connections can never lock the API out. When every connection
// is busy with a request, the new one is closed at once; requests end within the server's
// timeouts, so that frees soon. The server reports each connection's state through
// ConnState (Track).
type Listener struct {
	net.Listener
	max int
	log *slog.Logger

	mu     sync.Mutex
	conns  map[net.Conn]*connEntry
	seq    uint64 // orders the entries by their last change of state
	atMax  bool   // warned that the limit was reached, until the count falls to half
	closed uint64 // connections closed to make room or refused, for the warning
}

type connEntry struct {
	state http.ConnState
	seq   uint64
}

// New returns a Listener of ln that holds at most max connections, warning on log when it
// reaches the limit.
func New(ln net.Listener, max int, log *slog.Logger) *Listener {
	return &Listener{Listener: ln, max: max, log: log, conns: map[net.Conn]*connEntry{}}
}

// Accept accepts the next connection, making room for it as described on Listener.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.admit(c) {
			return c, nil
		}
		_ = c.Close()
	}
}

// admit records c when there is room, or room can be made, and reports whether it was.
func (l *Listener) admit(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.max {
		if !l.atMax {
			l.atMax = true
			l.log.Warn("http connections at the limit: closing the longest idle ones to make room", "limit", l.max)
		}
		l.closed++
		victim := l.longestIdle()
		if victim == nil {
			return false
		}
		delete(l.conns, victim)
		_ = victim.Close()
	}
	l.seq++
	l.conns[c] = &connEntry{state: http.StateNew, seq: l.seq}
	return true
}

// longestIdle is the connection without a request in progress that changed state longest
// ago, or nil.
func (l *Listener) longestIdle() net.Conn {
	var victim net.Conn
	var oldest uint64
	for c, e := range l.conns {
		if (e.state == http.StateIdle || e.state == http.StateNew) && (victim == nil || e.seq < oldest) {
			victim, oldest = c, e.seq
		}
	}
	return victim
}

// Track is the server's ConnState hook.
func (l *Listener) Track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.conns[c]
	if !ok {
		return
	}
	switch state {
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
		if l.atMax && len(l.conns) <= l.max/2 {
			l.atMax = false
			l.log.Warn("http connections back under the limit", "limit", l.max, "closed_or_refused", l.closed)
			l.closed = 0
		}
	default:
		l.seq++
		e.state, e.seq = state, l.seq
	}
}
