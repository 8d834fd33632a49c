package fakepage

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"sync"
	"time"
)

// FleetOptions configure NewFleetWith.
type FleetOptions struct {
	// TLS serves every page over HTTPS (HTTP/2 offered, HTTP/1.1 accepted) from its own
	// loopback address (127.1.x.y: Linux routes all of 127.0.0.0/8 to lo), with its own
	// certificate for that address, signed by a CA made for this fleet (CAPEM).
	TLS bool
	// IdleTimeout is how long a page's server keeps an idle connection; zero: 2 minutes.
	// A short one makes clients reconnect (and resume their TLS sessions) on every poll.
	IdleTimeout time.Duration
}

// ConnStats are what the pages' servers saw of their clients' connections, summed over
// the fleet.
type ConnStats struct {
	Conns      int            // connections accepted (http.Server.ConnState StateNew)
	Handshakes int            // TLS handshakes completed, resumed ones included
	Resumed    int            // of those, sessions resumed (tls.ConnectionState.DidResume)
	Protocols  map[string]int // requests by protocol ("HTTP/1.1", "HTTP/2.0")
}

// connCounter counts one fleet's ConnStats.
type connCounter struct {
	mu sync.Mutex
	s  ConnStats
}

func (c *connCounter) add(f func(s *ConnStats)) {
	c.mu.Lock()
	f(&c.s)
	c.mu.Unlock()
}

// take returns the counts and starts again from zero.
func (c *connCounter) take() ConnStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.s
	c.s = ConnStats{Protocols: map[string]int{}}
	return s
}

// counting wraps a page's handler to count requests by protocol.
func (c *connCounter) counting(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(func(s *ConnStats) { s.Protocols[r.Proto]++ })
		h.ServeHTTP(w, r)
	})
}

func (c *connCounter) connState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		c.add(func(s *ConnStats) { s.Conns++ })
	}
}

// verify is every page's tls.Config.VerifyConnection: called once per handshake, full or
// resumed.
func (c *connCounter) verify(cs tls.ConnectionState) error {
	c.add(func(s *ConnStats) {
		s.Handshakes++
		if cs.DidResume {
			s.Resumed++
		}
	})
	return nil
}

// fleetCA is a certificate authority made for one fleet.
type fleetCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newFleetCA() (*fleetCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "statuswatch fleet test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(7 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &fleetCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// leaf issues a server certificate for ip, with its own key, as a vendor has.
func (ca *fleetCA) leaf(serial int64, ip net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: ip.String()},
		IPAddresses:  []net.IP{ip},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// fleetIP is page i's own loopback address under TLS: 127.1.0.1, 127.1.0.2, …
func fleetIP(i int) net.IP {
	a := i + 1
	return net.IPv4(127, byte(1+a>>16), byte(a>>8), byte(a))
}

// listenTLS opens page i's listener and its server's TLS config under o.TLS.
func (f *Fleet) listenTLS(i int) (net.Listener, *tls.Config, error) {
	ip := fleetIP(i)
	cert, err := f.ca.leaf(int64(i+2), ip)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		return nil, nil, err
	}
	cfg := &tls.Config{
		Certificates:     []tls.Certificate{cert},
		MinVersion:       tls.VersionTLS12,
		VerifyConnection: f.counter.verify,
	}
	return ln, cfg, nil
}

// CAPEM is the PEM certificate of the CA that signed every page's certificate (nil
// without TLS): what a client adds to its roots (http.ca_file, REQUESTS_CA_BUNDLE).
func (f *Fleet) CAPEM() []byte {
	if f.ca == nil {
		return nil
	}
	return f.ca.pem
}

// ConnStats returns what the pages' servers counted since the last call, and starts
// counting again from zero.
func (f *Fleet) ConnStats() ConnStats { return f.counter.take() }

// String is a one-line summary, for logs.
func (s ConnStats) String() string {
	return fmt.Sprintf("%d connections, %d TLS handshakes (%d resumed), requests by protocol %v", s.Conns, s.Handshakes, s.Resumed, s.Protocols)
}
