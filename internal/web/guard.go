package web

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// The guards in front of every route: the Host check (here) and the connection limit
// (internal/web/connlimit).

// Without web.auth, the only thing between a web page the user visits and the API
// (backup, polls, dropping outbox messages) is that the API listens on loopback. DNS
// rebinding gets past that: evil.example resolves first to the attacker's server, then to
// 127.0.0.1, and the browser lets the attacker's page read the answers, as it is the same
// origin to the browser. The request still says "Host: evil.example", so the server
// answers only the host names it is known by:
//   - localhost, and any loopback address (127.0.0.0/8, [::1]);
//   - the host of listen and of base_url;
//   - the IP address the connection came in on (an IP address cannot be rebound, and it is
//     what someone typing http://10.0.0.5:8080/ sends).
//
// With web.auth set, every host is answered: a rebinding page has no credentials to send.
// /healthz answers any host, as a probe may reach the daemon by any name and the answer
// tells nothing.

// allowedHosts is the set of host names, lower-case, that listen and base_url give.
func allowedHosts(listen, baseURL string) map[string]bool {
	out := map[string]bool{}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		out[normalHost(host)] = true
	}
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		out[normalHost(u.Hostname())] = true
	}
	return out
}

// normalHost is a host name as compared: lower-case, without brackets or a final dot.
func normalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

// hostAllowed reports whether r may be answered, by the rules above.
func (s *Server) hostAllowed(r *http.Request) bool {
	if s.auth.Enabled() || r.URL.Path == "/healthz" {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = normalHost(host)
	if host == "" || host == "localhost" || s.hosts[host] {
		// No Host at all is an HTTP/1.0 client, not a browser.
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if tcp, ok := la.(*net.TCPAddr); ok && tcp.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// refuseHost answers a request for a host this server is not known by.
func refuseHost(w http.ResponseWriter) {
	writeError(w, http.StatusMisdirectedRequest, "this server does not answer for the host this request names: "+
		"without web.auth it answers only localhost, loopback addresses, its own IP address and the hosts of "+
		"listen and base_url (a defence against DNS rebinding); set base_url to the address you use, or set web.auth")
}

// archiveReaders bounds the requests that read every archived incident at once (the
// dashboard, a source page, search, the feeds, the incident list, the outbox). Each holds
// the whole archive's latest versions in memory while it renders, about 5 KB an incident:
// 25 MB at 5,000 incidents. Ten viewers at a time would hold ten copies; with the bound,
// the others wait their turn (within the server's write timeout) and memory stays within
// budget whatever the archive holds and however many viewers come.
const archiveReaders = 2

// archiveWait is the longest a request waits for its turn, well within the server's write
// timeout, so that a queue of requests whose clients gave up never builds.
const archiveWait = 20 * time.Second

// readGate is the semaphore of archiveReaders; waiting counts the requests waiting for it.
type readGate struct {
	slots   chan struct{}
	waiting atomic.Int64
}

func newReadGate(n int) *readGate { return &readGate{slots: make(chan struct{}, n)} }

// wholeArchive lets h run once a slot of the gate is free; a request that ends while it
// waits (the client went away, the server shuts down) is not run.
func (s *Server) wholeArchive(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g := s.readers
		select {
		case g.slots <- struct{}{}:
		default:
			g.waiting.Add(1)
			wait := time.NewTimer(archiveWait)
			defer wait.Stop()
			select {
			case g.slots <- struct{}{}:
				g.waiting.Add(-1)
			case <-r.Context().Done():
				g.waiting.Add(-1)
				writeError(w, http.StatusServiceUnavailable, "the request ended while waiting for its turn to read the archive")
				return
			case <-wait.C:
				g.waiting.Add(-1)
				w.Header().Set("Retry-After", "5")
				writeError(w, http.StatusServiceUnavailable, "busy: too many requests are reading the whole archive; try again shortly")
				return
			}
		}
		defer func() { <-g.slots }()
		h(w, r)
	}
}
