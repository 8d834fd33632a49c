package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
)

// netClass is the kind of network an address belongs to, as far as redirects care.
type netClass int

const (
	netPublic netClass = iota
	// netPrivate: RFC 1918, unique-local IPv6 and carrier-grade NAT addresses, where a
	// company's internal services (and some clouds' metadata services) live.
	netPrivate
	// netLinkLocal: 169.254.0.0/16 and fe80::/10, home of the cloud metadata services
	// (169.254.169.254) that hand out credentials.
	netLinkLocal
	// netHost: this machine: loopback, the unspecified address and every address of its
	// interfaces, which is where the daemon's own API listens.
	netHost
)

func (n netClass) String() string {
	switch n {
	case netPrivate:
		return "a private network"
	case netLinkLocal:
		return "a link-local network"
	case netHost:
		return "this host"
	}
	return "the public internet"
}

// cgnat is 100.64.0.0/10 (RFC 6598), not covered by netip's IsPrivate.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// classify tells which network addr is on; local lists this host's interface addresses.
func classify(addr netip.Addr, local []netip.Addr) netClass {
	addr = addr.Unmap()
	switch {
	case addr.IsLoopback() || addr.IsUnspecified():
		return netHost
	case addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast():
		return netLinkLocal
	}
	for _, l := range local {
		if l == addr {
			return netHost
		}
	}
	if addr.IsPrivate() || cgnat.Contains(addr) {
		return netPrivate
	}
	return netPublic
}

// resolver is what redirect checks resolve host names with; a field of Client so tests
// can answer for names that must never be dialled.
type resolver func(ctx context.Context, host string) ([]netip.Addr, error)

func systemResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// localAddrs are this host's interface addresses, read once.
var localAddrs = sync.OnceValue(func() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr().Unmap())
		}
	}
	return out
})

// hostClasses returns the network classes of a URL's host: those of the address it
// names, or of every address its name resolves to. A name that does not resolve has no
// class (the dial will fail on its own).
func (c *Client) hostClasses(ctx context.Context, u *url.URL) []netClass {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return []netClass{netHost} // RFC 6761: always this host, whatever DNS says
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, _ = c.resolve(ctx, host)
	}
	local := localAddrs()
	out := make([]netClass, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, classify(a, local))
	}
	return out
}

// checkRedirectTarget refuses a redirect into this host, a link-local network or a
// private network, unless the source's own URL is on that kind of network already. A
// public page must not be able to point the poller at the metadata service
// (169.254.169.254), the daemon's own API or an internal service, and have what they
// answer archived and shown; a page served from the same internal network is trusted as
// far as its own network goes.
func (c *Client) checkRedirectTarget(ctx context.Context, source, target *url.URL) error {
	var allowed map[netClass]bool
	for _, cl := range c.hostClasses(ctx, target) {
		if cl == netPublic {
			continue
		}
		if allowed == nil {
			allowed = map[netClass]bool{}
			for _, s := range c.hostClasses(ctx, source) {
				allowed[s] = true
			}
		}
		if !allowed[cl] {
			return fmt.Errorf("redirect to %s refused: it points into %s, where the source is not", target.Host, cl)
		}
	}
	return nil
}

// redirectGuard checks, when a redirected request dials, the address the dial reached:
// checkRedirectTarget resolved the target's name, but the dial resolves it again, and a
// name that answered a public address then may answer 127.0.0.1 now (DNS rebinding). It
// rides in the request's context, which net/http hands to the dialer.
type redirectGuard struct {
	c      *Client
	source *url.URL
	mu     sync.Mutex
	target string // host:port the last redirect went to; "" before any redirect
}

type guardKey struct{}

func withGuard(ctx context.Context, c *Client, source *url.URL) context.Context {
	return context.WithValue(ctx, guardKey{}, &redirectGuard{c: c, source: source})
}

func guardOf(ctx context.Context) *redirectGuard {
	g, _ := ctx.Value(guardKey{}).(*redirectGuard)
	return g
}

func (g *redirectGuard) redirected(target string) {
	g.mu.Lock()
	g.target = target
	g.mu.Unlock()
}

// check refuses a connection a redirect opened to an address on a network the source is
// not on. A dial to anything but the redirect's target (a proxy) is not its business.
func (g *redirectGuard) check(ctx context.Context, addr string, conn net.Conn) error {
	g.mu.Lock()
	target := g.target
	g.mu.Unlock()
	if target == "" || !strings.EqualFold(addr, target) {
		return nil
	}
	ap, err := netip.ParseAddrPort(conn.RemoteAddr().String())
	if err != nil {
		return nil
	}
	cl := classify(ap.Addr(), localAddrs())
	if cl == netPublic {
		return nil
	}
	for _, s := range g.c.hostClasses(ctx, g.source) {
		if s == cl {
			return nil
		}
	}
	return fmt.Errorf("redirect to %s refused: it reached %s, where the source is not", addr, cl)
}

// guardDial wraps a dialer with the redirect guard of the request being dialled for.
func guardDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if g := guardOf(ctx); g != nil {
			if err := g.check(ctx, addr, conn); err != nil {
				conn.Close()
				return nil, err
			}
		}
		return conn, nil
	}
}
